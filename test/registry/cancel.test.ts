// needs-corpus: builds on ../shared/corpus; without it this file is left out, loudly (vitest.config.ts).
// needs-registry: real registry servers on 127.0.0.1 (docker-registry).
// Pulls stopped by their signal, against a real registry behind a fault-injecting proxy: the pull
// rejects with the signal's reason, the proxy sees the connection go, and nothing is left behind.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startPlainRegistry, type RegistryProcess } from './fixture.js';
import { BUNDLE_LABELS, buildImage, pushImage, type BuiltImage } from './image-builder.js';
import { leftovers, tempDir, testClient, testdata } from './helpers.js';
import { startFaultProxy, type FaultProxy } from './servers.js';
import { freePort } from './tools.js';
import { eventually } from '../patience.js';

let tmp: ReturnType<typeof tempDir>;
let registry: RegistryProcess;
let proxy: FaultProxy;
let small: BuiltImage;
let large: BuiltImage;
let smallRef: string;
let largeRef: string;

/** Blobs a cold pull of an image fetches: config and layers. */
const blobCount = (img: BuiltImage): number => img.blobs.size - 1;

/** Wait until `cond` holds, polling; fails naming `what` if it never does. */
async function until(cond: () => boolean, what: string): Promise<void> {
  if (!(await eventually(cond))) throw new Error(`never happened: ${what}`);
}

/** Files under `dir` (recursively), as relative paths. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) =>
    statSync(path.join(dir, f)).isFile(),
  );
}

/** Blobs kept in a cache folder, as `sha256:<hex>`. */
function cachedBlobs(cacheDir: string): string[] {
  return filesUnder(path.join(cacheDir, 'blobs', 'sha256')).map((f) => `sha256:${f}`);
}

/** The rejection of a promise (which must reject). */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected the pull to be stopped');
}

beforeAll(async () => {
  tmp = tempDir('opm-cancel-test-');
  registry = await startPlainRegistry(tmp.dir, 'plain');
  proxy = await startFaultProxy(await freePort(), registry.port);
  small = await buildImage({
    layers: [{ dir: testdata('foo-bundle-v0.3.0') }],
    labels: BUNDLE_LABELS('foo'),
  });
  // Past the size under which a blob is gathered in memory: this one is written to a partial file.
  large = await buildImage({
    labels: BUNDLE_LABELS('big'),
    compression: 'none',
    layers: [{ entries: [{ name: 'manifests/noise.bin', content: randomBytes(20 * 1024 * 1024) }] }],
  });
  await pushImage(small, { url: registry.url, repo: 'ns/small', tag: 'v1' });
  await pushImage(large, { url: registry.url, repo: 'ns/large', tag: 'v1' });
  smallRef = `${proxy.host}/ns/small:v1`;
  largeRef = `${proxy.host}/ns/large:v1`;
});

beforeEach(() => proxy.reset());

afterAll(async () => {
  // Unassigned when beforeAll failed before reaching them.
  await (proxy as FaultProxy | undefined)?.close();
  await (registry as RegistryProcess | undefined)?.stop();
  (tmp as ReturnType<typeof tempDir> | undefined)?.remove();
});

