import { describe, expect, it } from 'vitest';
import type { Bundle, ChannelEntry, DeclarativeConfig } from '../declcfg/types.js';
import { convertToModel } from '../model/convert.js';
import { parseSemver } from '../model/semver.js';
import { filterCatalog } from './filter.js';

function catalog(entries: ChannelEntry[], versions: Record<string, string>): DeclarativeConfig {
  const bundles: Bundle[] = Object.entries(versions).map(([name, version]) => ({
    schema: 'olm.bundle',
    name,
    package: 'p',
    image: `example.com/p:${version}`,
    properties: [{ type: 'olm.package', value: { packageName: 'p', version } }],
  }));
  return {
    packages: [{ schema: 'olm.package', name: 'p', defaultChannel: 'c' }],
    channels: [{ schema: 'olm.channel', name: 'c', package: 'p', entries }],
    bundles,
    deprecations: [],
    others: [],
  };
}

const upTo = (max: string) => ({
  packages: [
    {
      name: 'p',
      channels: [{ name: 'c', maxVersion: { text: max, version: parseSemver(max) }, origin: 'test' }],
      origin: 'test',
    },
  ],
  headsOnly: false,
});

function entriesOf(cfg: DeclarativeConfig): ChannelEntry[] {
  return cfg.channels[0]?.entries ?? [];
}

describe('filterCatalog graph repairs', () => {
  it('links a head cut off by the filter to the new head by replaces when the head replaces nothing', () => {
    const cfg = catalog(
      [
        { name: 'a1' },
        { name: 'a2', replaces: 'a1' },
        { name: 'b' },
        { name: 'a3', replaces: 'a2', skips: ['b'] },
        { name: 'a4', replaces: 'a3' },
      ],
      { a1: '1.0.0', a2: '2.0.0', b: '2.5.0', a3: '3.0.0', a4: '4.0.0' },
    );
    const r = filterCatalog(cfg, upTo('2.9.0'));
    expect(entriesOf(r.config)).toEqual([
      { name: 'a1' },
      { name: 'a2', replaces: 'a1' },
      { name: 'b', replaces: 'a2' },
    ]);
    expect(r.edits).toContain(
      'package "p", channel "c": "b" now replaces "a2" (what upgraded from it in between is not kept)',
    );
    expect(convertToModel(r.config).findings).toEqual([]);
  });

  it('links by skips when the new head already replaces something', () => {
    const cfg = catalog(
      [
        { name: 'a1' },
        { name: 'a2', replaces: 'a1' },
        { name: 'x', replaces: 'a1' },
        { name: 'a3', replaces: 'a2', skips: ['x'] },
      ],
      { a1: '1.0.0', a2: '2.0.0', x: '2.1.0', a3: '3.0.0' },
    );
    const r = filterCatalog(cfg, upTo('2.5.0'));
    expect(entriesOf(r.config)).toEqual([
      { name: 'a1' },
      { name: 'a2', replaces: 'a1' },
      { name: 'x', replaces: 'a1', skips: ['a2'] },
    ]);
    expect(convertToModel(r.config).findings).toEqual([]);
  });

  it('rewrites replaces over dropped bundles to the nearest kept one and drops skips of dropped bundles', () => {
    const cfg = catalog(
      [
        { name: 'a1' },
        { name: 'hotfix', replaces: 'a1' },
        { name: 'a2', replaces: 'hotfix', skips: ['hotfix', 'elsewhere'] },
      ],
      { a1: '1.0.0', hotfix: '9.0.0', a2: '2.0.0' },
    );
    const r = filterCatalog(cfg, upTo('2.0.0'));
    // A skips entry naming a bundle that was never in the channel is not the filter's to drop.
    expect(entriesOf(r.config)).toEqual([
      { name: 'a1' },
      { name: 'a2', replaces: 'a1', skips: ['elsewhere'] },
    ]);
    expect(r.config.bundles.map((b) => b.name)).toEqual(['a1', 'a2']);
  });

  it('keeps one bundle per channel with heads only, and an identical catalog without a selection', () => {
    const cfg = catalog([{ name: 'a1' }, { name: 'a2', replaces: 'a1' }], { a1: '1.0.0', a2: '2.0.0' });
    expect(entriesOf(filterCatalog(cfg, { packages: [], headsOnly: true }).config)).toEqual([{ name: 'a2' }]);
    const all = filterCatalog(cfg, { packages: [], headsOnly: false });
    expect(all.config).toEqual(cfg);
    expect(all.edits).toEqual([]);
  });
});
