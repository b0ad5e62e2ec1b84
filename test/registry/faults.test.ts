// needs-corpus: builds on ../shared/corpus; without it this file is left out, loudly (vitest.config.ts).
// needs-registry: real registry servers on 127.0.0.1 (docker-registry).
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFixture, type Fixture } from './fixture.js';
import { BUNDLE_LABELS, buildImage, pushImage, type BuiltImage } from './image-builder.js';
import { cliLine, leftovers, pullError, tempDir, testClient, testdata } from './helpers.js';
import { RegistryClient } from '../../src/oci/registry-client.js';

let fx: Fixture;
let tmp: ReturnType<typeof tempDir>;
let img: BuiltImage;
let ref: string;

/** Blobs of the image that a cold pull fetches: config and layers. */
const blobCount = (): number => img.blobs.size - 1;

beforeAll(async () => {
  tmp = tempDir('opm-faults-test-');
  fx = await startFixture();
  img = await buildImage({ layers: [{ dir: testdata('foo-bundle-v0.3.0') }], labels: BUNDLE_LABELS('foo') });
  await pushImage(img, { url: fx.plain.url, repo: 'ns/foo', tag: 'v0.3.0' });
  ref = `${fx.proxy.host}/ns/foo:v0.3.0`;
});

beforeEach(() => fx.proxy.reset());

afterAll(async () => {
  // Unassigned when beforeAll failed before reaching them.
  await (fx as Fixture | undefined)?.stop();
  (tmp as ReturnType<typeof tempDir> | undefined)?.remove();
});

function expectOneLine(
  err: { message: string; hint?: string | undefined; exitCode: number },
  image: string,
): void {
  const line = `error: ${err.message}${err.hint ? ` (${err.hint})` : ''}`;
  expect(line).not.toContain('\n');
  expect(line).toContain(image);
  expect(line).toContain(fx.proxy.host);
  expect(err.exitCode).toBe(1);
}

describe('retries', () => {
  it('waits out 429 with Retry-After and 500s, then succeeds', async () => {
    fx.proxy.faults.push({ kind: 'status-429', on: 'manifest', times: 1, retryAfter: '1' });
    fx.proxy.faults.push({ kind: 'status-500', on: 'blob', times: 2 });
    const { client, logs } = testClient(tmp.dir, { useHttp: true });
    const pulled = await client.pull(ref);
    expect(pulled.digest).toBe(img.top.digest);
    await pulled.release();
    await client.close();
    expect(fx.proxy.faults.every((f) => f.times === 0)).toBe(true);
    expect(logs.some((l) => l.includes('HTTP 429'))).toBe(true);
    expect(logs.some((l) => l.includes('HTTP 500'))).toBe(true);
  });

  it('gives up on a registry that keeps failing, with one line', async () => {
    fx.proxy.faults.push({ kind: 'status-500', on: 'manifest', times: 100 });
    const { client } = testClient(tmp.dir, { useHttp: true });
    const err = await pullError(client.pull(ref));
    expect(err.code).toBe('E_REGISTRY_HTTP');
    expectOneLine(err, ref);
    await client.close();
  });

  it('downloads again when the connection drops in the middle of a blob', async () => {
    fx.proxy.faults.push({ kind: 'drop', on: 'blob', times: 1 });
    const { client } = testClient(tmp.dir, { useHttp: true });
    const pulled = await client.pull(ref);
    await pulled.release();
    await client.close();
    expect(fx.proxy.counts.blob).toBe(blobCount() + 1);
  });
});