describe('a pull stopped by its signal', () => {
  for (const noCache of [false, true]) {
    it(`stops while blobs trickle in, leaving nothing behind${noCache ? ' (--no-cache)' : ''}`, async () => {
      proxy.faults.push({ kind: 'trickle', on: 'blob', times: 100 });
      const { client, workDir, cacheDir } = testClient(tmp.dir, { useHttp: true, noCache });
      const stop = new AbortController();
      const pulling = client.pull(smallRef, { signal: stop.signal });
      await until(() => proxy.counts.blob === blobCount(small), 'every blob requested');
      const reason = new Error('stopped by the caller');
      stop.abort(reason);
      // Each blob would take minutes to trickle in; the test's time-out is far shorter.
      expect(await rejection(pulling)).toBe(reason);
      await until(() => proxy.open === 0, 'every connection closed by the client');
      expect(leftovers(workDir)).toEqual([]);
      expect(leftovers(path.join(cacheDir, 'tmp'))).toEqual([]);
      // Only what was complete and verified before the stop: the manifest, when there is a cache.
      expect(cachedBlobs(cacheDir)).toEqual(noCache ? [] : [small.top.digest]);
      await client.close();
    });
  }

  it('removes the partial file of a large blob it stops in the middle of', async () => {
    proxy.faults.push({ kind: 'stall', on: 'blob', times: 100 });
    const { client, workDir, cacheDir } = testClient(tmp.dir, { useHttp: true });
    const stop = new AbortController();
    const pulling = client.pull(largeRef, { signal: stop.signal });
    const partials = (): string[] =>
      leftovers(path.join(cacheDir, 'tmp')).filter((f) => f.endsWith('.partial'));
    await until(
      () => partials().some((f) => statSync(path.join(cacheDir, 'tmp', f)).size > 0),
      'a partial blob file with bytes in it',
    );
    const reason = new Error('stopped mid-blob');
    stop.abort(reason);
    expect(await rejection(pulling)).toBe(reason);
    expect(leftovers(path.join(cacheDir, 'tmp'))).toEqual([]);
    expect(cachedBlobs(cacheDir)).toEqual([large.top.digest]);
    expect(leftovers(workDir)).toEqual([]);
    await until(() => proxy.open === 0, 'every connection closed by the client');
    await client.close();
  });

  it('stops during a back-off wait of 30 s (Retry-After)', async () => {
    proxy.faults.push({ kind: 'status-429', on: 'manifest', times: 100, retryAfter: '30' });
    const { client, workDir } = testClient(tmp.dir, { useHttp: true });
    const stop = new AbortController();
    const pulling = client.pull(smallRef, { signal: stop.signal });
    await until(() => proxy.counts.manifest === 1, 'the first manifest request');
    const reason = new Error('no waiting');
    stop.abort(reason);
    expect(await rejection(pulling)).toBe(reason);
    expect(proxy.counts.manifest).toBe(1);
    expect(leftovers(workDir)).toEqual([]);
    await client.close();
  });

  it('sends nothing when the signal is already aborted', async () => {
    const { client, workDir } = testClient(tmp.dir, { useHttp: true });
    const reason = new Error('never started');
    expect(await rejection(client.pull(smallRef, { signal: AbortSignal.abort(reason) }))).toBe(reason);
    expect(proxy.counts).toEqual({ blob: 0, manifest: 0, other: 0 });
    expect(leftovers(workDir)).toEqual([]);
    await client.close();
  });

  it('keeps a download another pull still waits for, and stops it with the last one', async () => {
    proxy.faults.push({ kind: 'trickle', on: 'blob', times: 100 });
    const { client, workDir, cacheDir } = testClient(tmp.dir, { useHttp: true });
    const first = new AbortController();
    const second = new AbortController();
    const a = client.pull(smallRef, { signal: first.signal });
    const b = client.pull(smallRef, { signal: second.signal });
    await until(() => proxy.counts.blob === blobCount(small), 'every blob requested');
    const reasonA = new Error('first stops');
    first.abort(reasonA);
    expect(await rejection(a)).toBe(reasonA);
    // The blobs were requested once, for both pulls, and are still coming for the second.
    expect(proxy.counts.blob).toBe(blobCount(small));
    expect(proxy.open).toBe(blobCount(small));
    const reasonB = new Error('second stops');
    second.abort(reasonB);
    expect(await rejection(b)).toBe(reasonB);
    await until(() => proxy.open === 0, 'every connection closed by the client');
    expect(leftovers(workDir)).toEqual([]);
    expect(leftovers(path.join(cacheDir, 'tmp'))).toEqual([]);
    await client.close();
  });
});
