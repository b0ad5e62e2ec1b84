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

/** Name of the release-line package's bundle of minor `m`, patch `p`. */
export const releaseBundle = (m: number, p: number): string => `aurora-operator.v3.${m}.${p}`;

/**
 * One package of 150 bundles as a product publishes them for years: versions 3.0.0 to 3.14.9, ten
 * patches per minor. Each bundle replaces the one before; every x.y.5 is a fix release that
 * replaces x.y.3 and skips x.y.4; every x.y.0 after the first has a skipRange over the minor before
 * it. Channels: `stable` (all 150, the default), `stable-3.N` for N = 6, 10, 14 (the minor and the one
 * before), `fast-3.14` (3.14 only) and `candidate-3.15` (one bundle), so that byte order and the
 * order of versions differ (`stable-3.10` < `stable-3.6` as text).
 */
export function releaseLinePackage(): DeclarativeConfig {
  const pkg = 'aurora-operator';
  const cfg: DeclarativeConfig = { packages: [], channels: [], bundles: [], deprecations: [], others: [] };
  cfg.packages.push({ schema: 'olm.package', name: pkg, defaultChannel: 'stable' });
  const all: (ChannelEntry & { minor: number })[] = [];
  for (let m = 0; m < 15; m++) {
    for (let p = 0; p < 10; p++) {
      const entry: ChannelEntry & { minor: number } = { name: releaseBundle(m, p), minor: m };
      if (m > 0 || p > 0) {
        entry.replaces =
          p === 5 ? releaseBundle(m, 3) : p === 0 ? releaseBundle(m - 1, 9) : releaseBundle(m, p - 1);
      }
      if (p === 5) entry.skips = [releaseBundle(m, 4)];
      if (p === 0 && m > 0) entry.skipRange = `>=3.${m - 1}.0 <3.${m}.0`;
      all.push(entry);
      cfg.bundles.push({
        schema: 'olm.bundle',
        package: pkg,
        name: entry.name,
        image: `registry.example.com/aurora/aurora-operator-bundle:v3.${m}.${p}`,
        properties: [{ type: 'olm.package', value: { packageName: pkg, version: `3.${m}.${p}` } }],
      });
    }
  }
  const channel = (name: string, keep: (e: { minor: number; name: string }) => boolean): void => {
    const entries = all.filter(keep).map(({ minor: _minor, ...e }) => e);
    cfg.channels.push({ schema: 'olm.channel', package: pkg, name, entries });
  };
  // Written in byte order, as a catalog on disk would be sorted; the picture orders them by version.
  channel('candidate-3.15', (e) => e.name === releaseBundle(14, 9));
  channel('fast-3.14', (e) => e.minor === 14);
  channel('stable', () => true);
  channel('stable-3.10', (e) => e.minor === 9 || e.minor === 10);
  channel('stable-3.14', (e) => e.minor === 13 || e.minor === 14);
  channel('stable-3.6', (e) => e.minor === 5 || e.minor === 6);
  return cfg;
}
