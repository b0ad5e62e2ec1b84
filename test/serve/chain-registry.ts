/**
 * A registry for the server's own tests: one package `p` with one channel `c` whose bundles b.v0 …
 * b.v(count-1) each replace the one before, b.v(count-1) the head. `bundle` makes what the store
 * returns for a bundle (its name, package and channel from the key); the rest of the message is empty.
 */
import type { ApiBundle } from '../../src/api-contract/messages.js';
import { CatalogQueries, type BundleKey } from '../../src/catalog-queries/queries.js';
import type { IndexChannel, PackageIndex } from '../../src/catalog-queries/package-index.js';

export function chainRegistry(
  count: number,
  bundle: (key: BundleKey, withManifests: boolean) => Partial<ApiBundle>,
): CatalogQueries {
  const bundles = new Map<
    string,
    { package: string; channel: string; name: string; replaces: string; skips: string[] }
  >();
  for (let i = 0; i < count; i++) {
    const name = `b.v${i}`;
    bundles.set(name, {
      package: 'p',
      channel: 'c',
      name,
      replaces: i === 0 ? '' : `b.v${i - 1}`,
      skips: [],
    });
  }
  const channel: IndexChannel = { name: 'c', head: `b.v${count - 1}`, bundles };
  const index: PackageIndex = new Map([
    [
      'p',
      { name: 'p', defaultChannel: 'c', channels: new Map([['c', channel]]), description: '', icon: null },
    ],
  ]);
  return new CatalogQueries(index, {
    bundle: (key, withManifests) =>
      Promise.resolve({
        csvName: key.name,
        packageName: key.package,
        channelName: key.channel,
        csvJson: '',
        object: [],
        bundlePath: '',
        providedApis: [],
        requiredApis: [],
        version: '0.0.0',
        skipRange: '',
        dependencies: [],
        properties: [],
        replaces: '',
        skips: [],
        ...bundle(key, withManifests),
      }),
  });
}
