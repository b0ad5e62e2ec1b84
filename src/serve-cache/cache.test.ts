import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  bundlesInListOrder,
  catalogBlobs,
  detectBackend,
  DigestMismatchError,
  openServeCache,
  ServeCacheError,
  writePogrebCache,
} from './cache.js';
import { loadCatalogDir } from '../declcfg/load.js';
import { metaKeyProblem } from '../declcfg/meta.js';
import { convertToModelOrThrow } from '../model/convert.js';
import { packageIndexFromModel, type PackageIndex } from '../catalog-queries/package-index.js';
import { decodeBundle, emptyBundle, encodeBundle } from '../api-contract/messages.js';
import { decodeStruct } from '../protobuf/struct.js';
import { walkMetaBlobs } from './digest.js';

const FIXTURE = path.resolve('testdata/serve-cache/basic/catalog');
const work = mkdtempSync(path.join(tmpdir(), 'opm-serve-cache-unit-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let n = 0;
const fresh = (): string => path.join(work, `c-${++n}`);

async function fixtureIndex(catalog = FIXTURE): Promise<PackageIndex> {
  const { cfg } = await loadCatalogDir(catalog);
  return packageIndexFromModel(convertToModelOrThrow(cfg));
}

function fixtureBundles(index: PackageIndex) {
  return [...index.values()].flatMap((p) =>
    [...p.channels.values()].flatMap((c) =>
      [...c.bundles.values()].map((b) => ({
        packageName: p.name,
        channelName: c.name,
        bundleName: b.name,
        bundle: encodeBundle({
          ...emptyBundle(),
          csvName: b.name,
          packageName: p.name,
          channelName: c.name,
        }),
      })),
    ),
  );
}

async function failure(p: Promise<unknown> | (() => unknown)): Promise<Error> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a failure');
}

describe('detectBackend', () => {
  it('takes the preferred pogreb layout for a missing or empty directory', () => {
    expect(detectBackend(path.join(work, 'missing'))).toEqual({ backend: 'pogreb.v1', existing: false });
    const dir = fresh();
    mkdirSync(dir);
    expect(detectBackend(dir)).toEqual({ backend: 'pogreb.v1', existing: false });
  });

  it('finds pogreb.v1/ first, then cache/ with digest', () => {
    const dir = fresh();
    mkdirSync(path.join(dir, 'cache'), { recursive: true });
    writeFileSync(path.join(dir, 'digest'), '0000000000000000');
    expect(detectBackend(dir)).toEqual({ backend: 'json', existing: true });
    mkdirSync(path.join(dir, 'pogreb.v1'));
    expect(detectBackend(dir)).toEqual({ backend: 'pogreb.v1', existing: true });
  });

  it("refuses anything else with opm's text, names in byte order", async () => {
    const dir = fresh();
    mkdirSync(path.join(dir, 'cache'), { recursive: true });
    writeFileSync(path.join(dir, 'b'), '');
    writeFileSync(path.join(dir, 'B'), '');
    // A symlink to a directory named pogreb.v1 is not the directory opm looks for.
    symlinkSync(path.join(dir, 'cache'), path.join(dir, 'pogreb.v1'));
    const err = await failure(() => detectBackend(dir));
    expect(err).toBeInstanceOf(ServeCacheError);
    expect(err.message).toBe('cache directory has unexpected contents: B,b,cache,pogreb.v1');
  });

  it('says so when the cache directory is a file', async () => {
    const file = fresh();
    writeFileSync(file, '');
    expect((await failure(() => detectBackend(file))).message).toBe(
      `detect cache format: read cache directory: open ${file}: not a directory`,
    );
  });
});

describe('a pogreb cache written and read back', () => {
  it('holds packages.json, the bundles and the custom-schema blobs, and passes its integrity check', async () => {
    const dir = fresh();
    const index = await fixtureIndex();
    const bundles = fixtureBundles(index);
    const digest = await writePogrebCache(dir, {
      packageIndex: index,
      bundles,
      blobs: catalogBlobs(FIXTURE),
    });
    expect(readFileSync(path.join(dir, 'pogreb.v1/digest'), 'utf8')).toBe(digest);
    const cache = openServeCache(dir);
    try {
      expect(cache.detection).toEqual({ backend: 'pogreb.v1', existing: true });
      expect(cache.storedDigest()).toBe(digest);
      expect(await cache.computeDigest(FIXTURE)).toBe(digest);
      await cache.checkIntegrity(FIXTURE);
      const back = cache.packageIndex();
      expect(back).toEqual(index);
      expect([...(back.get('etcd')?.channels.keys() ?? [])].sort()).toEqual(['alpha', 'stable']);
      expect(back.get('etcd')?.channels.get('alpha')?.head).toBe('etcd.v0.9.2');
      for (const b of bundles) {
        const got = cache.bundle(b.packageName, b.channelName, b.bundleName);
        expect(got === undefined ? undefined : decodeBundle(got).channelName).toBe(b.channelName);
      }
      expect(cache.bundle('etcd', 'stable', 'etcd.v0.9.0')).toBeUndefined();
      // The custom blobs of etcd/extras.json, by (schema, package), in file order.
      expect(cache.metas('my.custom', 'etcd').map((m) => decodeStruct(m).name)).toEqual(['a', 'b']);
      expect(cache.metas('my.custom', '').map((m) => decodeStruct(m).name)).toEqual(['global']);
      expect(cache.metas('other.schema', 'etcd').map((m) => decodeStruct(m).Unicode)).toEqual(['café 😀']);
      expect(cache.metas('olm.bundle', 'etcd')).toEqual([]);
      // 12345678901234567890 in the file is read as the nearest double, as Go's float64 reads it.
      const a = decodeStruct(cache.metas('my.custom', 'etcd')[0] as Uint8Array);
      expect([a.n, a.big, a.int, a.html, a.sep, a.empty]).toEqual([
        1.5,
        1e21,
        Number('12345678901234567890'),
        '<&>',
        '\u2028',
        '',
      ]);
    } finally {
      cache.close();
    }
  });

  it("lists bundles in ListBundles' order: channel, then package, then bundle", async () => {
    const index = await fixtureIndex();
    expect(bundlesInListOrder(index).map((b) => `${b.channelName}/${b.packageName}/${b.bundleName}`)).toEqual(
      ['alpha/etcd/etcd.v0.9.0', 'alpha/etcd/etcd.v0.9.2', 'stable/etcd/etcd.v0.9.2'],
    );
  });

  it('names the catalog file that cannot be read when computing the digest', async () => {
    const catalog = fresh();
    mkdirSync(catalog);
    writeFileSync(path.join(catalog, 'bad.yaml'), 'schema: x\n  bad: [indent\n');
    const dir = fresh();
    const index = await fixtureIndex();
    await writePogrebCache(dir, { packageIndex: index, bundles: [], blobs: catalogBlobs(FIXTURE) });
    const err = (await failure(openServeCache(dir).checkIntegrity(catalog))) as ServeCacheError;
    expect(err.message).toMatch(/^compute digest: /);
    expect(err.at?.file).toBe('bad.yaml');
  });

  it('writes the same bytes for the same catalog', async () => {
    const index = await fixtureIndex();
    const dirs = [fresh(), fresh()];
    for (const d of dirs)
      await writePogrebCache(d, {
        packageIndex: index,
        bundles: fixtureBundles(index),
        blobs: catalogBlobs(FIXTURE),
      });
    for (const f of [
      'digest',
      'db/00000-1.psg',
      'db/00000-1.psg.pmt',
      'db/db.pmt',
      'db/index.pmt',
      'db/main.pix',
      'db/overflow.pix',
    ]) {
      const [a, b] = dirs.map((d) => readFileSync(path.join(d as string, 'pogreb.v1', f)));
      expect(a?.equals(b as Buffer), f).toBe(true);
    }
  });

  it('rebuilding empties pogreb.v1/ first', async () => {
    const dir = fresh();
    mkdirSync(path.join(dir, 'pogreb.v1/db'), { recursive: true });
    writeFileSync(path.join(dir, 'pogreb.v1/db/00001-7.psg'), 'stale');
    writeFileSync(path.join(dir, 'pogreb.v1/leftover'), '');
    const index = await fixtureIndex();
    await writePogrebCache(dir, {
      packageIndex: index,
      bundles: fixtureBundles(index),
      blobs: catalogBlobs(FIXTURE),
    });
    const cache = openServeCache(dir);
    await cache.checkIntegrity(FIXTURE);
    cache.close();
  });

  it('fails the integrity check of a changed catalog with both digests', async () => {
    const dir = fresh();
    const index = await fixtureIndex();
    await writePogrebCache(dir, {
      packageIndex: index,
      bundles: fixtureBundles(index),
      blobs: catalogBlobs(FIXTURE),
    });
    const changed = fresh();
    cpSync(FIXTURE, changed, { recursive: true });
    const file = path.join(changed, 'etcd/extras.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"n": 1.5', '"n": 1.25'));
    const cache = openServeCache(dir);
    const err = await failure(cache.checkIntegrity(changed));
    expect(err).toBeInstanceOf(DigestMismatchError);
    const { existingDigest, computedDigest } = err as DigestMismatchError;
    expect(existingDigest).toBe(cache.storedDigest());
    expect(computedDigest).toBe(await cache.computeDigest(changed));
    expect(err.message).toBe(
      `cache requires rebuild: cache reports digest as "${existingDigest}", but computed digest is "${computedDigest}"`,
    );
    cache.close();
  });

  it('counts values, not text: the same blobs written as JSON instead of YAML give the same digest', async () => {
    const dir = fresh();
    const index = await fixtureIndex();
    await writePogrebCache(dir, {
      packageIndex: index,
      bundles: fixtureBundles(index),
      blobs: catalogBlobs(FIXTURE),
    });
    const asJson = fresh();
    cpSync(FIXTURE, asJson, { recursive: true });
    const blobs = [];
    for await (const b of walkMetaBlobs(FIXTURE)) if (b.file === 'etcd/catalog.yaml') blobs.push(b.value);
    rmSync(path.join(asJson, 'etcd/catalog.yaml'));
    // Same walk position (catalog.json sorts where catalog.yaml did), keys in another order.
    writeFileSync(
      path.join(asJson, 'etcd/catalog.json'),
      blobs.map((v) => JSON.stringify(Object.fromEntries(Object.entries(v).reverse()), null, 2)).join('\n'),
    );
    const cache = openServeCache(dir);
    await cache.checkIntegrity(asJson);
    cache.close();
  });

  it('reads a missing digest as opm does', async () => {
    const dir = fresh();
    mkdirSync(dir);
    const cache = openServeCache(dir);
    expect((await failure(cache.checkIntegrity(FIXTURE))).message).toBe(
      `read existing cache digest: open ${dir}/pogreb.v1/digest: no such file or directory`,
    );
    expect((await failure(() => cache.packageIndex())).message).toBe(
      'get package index: unexpected end of JSON input',
    );
  });

  it("refuses a custom schema that cannot be a key, in opm's words", async () => {
    expect(metaKeyProblem('my.schema', '')).toBeUndefined();
    expect(metaKeyProblem('', 'p')).toBe('invalid schema: must not be empty');
    expect(metaKeyProblem('../x', 'p')).toBe(
      'invalid schema "../x": must match ^[a-zA-Z0-9][a-zA-Z0-9._-]*$',
    );
    expect(metaKeyProblem('ok', '-p')).toBe(
      'invalid packageName "-p": must match ^[a-zA-Z0-9][a-zA-Z0-9._-]*$',
    );
    const catalog = fresh();
    mkdirSync(catalog);
    writeFileSync(path.join(catalog, 'c.json'), '{"schema":"my/schema","package":"p"}');
    const err = await failure(
      writePogrebCache(fresh(), { packageIndex: new Map(), bundles: [], blobs: catalogBlobs(catalog) }),
    );
    expect(err.message).toBe(
      'invalid custom schema meta: invalid schema "my/schema": must match ^[a-zA-Z0-9][a-zA-Z0-9._-]*$',
    );
  });

  it("reads schema and package under Go's case folding (the long s, the Kelvin sign, capitals)", async () => {
    const catalog = path.resolve('testdata/serve-cache/folded-keys/catalog');
    const dir = fresh();
    await writePogrebCache(dir, {
      packageIndex: await fixtureIndex(catalog),
      bundles: [],
      blobs: catalogBlobs(catalog),
    });
    const cache = openServeCache(dir);
    try {
      expect([...cache.packageIndex().keys()]).toEqual(['widget']);
      const notes = cache.metas('acme.note', 'widget').map((r) => decodeStruct(r).name);
      expect(notes).toEqual(['first', 'second']);
      expect(await cache.checkIntegrity(catalog)).toBe('fingerprint');
    } finally {
      cache.close();
    }
  });
});