describe('content that does not match its digest', () => {
  for (const kind of ['corrupt', 'truncate'] as const) {
    it(`refuses a ${kind === 'corrupt' ? 'corrupted' : 'truncated'} blob, writing nothing`, async () => {
      fx.proxy.faults.push({ kind, on: 'blob', times: 100 });
      const { client, workDir, cacheDir } = testClient(tmp.dir, { useHttp: true });
      const err = await pullError(client.pull(ref));
      expect(err.code).toBe('E_DIGEST_MISMATCH');
      expectOneLine(err, ref);
      expect(leftovers(workDir)).toEqual([]);
      // Nothing unverified enters the cache: only the (verified) manifest.
      const cached = existsSync(path.join(cacheDir, 'blobs', 'sha256'))
        ? readdirSync(path.join(cacheDir, 'blobs', 'sha256'))
        : [];
      expect(cached).toEqual([img.top.digest.slice(7)]);
      expect(leftovers(path.join(cacheDir, 'tmp'))).toEqual([]);
      await client.close();
    });
  }

  it('refuses a manifest that does not match the digest asked for', async () => {
    fx.proxy.faults.push({ kind: 'alter', on: 'manifest', times: 100 });
    const { client } = testClient(tmp.dir, { useHttp: true });
    const byDigest = `${fx.proxy.host}/ns/foo@${img.top.digest}`;
    const err = await pullError(client.pull(byDigest));
    expect(err.code).toBe('E_DIGEST_MISMATCH');
    expectOneLine(err, byDigest);
    // By tag, the registry's Docker-Content-Digest header is the expectation.
    const tagErr = await pullError(client.pull(ref));
    expect(tagErr.code).toBe('E_DIGEST_MISMATCH');
    await client.close();
  });

  it('stops a redirect loop', async () => {
    fx.proxy.faults.push({ kind: 'redirect-loop', on: 'blob', times: 100 });
    const { client } = testClient(tmp.dir, { useHttp: true });
    const err = await pullError(client.pull(ref));
    expect(err.code).toBe('E_REGISTRY_REDIRECT');
    expectOneLine(err, ref);
    await client.close();
  });
});

describe('cache sharing, --no-cache and hostile layers', () => {
  it('lets two clients fill one cache at the same time, and --no-cache bypasses it', async () => {
    const shared = testClient(tmp.dir, { useHttp: true });
    const other = new RegistryClient({
      skipTlsVerify: false,
      useHttp: true,
      cacheDir: shared.cacheDir,
      workDir: shared.workDir,
      certDirs: [],
      configRoot: shared.home,
      env: { HOME: shared.home },
    });
    const [a, b] = await Promise.all([shared.client.pull(ref), other.pull(ref)]);
    expect(a.digest).toBe(b.digest);
    await a.release();
    await b.release();
    expect(leftovers(path.join(shared.cacheDir, 'tmp'))).toEqual([]);
    fx.proxy.reset();
    const noCache = new RegistryClient({
      skipTlsVerify: false,
      useHttp: true,
      noCache: true,
      cacheDir: shared.cacheDir,
      workDir: shared.workDir,
      certDirs: [],
      configRoot: shared.home,
      env: { HOME: shared.home },
    });
    const c = await noCache.pull(ref);
    await c.release();
    expect(fx.proxy.counts.blob).toBe(blobCount());
    expect(leftovers(shared.workDir)).toEqual([]);
    await Promise.all([shared.client.close(), other.close(), noCache.close()]);
  });

  it('refuses a layer with ../ paths with one line and leaves nothing behind', async () => {
    const evil = await buildImage({
      labels: BUNDLE_LABELS('evil'),
      layers: [
        {
          entries: [
            { name: 'manifests/ok.yaml', content: 'kind: ConfigMap\n' },
            { name: 'manifests/../../../escaped.txt', content: 'gotcha' },
          ],
        },
      ],
    });
    await pushImage(evil, { url: fx.plain.url, repo: 'ns/evil', tag: 'v1' });
    const { client, workDir } = testClient(tmp.dir, { useHttp: true });
    const evilRef = `${fx.plain.host}/ns/evil:v1`;
    const err = await pullError(client.pull(evilRef));
    expect(err.code).toBe('E_UNSAFE_LAYER');
    const line = cliLine(err);
    expect(line).not.toContain('\n');
    expect(line).toContain(evilRef);
    expect(line).toContain('..');
    expect(leftovers(workDir)).toEqual([]);
    expect(existsSync(path.join(workDir, '..', 'escaped.txt'))).toBe(false);
    await client.close();
  });
});

