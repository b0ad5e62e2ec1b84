// needs-corpus: builds on ../shared/corpus; without it this file is left out, loudly (vitest.config.ts).
// needs-registry: real registry servers on 127.0.0.1 (docker-registry).
// OPM_REGISTRY_BODY_DEADLINE bounds a blob's download over all its attempts, against a real registry
// behind a proxy that trickles blobs a byte every 100 ms.
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startPlainRegistry, type RegistryProcess } from './fixture.js';
import { BUNDLE_LABELS, buildImage, pushImage, type BuiltImage } from './image-builder.js';
import { cliLine, leftovers, pullError, tempDir, testClient, testdata } from './helpers.js';
import { startFaultProxy, type FaultProxy } from './servers.js';
import { freePort } from './tools.js';

let tmp: ReturnType<typeof tempDir>;
let registry: RegistryProcess;
let proxy: FaultProxy;
let img: BuiltImage;
let ref: string;

/** Blobs a cold pull fetches: config and layers. */
const blobCount = (): number => img.blobs.size - 1;

beforeAll(async () => {
  tmp = tempDir('opm-deadline-test-');
  registry = await startPlainRegistry(tmp.dir, 'plain');
  proxy = await startFaultProxy(await freePort(), registry.port);
  img = await buildImage({ layers: [{ dir: testdata('foo-bundle-v0.3.0') }], labels: BUNDLE_LABELS('foo') });
  await pushImage(img, { url: registry.url, repo: 'ns/foo', tag: 'v1' });
  ref = `${proxy.host}/ns/foo:v1`;
});

beforeEach(() => proxy.reset());

afterAll(async () => {
  // Unassigned when beforeAll failed before reaching them.
  await (proxy as FaultProxy | undefined)?.close();
  await (registry as RegistryProcess | undefined)?.stop();
  (tmp as ReturnType<typeof tempDir> | undefined)?.remove();
});

describe('OPM_REGISTRY_BODY_DEADLINE', () => {
  it('ends a trickling blob at the deadline, without trying it again', async () => {
    proxy.faults.push({ kind: 'trickle', on: 'blob', times: 100 });
    const { client, workDir, cacheDir } = testClient(tmp.dir, {
      useHttp: true,
      env: { OPM_REGISTRY_BODY_DEADLINE: '1' },
    });
    const err = await pullError(client.pull(ref));
    await client.close();
    expect(err.code).toBe('E_REGISTRY_TIMEOUT');
    expect(cliLine(err)).toMatch(
      new RegExp(
        `^error: failed to pull image "${ref}": ${proxy.host}: (config|layer) sha256:[0-9a-f]{64}: download not complete within 1 s \\(over all attempts\\) \\(.*OPM_REGISTRY_BODY_DEADLINE.*\\)$`,
      ),
    );
    // One request per blob: the deadline is spent, so a second attempt would have none left.
    expect(proxy.counts.blob).toBe(blobCount());
    expect(leftovers(workDir)).toEqual([]);
    expect(leftovers(path.join(cacheDir, 'tmp'))).toEqual([]);
  });

  it('counts the time of an attempt cut short against the next one', async () => {
    // The first blob request is cut half-way, and is tried again: that attempt trickles.
    proxy.faults.push({ kind: 'drop', on: 'blob', times: 1 }, { kind: 'trickle', on: 'blob', times: 100 });
    const { client, logs } = testClient(tmp.dir, {
      useHttp: true,
      env: { OPM_REGISTRY_BODY_DEADLINE: '1' },
    });
    const err = await pullError(client.pull(ref));
    await client.close();
    expect(err.code).toBe('E_REGISTRY_TIMEOUT');
    expect(logs.filter((l) => l.includes('download interrupted, retrying'))).toHaveLength(1);
    // With a deadline per attempt, the retried blob would have been asked for a third time.
    expect(proxy.counts.blob).toBe(blobCount() + 1);
  });

  it('lets a blob that arrives in time through', async () => {
    const { client } = testClient(tmp.dir, { useHttp: true, env: { OPM_REGISTRY_BODY_DEADLINE: '300' } });
    const pulled = await client.pull(ref);
    expect(pulled.digest).toBe(img.top.digest);
    await pulled.release();
    await client.close();
  });
});
