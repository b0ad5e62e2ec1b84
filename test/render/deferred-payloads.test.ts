/**
 * Deferred payloads (render of large local catalogs): the olm.bundle.object payloads are read back
 * from the files as each bundle is written, and the output is byte for byte what a render that
 * held them writes.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DeferredPayloads, render } from '../../src/action/render.js';
import type { Bundle } from '../../src/declcfg/types.js';
import { writeJsonBytes, writeYaml, type WriteOptions } from '../../src/declcfg/write.js';

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

async function outputs(refs: string[], deferred?: DeferredPayloads): Promise<{ json: string; yaml: string }> {
  const cfgJson = await render({ refs, ...(deferred ? { deferPayloads: deferred } : {}) });
  const opts: WriteOptions = deferred ? { restoreBundle: (b: Bundle) => deferred.restore(b) } : {};
  const json = jsonText(writeJsonBytes(cfgJson, opts));
  const again = deferred ? new DeferredPayloads(0) : undefined;
  const cfgYaml = await render({ refs, ...(again ? { deferPayloads: again } : {}) });
  const yamlOpts: WriteOptions = again ? { restoreBundle: (b: Bundle) => again.restore(b) } : {};
  const yaml = [...writeYaml(cfgYaml, yamlOpts)].join('');
  return { json, yaml };
}

describe('deferred payloads', () => {
  it('leaves payloads out of the loaded catalog and writes them back byte for byte', async () => {
    const deferred = new DeferredPayloads(0);
    const cfg = await render({ refs: [catalog], deferPayloads: deferred });
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
    expect(await outputs([catalog], new DeferredPayloads(0))).toEqual(held);
  });

  it('writes a directory given twice', async () => {
    const held = await outputs([catalog, catalog]);
    expect(await outputs([catalog, catalog], new DeferredPayloads(0))).toEqual(held);
  });

  it('holds small catalogs and catalogs being migrated as before', async () => {
    const deferred = new DeferredPayloads();
    const small = await render({ refs: [catalog], deferPayloads: deferred });
    expect(small.bundles.some((b) => b.payloadsElided === true)).toBe(false);
    const migrated = await render({
      refs: [catalog],
      deferPayloads: new DeferredPayloads(0),
      migrateLevel: 'all',
    });
    expect(migrated.bundles.some((b) => b.payloadsElided === true)).toBe(false);
  });

  it('fails when a file no longer holds a bundle where it was', async () => {
    const copy = path.join(dir, 'changing');
    writeCatalog(copy);
    const deferred = new DeferredPayloads(0);
    const cfg = await render({ refs: [copy], deferPayloads: deferred });
    writeFileSync(path.join(copy, 'mixed', 'catalog.json'), '{"schema": "olm.package", "name": "b-pkg"}\n');
    expect(() => jsonText(writeJsonBytes(cfg, { restoreBundle: (b) => deferred.restore(b) }))).toThrow(
      /changed while rendering: bundle "a-pkg\.v0\.1\.0" is no longer at line \d+/,
    );
  });
});
