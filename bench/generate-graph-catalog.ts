// A package of the size the upgrade-graph pictures are held to: 150 bundles over 10 channels, each
// channel a replaces chain with skips and a skipRange over every older bundle of the channel (the
// most edges a real channel has). Deterministic: written the same every time.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export function generateGraphCatalog(dir: string, channels = 10, perChannel = 15): string {
  const pkg = 'graph-bench-operator';
  const blobs: object[] = [{ schema: 'olm.package', name: pkg, defaultChannel: `stable-1.${channels - 1}` }];
  for (let c = 0; c < channels; c++) {
    const entries = [];
    for (let i = 0; i < perChannel; i++) {
      const name = `${pkg}.v1.${c}.${i}`;
      // Every fifth bundle replaces the one before last and skips the last, as a fix release does.
      const skipping = i > 1 && i % 5 === 0;
      entries.push({
        name,
        ...(i > 0 ? { replaces: `${pkg}.v1.${c}.${skipping ? i - 2 : i - 1}` } : {}),
        ...(skipping ? { skips: [`${pkg}.v1.${c}.${i - 1}`] } : {}),
        ...(i > 0 ? { skipRange: `>=1.${c}.0 <1.${c}.${i}` } : {}),
      });
      blobs.push({
        schema: 'olm.bundle',
        package: pkg,
        name,
        image: `registry.example.com/${pkg}-bundle:v1.${c}.${i}`,
        properties: [
          { type: 'olm.package', value: { packageName: pkg, version: `1.${c}.${i}` } },
          { type: 'olm.gvk', value: { group: 'example.com', kind: 'Widget', version: 'v1' } },
        ],
      });
    }
    blobs.push({ schema: 'olm.channel', package: pkg, name: `stable-1.${c}`, entries });
  }
  mkdirSync(path.join(dir, pkg), { recursive: true });
  writeFileSync(
    path.join(dir, pkg, 'catalog.json'),
    blobs.map((b) => JSON.stringify(b, null, 2)).join('\n') + '\n',
  );
  return pkg;
}

/**
 * A package whose one channel is `bundles` bundles in a plain replaces chain, as a long-lived
 * operator publishes them over the years: the shape the drawn graph once failed on (dagre's
 * recursion overflowed near 2,000). Deterministic.
 */
export function generateLaneCatalog(dir: string, bundles: number): string {
  const pkg = 'lane-bench-operator';
  const blobs: object[] = [{ schema: 'olm.package', name: pkg, defaultChannel: 'stable' }];
  const entries = [];
  for (let i = 0; i < bundles; i++) {
    const name = `${pkg}.v1.0.${i}`;
    entries.push({ name, ...(i > 0 ? { replaces: `${pkg}.v1.0.${i - 1}` } : {}) });
    blobs.push({
      schema: 'olm.bundle',
      package: pkg,
      name,
      image: `registry.example.com/${pkg}-bundle:v1.0.${i}`,
      properties: [{ type: 'olm.package', value: { packageName: pkg, version: `1.0.${i}` } }],
    });
  }
  blobs.push({ schema: 'olm.channel', package: pkg, name: 'stable', entries });
  mkdirSync(path.join(dir, pkg), { recursive: true });
  writeFileSync(
    path.join(dir, pkg, 'catalog.json'),
    blobs.map((b) => JSON.stringify(b, null, 2)).join('\n') + '\n',
  );
  return pkg;
}