// Last: this stops the plain registry.
describe('blob cache', () => {
  it('keeps blobs read-only, and downloads a damaged cached layer again in the same run, saying so', async () => {
    const { client, cacheDir, logs } = testClient(tmp.dir, { useHttp: true });
    const a = await client.pull(ref);
    await a.release();
    const layer = img.manifests[0]?.layers[0];
    if (layer === undefined) throw new Error('image without layers');
    const file = path.join(cacheDir, 'blobs', 'sha256', layer.digest.slice('sha256:'.length));
    expect(statSync(file).mode & 0o777).toBe(0o444);
    chmodSync(file, 0o644);
    const bytes = readFileSync(file);
    const mid = bytes.length >> 1;
    bytes[mid] = (bytes[mid] ?? 0) ^ 0xff;
    writeFileSync(file, bytes);

    fx.proxy.reset();
    const b = await client.pull(ref);
    await b.release();
    expect(fx.proxy.counts.blob).toBe(1);
    expect(readFileSync(file).equals(layer.bytes)).toBe(true);
    expect(logs.filter((l) => l.includes('damaged'))).toEqual([
      `warning: cached layer ${layer.digest} of ${ref} was damaged; downloading it again`,
    ]);
    await client.close();
  });

  it('replaces a folder standing where a cached blob belongs', async () => {
    const { client, cacheDir } = testClient(tmp.dir, { useHttp: true });
    const layer = img.manifests[0]?.layers[0];
    if (layer === undefined) throw new Error('image without layers');
    const file = path.join(cacheDir, 'blobs', 'sha256', layer.digest.slice('sha256:'.length));
    mkdirSync(path.join(file, 'inside'), { recursive: true });
    const a = await client.pull(ref);
    await a.release();
    expect(readFileSync(file).equals(layer.bytes)).toBe(true);
    await client.close();
  });

  it('pulls without a cache it cannot write, with one warning', async () => {
    // Permission bits do not stop root, so the cache sits under a regular file: it cannot be created.
    const blocked = path.join(tmp.dir, 'not-a-folder');
    writeFileSync(blocked, '');
    for (const cacheDir of [path.join(blocked, 'cache')]) {
      const { client, logs } = testClient(tmp.dir, { useHttp: true, cacheDir });
      for (let i = 0; i < 2; i++) {
        const p = await client.pull(ref);
        expect(existsSync(path.join(p.root, 'manifests'))).toBe(true);
        await p.release();
      }
      expect(logs.filter((l) => l.startsWith('warning:'))).toHaveLength(1);
      expect(logs.find((l) => l.startsWith('warning:'))).toContain('cannot be written');
      await client.close();
    }
  });

  it('makes no blob request the second time, and works by digest with the registry stopped', async () => {
    const extra = await buildImage({
      layers: [{ dir: testdata('foo-bundle-v0.3.1') }],
      labels: BUNDLE_LABELS('foo'),
    });
    await pushImage(extra, { url: fx.plain.url, repo: 'ns/foo', tag: 'v0.3.1' });
    const first = testClient(tmp.dir, { useHttp: true });
    const tagRef = `${fx.proxy.host}/ns/foo:v0.3.1`;
    const a = await first.client.pull(tagRef);
    await a.release();
    await first.client.close();
    expect(fx.proxy.counts.blob).toBe(extra.blobs.size - 1);

    fx.proxy.reset();
    // A new client (as a new process would be) on the same cache folder.
    const second = new RegistryClient({
      skipTlsVerify: false,
      useHttp: true,
      cacheDir: first.cacheDir,
      workDir: first.workDir,
      certDirs: [],
      configRoot: first.home,
      env: { HOME: first.home },
    });
    const b = await second.pull(tagRef);
    expect(b.digest).toBe(extra.top.digest);
    await b.release();
    expect(fx.proxy.counts.blob).toBe(0);

    fx.proxy.reset();
    await fx.plain.stop();
    const c = await second.pull(`${fx.proxy.host}/ns/foo@${extra.top.digest}`);
    expect(c.labels['operators.operatorframework.io.bundle.package.v1']).toBe('foo');
    expect(readdirSync(path.join(c.root, 'manifests')).length).toBeGreaterThan(0);
    await c.release();
    expect(fx.proxy.counts.blob + fx.proxy.counts.manifest + fx.proxy.counts.other).toBe(0);
    const down = await pullError(second.pull(tagRef));
    expect(down.message).toContain(fx.proxy.host);
    await second.close();
  });
});
