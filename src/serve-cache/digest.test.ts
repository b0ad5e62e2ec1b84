import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OpmError } from '../errors.js';
import { hashCatalogBlobs, walkMetaBlobs, type HashBlobsOptions } from './digest.js';
import { Fnv1a64 } from './hash.js';
import { loadDiskCache } from './load-cache.js';
import { corpusPath, haveCorpus } from '../../test/corpus.js';

const FIXTURE = path.resolve('testdata/serve-cache/basic/catalog');
const work = mkdtempSync(path.join(tmpdir(), 'opm-serve-digest-unit-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The blob part of the digest as walkMetaBlobs yields it, one blob after another in this thread. */
async function walked(dir: string): Promise<string> {
  const h = new Fnv1a64();
  for await (const b of walkMetaBlobs(dir)) h.update(b.bytes);
  return h.hex();
}

async function hashed(dir: string, threads: number, options: HashBlobsOptions = {}): Promise<string> {
  const h = new Fnv1a64();
  await hashCatalogBlobs(dir, h, { threads, workerMinBytes: 0, ...options });
  return h.hex();
}

describe('hashCatalogBlobs', () => {
  it('hashes the blobs in walk order, in this thread and on workers alike', async () => {
    const expected = await walked(FIXTURE);
    expect(await hashed(FIXTURE, 1)).toBe(expected);
    expect(await hashed(FIXTURE, 3)).toBe(expected);
  });

  it.skipIf(!haveCorpus())(
    'gives the same bytes on workers as one blob at a time on the corpus community catalog',
    async () => {
      const dir = corpusPath('community-catalog-v4.21');
      const expected = await walked(dir);
      expect(await hashed(dir, 2)).toBe(expected);
      // Windows of a few files each, as a catalog of many times the window is hashed.
      expect(await hashed(dir, 2, { windowBytes: 1024 * 1024 })).toBe(expected);
    },
  );

  it('hashes files read in parts in walk order between the windows of files read whole', async () => {
    const dir = path.join(work, 'parts');
    cpSync(FIXTURE, dir, { recursive: true });
    // Over the blob limit given below, so read in parts; its blobs are each under it.
    const docs = Array.from(
      { length: 40 },
      (_, i) => `schema: test.parts\nname: p${i}\nfill: ${'x'.repeat(100)}\n`,
    );
    writeFileSync(path.join(dir, 'm-large.yaml'), docs.join('---\n'));
    const env = { OPM_MAX_BLOB_BYTES: '2000' };
    const h = new Fnv1a64();
    for await (const b of walkMetaBlobs(dir, { maxBlobBytes: 2000 })) h.update(b.bytes);
    const expected = h.hex();
    for (const threads of [1, 3]) expect(await hashed(dir, threads, { env, windowBytes: 1 })).toBe(expected);
  });

  it('fails at the first file in walk order that does not parse, whichever thread read it', async () => {
    const dir = path.join(work, 'two-bad');
    cpSync(FIXTURE, dir, { recursive: true });
    // Both fail; `a-bad.yaml` comes first in walk order, the larger `z-bad.yaml` is claimed first.
    writeFileSync(path.join(dir, 'a-bad.yaml'), 'schema: x\n  bad: [indent\n');
    writeFileSync(path.join(dir, 'z-bad.yaml'), `schema: y\nx: ${'y'.repeat(5000)}\n  bad: [\n`);
    for (const threads of [1, 3]) {
      const err = await hashed(dir, threads).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(OpmError);
      expect((err as OpmError).at?.file).toBe('a-bad.yaml');
      expect((err as OpmError).at?.line).toBe(2);
    }
  });
});

describe('the integrity check of opm serve --cache-dir', () => {
  it('reads the catalog with the environment the loader reads (OPM_MAX_BLOB_BYTES)', async () => {
    const catalog = path.resolve('testdata/serve/mixed/catalog');
    const cacheDir = path.join(work, 'env-cache');
    const log = (): void => undefined;
    // Built, then checked with the default blob limit: it serves.
    const built = await loadDiskCache(catalog, { cacheDir, enforceIntegrity: false, log });
    await built.close();
    const checked = await loadDiskCache(catalog, { cacheDir, enforceIntegrity: true, log });
    await checked.close();
    // With a limit below the catalog's blobs the check cannot read them, as the loader could not.
    const err = await loadDiskCache(catalog, {
      cacheDir,
      enforceIntegrity: true,
      log,
      env: { OPM_MAX_BLOB_BYTES: '10' },
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(OpmError);
    expect((err as OpmError).message).toMatch(/^integrity check failed: compute digest: .*too large/);
  });
});
