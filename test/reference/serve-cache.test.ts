// opm's serve cache both ways between the reference opm and opm-ts (src/serve-cache/): caches the
// Go opm builds (`serve --cache-only`) are read here key by key and their digests recomputed;
// caches written here are served by the Go opm with its integrity check enforced; and the failures
// of both (stale catalog, unexpected directory contents, missing digest) read the same.
import { spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusPath, haveCorpus } from '../corpus.js';
import { reference } from './reference-opm.js';
import { runOpm } from '../run-cli.js';
import { serve } from '../../src/action/serve.js';
import { answering, freePort } from '../serve/client.js';
import { loadCatalogDir } from '../../src/declcfg/load.js';
import { convertToModelOrThrow } from '../../src/model/convert.js';
import {
  catalogBlobs,
  openServeCache,
  ServeCacheError,
  splitMetaRecords,
  writePogrebCache,
  type CacheBundle,
} from '../../src/serve-cache/cache.js';
import { DB_META, INDEX_META, PogrebReader } from '../../src/serve-cache/pogreb.js';
import { decodeBundle, encodeBundle } from '../../src/api-contract/messages.js';
import { decodeStruct, encodeStruct } from '../../src/protobuf/struct.js';
import { decodePackageIndex, encodePackageIndex } from '../../src/serve-cache/packages-json.js';
import { packageIndexFromModel } from '../../src/catalog-queries/package-index.js';
import { decodeGob } from '../../src/serve-cache/gob.js';

if (!haveCorpus()) throw new Error('the serve cache suite needs the corpus');

