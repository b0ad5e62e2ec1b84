/**
 * Deferred payloads (render of large local catalogs): the loader leaves the olm.bundle.object
 * payloads on disk, the writers read them back from the files as each bundle is written, and the
 * output is byte for byte what a render that held them writes.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { render } from '../../src/action/render/render.js';
import { loadCatalogDir } from '../../src/declcfg/load.js';
import { writeCatalogDir } from '../../src/declcfg/write-fs.js';
import { writeJsonBytes, writeYaml } from '../../src/declcfg/write.js';

const dir = mkdtempSync(path.join(tmpdir(), 'opm-deferred-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function payload(seed: number): string {
  return Buffer.alloc(2000 + seed * 7, `object ${seed}`).toString('base64');
}

function bundleBlob(pkg: string, version: string, seed: number): object {
  return {
    schema: 'olm.bundle',
    name: `${pkg}.v${version}`,
    package: pkg,
    image: `quay.io/x/${pkg}:${version}`,
    properties: [
      { type: 'olm.bundle.object', value: { data: payload(seed) } },
      { type: 'olm.package', value: { packageName: pkg, version } },
      { type: 'olm.csv.metadata', value: { description: `about ${pkg} ${seed}`, keywords: ['a', 'b'] } },
      { type: 'olm.bundle.object', value: { data: payload(seed + 100) } },
      { type: 'olm.gvk', value: { group: 'x.io', kind: 'X', version: 'v1' } },
    ],
    relatedImages: [
      { name: 'z', image: `quay.io/x/z:${seed}` },
      { name: 'a', image: `quay.io/x/a:${seed}` },
    ],
  };
}

function writeCatalog(root: string): void {
  mkdirSync(path.join(root, 'mixed'), { recursive: true });
  mkdirSync(path.join(root, 'yaml'), { recursive: true });
  // Two packages interleaved in one JSON file, their bundles out of name order.
  const mixed = [
    { schema: 'olm.package', name: 'b-pkg', defaultChannel: 'stable' },
    bundleBlob('b-pkg', '2.0.0', 1),
    bundleBlob('a-pkg', '1.0.0', 2),
    { schema: 'olm.package', name: 'a-pkg', defaultChannel: 'stable' },
    bundleBlob('b-pkg', '1.0.0', 3),
    bundleBlob('a-pkg', '0.1.0', 4),
    { schema: 'olm.bundle', name: 'no-objects.v1', package: 'a-pkg', image: 'i', properties: [] },
  ];
  writeFileSync(
    path.join(root, 'mixed', 'catalog.json'),
    mixed.map((b) => JSON.stringify(b, null, 2)).join('\n'),
  );
  // A YAML file (written as JSON-style flow YAML, which the YAML reader takes).
  const yaml = [bundleBlob('c-pkg', '1.0.0', 5), bundleBlob('c-pkg', '1.1.0', 6)]
    .map((b) => '---\n' + JSON.stringify(b, null, 1) + '\n')
    .join('');
  writeFileSync(path.join(root, 'yaml', 'catalog.yaml'), yaml);
}

const catalog = path.join(dir, 'catalog');
writeCatalog(catalog);

function jsonText(chunks: Iterable<Uint8Array>): string {
  const parts: string[] = [];
  for (const c of chunks) parts.push(Buffer.from(c).toString('utf8'));
  return parts.join('');
}

/** Defer whatever the size. */
const always = { minBytes: 0 };

async function outputs(refs: string[], defer?: typeof always): Promise<{ json: string; yaml: string }> {
  const json = jsonText(writeJsonBytes(await render({ refs, ...(defer ? { deferPayloads: defer } : {}) })));
  // Each write reads the payloads back once, so the YAML gets a render of its own.
  const yaml = [...writeYaml(await render({ refs, ...(defer ? { deferPayloads: defer } : {}) }))].join('');
  return { json, yaml };
}

describe('deferred payloads', () => {
  it('leaves payloads out of the loaded catalog and writes them back byte for byte', async () => {
    const cfg = await render({ refs: [catalog], deferPayloads: always });
    expect(cfg.payloads).toBeDefined();
    const elided = cfg.bundles.filter((b) => b.payloadsElided === true).map((b) => b.name);
    expect(elided.sort()).toEqual([
      'a-pkg.v0.1.0',
      'a-pkg.v1.0.0',
      'b-pkg.v1.0.0',
      'b-pkg.v2.0.0',
      'c-pkg.v1.0.0',
      'c-pkg.v1.1.0',
    ]);
    const held = await outputs([catalog]);
    expect(held.json).toContain(payload(3));
    expect(await outputs([catalog], always)).toEqual(held);
  });

  it('writes a directory given twice', async () => {
    const held = await outputs([catalog, catalog]);
    expect(await outputs([catalog, catalog], always)).toEqual(held);
  });

  it('holds small catalogs and catalogs being migrated as before', async () => {
    const small = await render({ refs: [catalog], deferPayloads: true });
    expect(small.bundles.some((b) => b.payloadsElided === true)).toBe(false);
    expect(small.payloads).toBeUndefined();
    const migrated = await render({ refs: [catalog], deferPayloads: always, migrateLevel: 'all' });
    expect(migrated.bundles.some((b) => b.payloadsElided === true)).toBe(false);
  });

  it('gives the payloads back through the loaded config, in file order', async () => {
    const held = (await loadCatalogDir(catalog)).cfg;
    const deferred = (await loadCatalogDir(catalog, { deferPayloads: always })).cfg;
    const payloads = deferred.payloads;
    if (payloads === undefined) throw new Error('no deferred payloads');
    expect(deferred.bundles.map((b) => payloads.restore(b))).toEqual(held.bundles);
  });

  it('writes a catalog directory with its payloads read back', async () => {
    const out = path.join(dir, 'written');
    const deferred = (await loadCatalogDir(catalog, { deferPayloads: always })).cfg;
    await writeCatalogDir(deferred, path.join(out, 'deferred'), 'json');
    await writeCatalogDir((await loadCatalogDir(catalog)).cfg, path.join(out, 'held'), 'json');
    const read = (which: string): string =>
      readFileSync(path.join(out, which, 'b-pkg', 'catalog.json'), 'utf8');
    expect(read('deferred')).toContain(payload(3));
    expect(read('deferred')).toEqual(read('held'));
  });

  it('fails when a file no longer holds a bundle where it was', async () => {
    const copy = path.join(dir, 'changing');
    writeCatalog(copy);
    const cfg = await render({ refs: [copy], deferPayloads: always });
    writeFileSync(path.join(copy, 'mixed', 'catalog.json'), '{"schema": "olm.package", "name": "b-pkg"}\n');
    expect(() => jsonText(writeJsonBytes(cfg))).toThrow(
      /changed while rendering: bundle "a-pkg\.v0\.1\.0" is no longer at line \d+/,
    );
  });
});
