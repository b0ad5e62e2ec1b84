// One package with one long channel, for the upgrade-graph work of validate and diff: every bundle
// replaces the one before and has a skipRange over the older bundles of its minor version (100
// bundles a minor), as long-lived operators write them. With `everyOther`, every other bundle but
// the head is left out and the replaces chain skips over the gaps: the "after" side of a diff whose
// removed bundles the skipRanges still take. Deterministic: written the same every time.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export function generateChannelCatalog(dir: string, bundles: number, everyOther = false): void {
  const pkg = 'long-channel-operator';
  const version = (i: number): string => `1.${Math.floor(i / 100)}.${i % 100}`;
  const kept = (i: number): boolean => !everyOther || i % 2 === 0 || i === bundles - 1;
  const blobs: object[] = [{ schema: 'olm.package', name: pkg, defaultChannel: 'stable' }];
  const entries: object[] = [];
  let previous = '';
  for (let i = 0; i < bundles; i++) {
    if (!kept(i)) continue;
    const v = version(i);
    const name = `${pkg}.v${v}`;
    entries.push({
      name,
      ...(previous === '' ? {} : { replaces: previous }),
      ...(i % 100 === 0 ? {} : { skipRange: `>=1.${Math.floor(i / 100)}.0 <${v}` }),
    });
    previous = name;
    blobs.push({
      schema: 'olm.bundle',
      package: pkg,
      name,
      image: `registry.example.com/${pkg}-bundle:v${v}`,
      properties: [{ type: 'olm.package', value: { packageName: pkg, version: v } }],
    });
  }
  blobs.push({ schema: 'olm.channel', package: pkg, name: 'stable', entries });
  mkdirSync(path.join(dir, pkg), { recursive: true });
  writeFileSync(path.join(dir, pkg, 'catalog.json'), blobs.map((b) => JSON.stringify(b)).join('\n') + '\n');
}