const work = mkdtempSync(path.join(tmpdir(), 'opm-serve-cache-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Two packages of the community catalog, copied into the work folder (never into the project). */
function communitySubset(): string {
  const dir = path.join(work, 'community-subset');
  for (const p of ['infinispan', 'hive-operator']) {
    cpSync(corpusPath('community-catalog-v4.21', p), path.join(dir, p), { recursive: true });
  }
  return dir;
}

const catalogs: [string, () => string][] = [
  ['fixture basic', () => path.resolve('testdata/serve-cache/basic/catalog')],
  [
    'fixture folded-keys (ſchema, pac\u212aage)',
    () => path.resolve('testdata/serve-cache/folded-keys/catalog'),
  ],
  ['opm-testdata foo', () => corpusPath('opm-testdata/foo-index-v0.2.0-declcfg')],
  ['opm-testdata index-declcfgs/latest', () => corpusPath('opm-testdata/index-declcfgs/latest')],
  ['cool-catalog (everything ignored)', () => corpusPath('cool-catalog')],
  ['community-catalog-v4.21 subset', communitySubset],
  // 874 keys, 50 MB of values, overflow chains in the index Go opm writes.
  ['community-catalog-v4.21 whole', () => corpusPath('community-catalog-v4.21')],
];

let serial = 0;
/** The fatal message of a Go opm run (logrus quotes it as strconv.Quote does). */
function fatalOf(stderr: string): string | undefined {
  const m = /level=fatal msg=("(?:[^"\\]|\\.)*")/.exec(stderr);
  return m === null ? undefined : (JSON.parse(m[1] as string) as string);
}

function goCacheOnly(
  catalog: string,
  cacheDir: string,
  extra: string[] = [],
): { code: number; stderr: string } {
  const r = spawnSync(
    reference,
    [
      'serve',
      catalog,
      '--cache-dir',
      cacheDir,
      '--cache-only',
      ...extra,
      '--pprof-addr',
      '',
      '-t',
      path.join(work, 'termination-log'),
    ],
    { encoding: 'utf8' },
  );
  return { code: r.status ?? -1, stderr: r.stderr };
}

/**
 * Start the Go opm serving `catalog` from `cacheDir` with the integrity check enforced (the
 * default with --cache-dir) and wait until it serves or fails; SIGTERM it when it serves.
 */
async function goServe(
  catalog: string,
  cacheDir: string,
): Promise<{ served: boolean; stderr: string; code: number | null }> {
  const port = await freePort();
  const child = spawn(
    reference,
    [
      'serve',
      catalog,
      '--cache-dir',
      cacheDir,
      '-p',
      String(port),
      '--pprof-addr',
      '',
      '-t',
      path.join(work, 'termination-log'),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  let served = false;
  child.stderr.setEncoding('utf8');
  return new Promise((resolve) => {
    child.stderr.on('data', (d: string) => {
      stderr += d;
      if (!served && stderr.includes('msg="serving registry"')) {
        served = true;
        void answering(port).finally(() => child.kill('SIGTERM'));
      }
    });
    child.on('close', (code) => resolve({ served, stderr, code }));
  });
}

describe.each(catalogs)('%s', (_name, catalogOf) => {
  const id = ++serial;
  const goDir = path.join(work, `go-${id}`);
  let catalog = '';
  let built = { code: -1, stderr: '' };
  beforeAll(() => {
    catalog = catalogOf();
    built = goCacheOnly(catalog, goDir);
  });

  it('Go opm builds the cache', () => {
    expect(built.stderr).not.toContain('level=fatal');
    expect(built.code).toBe(0);
  });

  it('every key of the Go cache reads back, and re-encodes byte for byte', () => {
    const db = PogrebReader.open(path.join(goDir, 'pogreb.v1/db'));
    try {
      const entries = [...db.entries()];
      expect(entries.length).toBe(db.count);
      const index = decodePackageIndex(db.get(Buffer.from('packages.json')) as Buffer);
      let bundles = 0;
      for (const [k, v] of entries) {
        // Buffer.equals: a deep toEqual of megabyte values takes minutes.
        expect(db.get(k)?.equals(v)).toBe(true);
        const key = k.toString('utf8');
        if (key === 'packages.json') expect(Buffer.from(encodePackageIndex(index)).equals(v)).toBe(true);
        else if (key.startsWith('bundles/')) {
          bundles++;
          const [, pkg, ch, name] = key.split('/');
          const b = decodeBundle(v);
          expect([b.packageName, b.channelName, b.csvName]).toEqual([pkg, ch, name]);
          expect(
            index
              .get(pkg as string)
              ?.channels.get(ch as string)
              ?.bundles.has(name as string),
          ).toBe(true);
          expect(Buffer.from(encodeBundle(b)).equals(v)).toBe(true);
        } else {
          expect(key.startsWith('metas/')).toBe(true);
          const records = splitMetaRecords(v);
          expect(records.length).toBeGreaterThan(0);
          for (const r of records) expect(Buffer.from(encodeStruct(decodeStruct(r))).equals(r)).toBe(true);
        }
      }
      const inIndex = [...index.values()].flatMap((p) => [...p.channels.values()].map((c) => c.bundles.size));
      expect(bundles).toBe(inIndex.reduce((a, b) => a + b, 0));
    } finally {
      db.close();
    }
  });

  it('our digest of the Go cache equals the one it stores, and the integrity check passes', async () => {
    const cache = openServeCache(goDir);
    try {
      expect(cache.detection).toEqual({ backend: 'pogreb.v1', existing: true });
      const stored = cache.storedDigest();
      expect(stored).toMatch(/^[0-9a-f]{16}$/);
      expect(await cache.computeDigest(catalog)).toBe(stored);
      // No fingerprint of ours in a Go cache: the full check decides.
      expect(await cache.checkIntegrity(catalog)).toBe('digest');
    } finally {
      cache.close();
    }
  });

  it('our package index of the catalog is the one Go opm stores', async () => {
    const { cfg } = await loadCatalogDir(catalog);
    const ours = encodePackageIndex(packageIndexFromModel(convertToModelOrThrow(cfg)));
    const db = PogrebReader.open(path.join(goDir, 'pogreb.v1/db'));
    try {
      expect(Buffer.from(ours).toString('utf8')).toBe(db.get(Buffer.from('packages.json'))?.toString('utf8'));
    } finally {
      db.close();
    }
  });

  it('Go opm serves a cache written here, integrity enforced', async () => {
    const go = openServeCache(goDir);
    const bundles: CacheBundle[] = [];
    for (const p of go.packageIndex().values())
      for (const c of p.channels.values())
        for (const b of c.bundles.values()) {
          const bytes = go.bundle(p.name, c.name, b.name);
          if (bytes === undefined) throw new Error(`missing bundle ${b.name}`);
          bundles.push({ packageName: p.name, channelName: c.name, bundleName: b.name, bundle: bytes });
        }
    const { cfg } = await loadCatalogDir(catalog);
    const seed = Number(
      decodeGob(readFileSync(path.join(goDir, 'pogreb.v1/db', DB_META)).subarray(512)).HashSeed ?? 0n,
    );
    const oursDir = path.join(work, `ours-${id}`);
    const digest = await writePogrebCache(
      oursDir,
      {
        packageIndex: packageIndexFromModel(convertToModelOrThrow(cfg)),
        bundles,
        blobs: catalogBlobs(catalog),
      },
      { hashSeed: seed },
    );
    // The same content, so the same digest (custom blobs of this fixture sit in one file, so
    // their order does not depend on Go's concurrent walk).
    expect(digest).toBe(go.storedDigest());
    go.close();
    // With Go's hash seed, the database metadata is Go's byte for byte.
    const gobBody = (dir: string, f: string): Buffer => readFileSync(path.join(dir, 'pogreb.v1/db', f));
    expect(gobBody(oursDir, DB_META)).toEqual(gobBody(goDir, DB_META));
    const goIndexMeta = decodeGob(gobBody(goDir, INDEX_META).subarray(512));
    if (goIndexMeta.FreeOverflowBuckets === undefined)
      expect(gobBody(oursDir, INDEX_META)).toEqual(gobBody(goDir, INDEX_META));
    const modes = Object.fromEntries(
      [
        'pogreb.v1/digest',
        'pogreb.v1/opm-ts.sums',
        'pogreb.v1/db',
        ...readdirSync(path.join(oursDir, 'pogreb.v1/db')).map((f) => `pogreb.v1/db/${f}`),
      ].map((f) => [f, (statSync(path.join(oursDir, f)).mode & 0o777).toString(8)]),
    );
    expect(modes).toEqual({
      'pogreb.v1/digest': '660',
      'pogreb.v1/opm-ts.sums': '660',
      'pogreb.v1/db': '770',
      'pogreb.v1/db/00000-1.psg': '660',
      'pogreb.v1/db/00000-1.psg.pmt': '660',
      'pogreb.v1/db/db.pmt': '660',
      'pogreb.v1/db/index.pmt': '660',
      'pogreb.v1/db/main.pix': '660',
      'pogreb.v1/db/overflow.pix': '660',
    });
    // Our fingerprint beside Go's files: the Go opm still checks the digest, and serves.
    const run = await goServe(catalog, oursDir);
    expect(fatalOf(run.stderr)).toBeUndefined();
    expect(run.stderr).toContain('msg="found existing cache contents" backend=pogreb.v1');
    expect(run.served).toBe(true);
    expect(run.code).toBe(0);
    const after = openServeCache(oursDir);
    try {
      expect(await after.checkIntegrity(catalog)).toBe('fingerprint');
    } finally {
      after.close();
    }
    // A Go rebuild of the cache (its catalog changed) empties pogreb.v1/: the fingerprint goes
    // with it, and opm-ts checks the new cache in full.
    const changed = path.join(work, `changed-${id}`);
    cpSync(catalog, changed, { recursive: true });
    writeFileSync(path.join(changed, 'more.json'), '{"schema": "acme.extra", "package": "x", "name": "y"}\n');
    expect(goCacheOnly(changed, oursDir).code).toBe(0);
    expect(existsSync(path.join(oursDir, 'pogreb.v1/opm-ts.sums'))).toBe(false);
    const rebuilt = openServeCache(oursDir);
    try {
      expect(await rebuilt.checkIntegrity(changed)).toBe('digest');
    } finally {
      rebuilt.close();
    }
  });
});

describe('keys that fold to schema and package (testdata/serve-cache/folded-keys)', () => {
  const catalog = path.resolve('testdata/serve-cache/folded-keys/catalog');

  it('opm-ts builds the cache with serve --cache-only, and the Go opm accepts it', async () => {
    const dir = path.join(work, 'folded-ours');
    const built = await runOpm(['serve', catalog, '--cache-dir', dir, '--cache-only']);
    expect(built.stderr).not.toContain('level=fatal');
    expect(built.code).toBe(0);
    const enforced = goCacheOnly(catalog, dir, ['--cache-enforce-integrity']);
    expect(fatalOf(enforced.stderr)).toBeUndefined();
    expect(enforced.code).toBe(0);
    const run = await goServe(catalog, dir);
    expect(fatalOf(run.stderr)).toBeUndefined();
    expect(run.served).toBe(true);
  });

  it('the Go opm builds it too, and opm-ts accepts it, integrity enforced', async () => {
    const dir = path.join(work, 'folded-go');
    expect(goCacheOnly(catalog, dir).code).toBe(0);
    const checked = await runOpm([
      'serve',
      catalog,
      '--cache-dir',
      dir,
      '--cache-only',
      '--cache-enforce-integrity',
    ]);
    expect(checked.stderr).not.toContain('level=fatal');
    expect(checked.code).toBe(0);
  });
});

describe('failures read as Go opm reads them', () => {
  const catalog = path.resolve('testdata/serve-cache/basic/catalog');

  it('a changed catalog: cache requires rebuild, with both digests', async () => {
    const changed = path.join(work, 'changed');
    cpSync(catalog, changed, { recursive: true });
    const file = path.join(changed, 'etcd/catalog.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('etcd-bundle:v0.9.2', 'etcd-bundle:v0.9.3'));
    const dir = path.join(work, 'stale');
    expect(goCacheOnly(catalog, dir).code).toBe(0);
    const go = await goServe(changed, dir);
    expect(go.served).toBe(false);
    expect(go.code).toBe(1);
    const cache = openServeCache(dir);
    const err = await cache.checkIntegrity(changed).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ServeCacheError);
    const message = (err as Error).message;
    expect(message).toMatch(
      /^cache requires rebuild: cache reports digest as "[0-9a-f]{16}", but computed digest is "[0-9a-f]{16}"$/,
    );
    expect(`integrity check failed: ${message}`).toBe(fatalOf(go.stderr));
  });

  it('a stale cache rebuilt by opm-ts serving without the flag is served by the Go opm, enforced', async () => {
    const changed = path.join(work, 'changed-served');
    cpSync(catalog, changed, { recursive: true });
    const file = path.join(changed, 'etcd/catalog.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('etcd-bundle:v0.9.2', 'etcd-bundle:v0.9.4'));
    const dir = path.join(work, 'stale-served');
    expect(goCacheOnly(catalog, dir).code).toBe(0);
    const lines: string[] = [];
    const stop = new AbortController();
    await serve({
      configDir: changed,
      cacheDir: dir,
      port: '0',
      log: (level, msg) => lines.push(`${level} ${msg}`),
      onListening: () => stop.abort(),
      signal: stop.signal,
    });
    expect(lines.filter((l) => l.startsWith('warning'))).toEqual([
      'warning cache does not match the catalog: rebuilding it from the catalog',
    ]);
    const go = await goServe(changed, dir);
    expect(fatalOf(go.stderr)).toBeUndefined();
    expect(go.served).toBe(true);
  });

  it('a comment added to a catalog file changes nothing', async () => {
    const commented = path.join(work, 'commented');
    cpSync(catalog, commented, { recursive: true });
    const file = path.join(commented, 'etcd/catalog.yaml');
    writeFileSync(file, readFileSync(file, 'utf8') + '# a trailing comment\n');
    const dir = path.join(work, 'commented-cache');
    expect(goCacheOnly(catalog, dir).code).toBe(0);
    await openServeCache(dir).checkIntegrity(commented);
    expect((await goServe(commented, dir)).served).toBe(true);
  });

  it('unexpected contents', () => {
    const dir = path.join(work, 'junk');
    mkdirSync(path.join(dir, 'sub'), { recursive: true });
    writeFileSync(path.join(dir, 'junk'), '');
    writeFileSync(path.join(dir, 'digest'), '');
    const go = goCacheOnly(catalog, dir);
    expect(go.code).toBe(1);
    let message = '';
    try {
      openServeCache(dir);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toBe('cache directory has unexpected contents: digest,junk,sub');
    expect(message).toBe(fatalOf(go.stderr));
  });

  it('a database left open by its writer is recovered from its segments, by both', async () => {
    const dir = path.join(work, 'unclosed');
    expect(goCacheOnly(catalog, dir).code).toBe(0);
    // As after a crash before pogreb's Close: a lock file, no index metadata.
    writeFileSync(path.join(dir, 'pogreb.v1/db/lock'), '');
    rmSync(path.join(dir, 'pogreb.v1/db', INDEX_META));
    rmSync(path.join(dir, 'pogreb.v1/db/main.pix'));
    const cache = openServeCache(dir);
    await cache.checkIntegrity(catalog);
    cache.close();
    const go = await goServe(catalog, dir);
    expect(fatalOf(go.stderr)).toBeUndefined();
    expect(go.served).toBe(true);
  });

  it('a cache directory that is a file', () => {
    const file = path.join(work, 'a-file');
    writeFileSync(file, '');
    const go = goCacheOnly(catalog, file);
    expect(go.code).toBe(1);
    let message = '';
    try {
      openServeCache(file);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toBe(fatalOf(go.stderr));
  });

  it('a missing digest', async () => {
    const dir = path.join(work, 'no-digest');
    expect(goCacheOnly(catalog, dir).code).toBe(0);
    rmSync(path.join(dir, 'pogreb.v1/digest'));
    const go = await goServe(catalog, dir);
    expect(go.code).toBe(1);
    const cache = openServeCache(dir);
    const err = await cache.checkIntegrity(catalog).then(
      () => undefined,
      (e: unknown) => e,
    );
    const message = (err as Error).message;
    expect(message).toBe(
      `read existing cache digest: open ${dir}/pogreb.v1/digest: no such file or directory`,
    );
    expect(`integrity check failed: ${message}`).toBe(fatalOf(go.stderr));
  });

  it('an empty cache directory, integrity enforced', async () => {
    const dir = path.join(work, 'empty');
    mkdirSync(dir);
    const cache = openServeCache(dir);
    expect(cache.detection).toEqual({ backend: 'pogreb.v1', existing: false });
    const err = await cache.checkIntegrity(catalog).then(
      () => undefined,
      (e: unknown) => e,
    );
    const go = await goServe(catalog, dir);
    expect(`integrity check failed: ${(err as Error).message}`).toBe(fatalOf(go.stderr));
  });
});
