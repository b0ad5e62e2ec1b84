/** Catalogs of long channels, built in memory for the tests of large upgrade graphs. */
import type { ChannelEntry, DeclarativeConfig } from '../../src/declcfg/types.js';

export type Shape = 'chain' | 'skips' | 'long-skips';

export const bundleName = (pkg: string, i: number): string => `${pkg}.v1.0.${i}`;

/**
 * `packages` packages of one channel of `perChannel` bundles each. `chain`: each bundle replaces
 * the one before. `skips`: every fifth bundle replaces the one before last and skips the last, as a
 * fix release does, and every tenth has a skipRange over the four bundles before it. `long-skips`:
 * as `skips`, and every seventh bundle also skips the two before the one it replaces.
 */
export function catalog(packages: number, perChannel: number, shape: Shape = 'chain'): DeclarativeConfig {
  const cfg: DeclarativeConfig = { packages: [], channels: [], bundles: [], deprecations: [], others: [] };
  for (let p = 0; p < packages; p++) {
    const pkg = `operator-${String(p).padStart(3, '0')}`;
    cfg.packages.push({ schema: 'olm.package', name: pkg, defaultChannel: 'stable' });
    const entries: ChannelEntry[] = [];
    for (let i = 0; i < perChannel; i++) {
      const entry: ChannelEntry = { name: bundleName(pkg, i) };
      const skips = shape !== 'chain';
      const fix = skips && i > 1 && i % 5 === 0;
      if (i > 0) entry.replaces = bundleName(pkg, fix ? i - 2 : i - 1);
      if (fix) entry.skips = [bundleName(pkg, i - 1)];
      if (shape === 'long-skips' && i > 3 && i % 7 === 0)
        entry.skips = [...(entry.skips ?? []), bundleName(pkg, i - 2), bundleName(pkg, i - 3)];
      if (skips && i > 0 && i % 10 === 0) entry.skipRange = `>=1.0.${i - 4} <1.0.${i}`;
      entries.push(entry);
      cfg.bundles.push({
        schema: 'olm.bundle',
        package: pkg,
        name: entry.name,
        image: `registry.example.com/${pkg}-bundle:v1.0.${i}`,
        properties: [{ type: 'olm.package', value: { packageName: pkg, version: `1.0.${i}` } }],
      });
    }
    cfg.channels.push({ schema: 'olm.channel', package: pkg, name: 'stable', entries });
  }
  return cfg;
}
