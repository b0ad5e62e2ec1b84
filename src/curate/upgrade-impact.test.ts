import { describe, expect, it } from 'vitest';
import type { Channel, ChannelEntry } from '../declcfg/types.js';
import { parseSemver } from '../model/semver.js';
import { packageImpact, type PackageGraph } from './upgrade-impact.js';

function side(entries: ChannelEntry[], versions: Record<string, string>): PackageGraph {
  const channel: Channel = { schema: 'olm.channel', package: 'p', name: 'stable', entries };
  const v = new Map(Object.entries(versions).map(([n, s]) => [n, parseSemver(s)]));
  return { channels: new Map([['stable', channel]]), versionOf: (n) => v.get(n) };
}

const VERSIONS = { 'p.v1': '1.0.0', 'p.v2': '2.0.0', 'p.v3': '3.0.0', 'p.v4': '4.0.0', 'p.v5': '5.0.0' };

const before = side(
  [
    { name: 'p.v1' },
    { name: 'p.v2', replaces: 'p.v1' },
    { name: 'p.v3', replaces: 'p.v2' },
    { name: 'p.v4', replaces: 'p.v3' },
  ],
  VERSIONS,
);

describe('packageImpact', () => {
  it('finds no impact when a removed bundle is still taken by a skipRange on the path to the head', () => {
    const after = side([{ name: 'p.v3' }, { name: 'p.v4', replaces: 'p.v3', skipRange: '<3.0.0' }], VERSIONS);
    expect(packageImpact('p', before, after)).toEqual([]);
  });

  it('reports removed bundles nothing on the path to the head takes, and listed bundles cut off', () => {
    const after = side(
      [
        { name: 'p.v2' },
        // A second head, lower than p.v5: off the path to the head, its skipRange helps no one.
        { name: 'p.side', skipRange: '<2.0.0' },
        { name: 'p.v4', skips: ['p.v3'] },
        { name: 'p.v5', replaces: 'p.v4' },
      ],
      { ...VERSIONS, 'p.side': '4.5.0' },
    );
    expect(packageImpact('p', before, after)).toEqual([
      { package: 'p', channel: 'stable', bundle: 'p.v1', reason: 'removed' },
      { package: 'p', channel: 'stable', bundle: 'p.v2', reason: 'stranded' },
    ]);
  });

  it('reports every user of a removed channel or package', () => {
    const users = ['p.v1', 'p.v2', 'p.v3', 'p.v4'];
    expect(packageImpact('p', before, undefined).map((i) => [i.bundle, i.reason])).toEqual(
      users.map((u) => [u, 'package-removed']),
    );
    const noChannel: PackageGraph = { channels: new Map(), versionOf: () => undefined };
    expect(packageImpact('p', before, noChannel).map((i) => i.reason)).toEqual(
      users.map(() => 'channel-removed'),
    );
  });
});
