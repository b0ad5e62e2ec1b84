import {
  appendFileSync,
  cpSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCatalogDir } from '../declcfg/load.js';
import { convertToModelOrThrow } from '../model/convert.js';
import { emptyBundle, encodeBundle } from '../api-contract/messages.js';
import { catalogBlobs, openServeCache, writePogrebCache } from './cache.js';
import { walkMetaBlobs } from './digest.js';
import { packageIndexFromModel } from '../catalog-queries/package-index.js';
import { FINGERPRINT_FILE, FINGERPRINT_VERSION, readFingerprint } from './fingerprint.js';
import { loadDiskCache } from './load-cache.js';

const FIXTURE = path.resolve('testdata/serve-cache/basic/catalog');
const work = mkdtempSync(path.join(tmpdir(), 'opm-serve-fingerprint-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let n = 0;
const fresh = (): string => path.join(work, `c-${++n}`);

/** A copy of the fixture catalog and a cache built from it by opm-ts (with its fingerprint). */
async function built(): Promise<{ catalog: string; cacheDir: string; digest: string }> {
  const catalog = fresh();
  cpSync(FIXTURE, catalog, { recursive: true });
  const { cfg } = await loadCatalogDir(catalog);
  const index = packageIndexFromModel(convertToModelOrThrow(cfg));
  const bundles = [...index.values()].flatMap((p) =>
    [...p.channels.values()].flatMap((c) =>
      [...c.bundles.values()].map((b) => ({
        packageName: p.name,
        channelName: c.name,
        bundleName: b.name,
        bundle: encodeBundle({ ...emptyBundle(), csvName: b.name, packageName: p.name }),
      })),
    ),
  );
  const cacheDir = fresh();
  const digest = await writePogrebCache(cacheDir, {
    packageIndex: index,
    bundles,
    blobs: catalogBlobs(catalog),
  });
  return { catalog, cacheDir, digest };
}

/** How a check ended: the way it passed, or the error's text. */
async function outcome(cacheDir: string, catalog: string, env?: Record<string, string>): Promise<string> {
  const cache = openServeCache(cacheDir);
  try {
    return `passed: ${await cache.checkIntegrity(catalog, env === undefined ? {} : { env })}`;
  } catch (err) {
    return `failed: ${(err as Error).message}`;
  } finally {
    cache.close();
  }
}

interface Change {
  catalog?: (catalog: string) => void;
  cache?: (cacheDir: string) => void;
  env?: Record<string, string>;
}

/**
 * A cache, a change made to it or its catalog, and the check's outcome beside the outcome of opm's
 * full check of the same change (a copy of the cache without its fingerprint, changed alike).
 */
async function afterChange(change: Change): Promise<{ withFingerprint: string; fullCheck: string }> {
  const c = await built();
  const bare = fresh();
  cpSync(c.cacheDir, bare, { recursive: true });
  unlinkSync(path.join(bare, 'pogreb.v1', FINGERPRINT_FILE));
  change.catalog?.(c.catalog);
  change.cache?.(c.cacheDir);
  change.cache?.(bare);
  const fullCheck = await outcome(bare, c.catalog, change.env);
  return {
    withFingerprint: await outcome(c.cacheDir, c.catalog, change.env),
    // opm's texts name the cache's files: the same names in both.
    fullCheck: fullCheck.replaceAll(bare, c.cacheDir),
  };
}

const sha = (p: string): string => createHash('sha256').update(readFileSync(p)).digest('hex');

describe('the fingerprint written with a cache', () => {
  it('names the digest and every walked catalog file and database file, mode 0660', async () => {
    const { catalog, cacheDir, digest } = await built();
    const pogrebDir = path.join(cacheDir, 'pogreb.v1');
    const file = path.join(pogrebDir, FINGERPRINT_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o660);
    const fp = readFingerprint(pogrebDir);
    expect(fp?.version).toBe(FINGERPRINT_VERSION);
    expect(fp?.digest).toBe(digest);
    expect(readFileSync(path.join(pogrebDir, 'digest'), 'utf8')).toBe(digest);
    // The files the walk reads (.indexignore honoured: README.md and ignored/ are not there).
    const walked = new Set<string>();
    for await (const b of walkMetaBlobs(catalog)) walked.add(b.file);
    expect(fp?.catalog.map((f) => f.path)).toEqual([...walked]);
    expect(fp?.catalog.map((f) => f.size)).toEqual(
      [...walked].map((f) => statSync(path.join(catalog, f)).size),
    );
    expect(fp?.catalog.map((f) => f.sha256)).toEqual([...walked].map((f) => sha(path.join(catalog, f))));
    expect(fp?.db.map((f) => f.name)).toContain('00000-1.psg');
    for (const f of fp?.db ?? []) {
      expect(f.size).toBe(statSync(path.join(pogrebDir, 'db', f.name)).size);
      expect(f.sha256).toBe(sha(path.join(pogrebDir, 'db', f.name)));
    }
  });

  it('is not written for blobs that do not come from catalogBlobs (their bytes are unknown)', async () => {
    const dir = fresh();
    const blobs = [];
    for await (const b of walkMetaBlobs(FIXTURE)) blobs.push(b);
    await writePogrebCache(dir, { packageIndex: new Map(), bundles: [], blobs });
    expect(readFingerprint(path.join(dir, 'pogreb.v1'))).toBeUndefined();
    expect(await outcome(dir, FIXTURE)).toBe('passed: digest');
  });
});

describe('the integrity check with a fingerprint', () => {
  it('passes by fingerprint when nothing changed, without the digest recomputed', async () => {
    const { catalog, cacheDir } = await built();
    expect(await outcome(cacheDir, catalog)).toBe('passed: fingerprint');
    // The full check of the same cache agrees.
    const cache = openServeCache(cacheDir);
    expect(await cache.computeDigest(catalog)).toBe(cache.storedDigest());
    cache.close();
  });

  it('a catalog moved elsewhere still passes by fingerprint (paths are relative)', async () => {
    const { catalog, cacheDir } = await built();
    const moved = fresh();
    renameSync(catalog, moved);
    expect(await outcome(cacheDir, moved)).toBe('passed: fingerprint');
  });

  it('logs that it took the fingerprint when serving', async () => {
    const { catalog, cacheDir } = await built();
    const lines: string[] = [];
    const disk = await loadDiskCache(catalog, {
      cacheDir,
      enforceIntegrity: true,
      log: (level, msg) => lines.push(`${level} ${msg}`),
    });
    await disk.close();
    expect(lines).toEqual(['info found existing cache contents', 'debug integrity checked by fingerprint']);
  });

  const cases: [string, Change, RegExp][] = [
    [
      'one byte of a catalog file changed',
      {
        catalog: (cat) => {
          const f = path.join(cat, 'etcd/extras.json');
          writeFileSync(f, readFileSync(f, 'utf8').replace('"n": 1.5', '"n": 1.6'));
        },
      },
      /^failed: cache requires rebuild: /,
    ],
    [
      'a catalog file added',
      {
        catalog: (cat) =>
          writeFileSync(
            path.join(cat, 'etcd/more.json'),
            '{"schema": "my.custom", "package": "etcd", "name": "d"}\n',
          ),
      },
      /^failed: cache requires rebuild: /,
    ],
    [
      'a catalog file removed',
      { catalog: (cat) => unlinkSync(path.join(cat, 'etcd/extras.json')) },
      /^failed: cache requires rebuild: /,
    ],
    [
      'a catalog file renamed, its place in the walk kept (the same blobs in the same order)',
      {
        catalog: (cat) => renameSync(path.join(cat, 'etcd/extras.json'), path.join(cat, 'etcd/extras2.json')),
      },
      /^passed: digest$/,
    ],
    [
      'a catalog file renamed to an earlier place in the walk',
      {
        catalog: (cat) =>
          renameSync(path.join(cat, 'etcd/extras.json'), path.join(cat, 'etcd/a-extras.json')),
      },
      /^failed: cache requires rebuild: /,
    ],
    [
      '.indexignore changed to leave out a file',
      { catalog: (cat) => appendFileSync(path.join(cat, '.indexignore'), 'extras.json\n') },
      /^failed: cache requires rebuild: /,
    ],
    [
      '.indexignore changed to take in a file that does not parse',
      { catalog: (cat) => writeFileSync(path.join(cat, '.indexignore'), '*.md\n') },
      /^failed: compute digest: /,
    ],
    [
      'a comment added to a YAML file (opm counts values, not text)',
      { catalog: (cat) => appendFileSync(path.join(cat, 'etcd/catalog.yaml'), '# a note\n') },
      /^passed: digest$/,
    ],
    [
      'a database file changed',
      {
        cache: (dir) => {
          const f = path.join(dir, 'pogreb.v1/db/00000-1.psg');
          const b = readFileSync(f);
          // A byte of a stored value: the last `etcd` of the segment made `etce`.
          const at = b.lastIndexOf('etcd');
          b[at + 3] = 'e'.charCodeAt(0);
          writeFileSync(f, b);
        },
      },
      /^failed: /,
    ],
    [
      'the digest file changed',
      { cache: (dir) => writeFileSync(path.join(dir, 'pogreb.v1/digest'), '0123456789abcdef') },
      /^failed: cache requires rebuild: cache reports digest as "0123456789abcdef"/,
    ],
    [
      'the digest file removed',
      { cache: (dir) => unlinkSync(path.join(dir, 'pogreb.v1/digest')) },
      /^failed: read existing cache digest: open .*\/pogreb\.v1\/digest: no such file or directory$/,
    ],
    [
      'a file is read in parts by the full check (OPM_MAX_BLOB_BYTES below its size)',
      { env: { OPM_MAX_BLOB_BYTES: '64' } },
      /^failed: compute digest: .*too large/,
    ],
    [
      'a file added to the database folder',
      { cache: (dir) => writeFileSync(path.join(dir, 'pogreb.v1/db/extra'), '') },
      /^passed: digest$/,
    ],
  ];
  for (const [what, change, expected] of cases) {
    it(`falls back to opm's full check when ${what}`, async () => {
      const { withFingerprint, fullCheck } = await afterChange(change);
      expect(withFingerprint).toMatch(expected);
      expect(withFingerprint).toBe(fullCheck);
    });
  }

  const fingerprintChanges: [string, (file: string) => void][] = [
    ['corrupt', (f) => writeFileSync(f, '{"version": 1, "dige')],
    [
      'of another version',
      (f) =>
        writeFileSync(f, readFileSync(f, 'utf8').replace(`"version":${FINGERPRINT_VERSION}`, '"version":99')),
    ],
    [
      'naming another digest',
      (f) =>
        writeFileSync(
          f,
          readFileSync(f, 'utf8').replace(/"digest":"[0-9a-f]+"/, '"digest":"0000000000000000"'),
        ),
    ],
    [
      'naming other sums',
      (f) =>
        writeFileSync(
          f,
          readFileSync(f, 'utf8').replace(
            /"sha256":"([0-9a-f])/,
            (_, c: string) => `"sha256":"${c === '0' ? '1' : '0'}`,
          ),
        ),
    ],
    ['empty', (f) => writeFileSync(f, '')],
  ];
  for (const [what, change] of fingerprintChanges) {
    it(`a fingerprint ${what} leaves the decision to the full check`, async () => {
      const { catalog, cacheDir } = await built();
      change(path.join(cacheDir, 'pogreb.v1', FINGERPRINT_FILE));
      expect(await outcome(cacheDir, catalog)).toBe('passed: digest');
    });
  }
});
