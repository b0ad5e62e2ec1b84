// needs-build: it starts `bin/opm.js serve --http-addr` and compares its catalog API with operator-registry.
// The catalog API against what catalogd stores: test/serve/go-walk-metas (built here with Go, on
// operator-registry v1.73.0's declcfg.WalkMetasFS, as catalogd walks a catalog) writes each
// catalog's blobs and the schema, package and name declcfg.Meta reads from each. `/all` must be
// those blobs byte for byte, and every `/metas` query the blobs whose Meta fields match, in order.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { corpusDir, corpusPath, haveCorpus, projectRoot } from '../corpus.js';
import { freePort, startServe } from '../serve/client.js';

if (!haveCorpus()) throw new Error('the differential suite needs the corpus');

const work = mkdtempSync(path.join(tmpdir(), 'opm-serve-http-ref-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const walker = path.join(work, 'go-walk-metas');
const built = spawnSync('go', ['build', '-buildvcs=false', '-o', walker, '.'], {
  cwd: path.join(projectRoot(), 'test/serve/go-walk-metas'),
  encoding: 'utf8',
  timeout: 600_000,
});
if (built.status !== 0) throw new Error(`building test/serve/go-walk-metas failed:\n${built.stderr}`);

interface Fields {
  schema: string;
  package: string;
  name: string;
}

/** operator-registry's blobs of a catalog and the Meta fields of each. */
function walk(catalog: string): { blobs: string[]; fields: Fields[] } {
  const fieldsFile = path.join(work, 'fields.jsonl');
  const r = spawnSync(walker, [catalog, fieldsFile], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`go-walk-metas ${catalog}: ${r.stderr}`);
  const blobs = r.stdout.split(/(?<=\n)/).filter((b) => b !== '');
  const fields = readFileSync(fieldsFile, 'utf8')
    .trimEnd()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Fields);
  return { blobs, fields };
}

/** The queries asked of a catalog: each schema, each package, and combinations per package. */
function queries(fields: Fields[]): Partial<Fields>[] {
  const schemas = [...new Set(fields.map((f) => f.schema))].filter((s) => s !== '');
  const packages = [...new Set(fields.map((f) => f.package))].filter((p) => p !== '');
  const out: Partial<Fields>[] = [
    ...schemas.map((schema) => ({ schema })),
    ...packages.map((p) => ({ package: p })),
  ];
  for (const p of packages) {
    out.push({ schema: 'olm.package', name: p }, { schema: 'olm.bundle', package: p });
    const first = fields.find((f) => f.package === p && f.schema === 'olm.bundle');
    if (first !== undefined) out.push({ package: p, name: first.name }, { name: first.name });
  }
  out.push({ schema: 'olm.channel', name: 'stable' }, { name: 'no-such-name' });
  return out;
}

const catalogs = [
  'testdata/serve-http/yaml-and-json/catalog',
  'testdata/serve/mixed/catalog',
  ...['foo-index-v0.2.0-declcfg', 'index-declcfgs/latest', 'index-declcfgs/exp-headsonly', 'list-index'].map(
    (c) => corpusPath(path.join('opm-testdata', c)),
  ),
  corpusPath('community-catalog-v4.21'),
];

/** A catalog's name in the test titles: its path in the project or in the corpus, wherever they are. */
function label(catalog: string): string {
  if (corpusDir !== undefined && catalog.startsWith(corpusDir))
    return `corpus/${path.relative(corpusDir, catalog)}`;
  return path.relative(projectRoot(), catalog);
}

describe('opm serve --http-addr against operator-registry', () => {
  for (const catalog of catalogs) {
    it(`${label(catalog)}: /all is the walked blobs, /metas the blobs their Meta matches`, async () => {
      const { blobs, fields } = walk(catalog);
      expect(fields.length).toBe(blobs.length);
      const httpPort = await freePort();
      const s = await startServe(catalog, {
        extra: ['--http-addr', `127.0.0.1:${httpPort}`, '--catalog-name', 'ref'],
        timeoutMs: 110_000,
      });
      try {
        const base = `http://127.0.0.1:${httpPort}/catalogs/ref/api/v1`;
        const all = await fetch(`${base}/all`, { headers: { 'accept-encoding': 'identity' } });
        expect(Buffer.from(await all.arrayBuffer()).toString()).toBe(blobs.join(''));
        for (const q of queries(fields)) {
          const want = blobs
            .filter((_, i) => {
              const f = fields[i]!;
              if (f.schema === '') return false;
              return (['schema', 'package', 'name'] as const).every(
                (k) => q[k] === undefined || f[k] === q[k],
              );
            })
            .join('');
          const got = await (await fetch(`${base}/metas?${new URLSearchParams(q).toString()}`)).text();
          expect({ q, got }).toEqual({ q, got: want });
        }
      } finally {
        expect(await s.stop()).toBe(0);
      }
    });
  }
});
