import { describe, expect, it } from 'vitest';
import { parseMermaid, type MermaidDoc } from '../../test/mermaid-check.js';
import { OpmError } from '../errors.js';
import {
  emptyConfig,
  type Bundle,
  type Channel,
  type ChannelEntry,
  type DeclarativeConfig,
} from '../declcfg/types.js';
import { writeMermaid } from './mermaid.js';

function bundle(pkg: string, name: string, version: string): Bundle {
  return {
    schema: 'olm.bundle',
    name,
    package: pkg,
    image: `example.com/${pkg}:${version}`,
    properties: [{ type: 'olm.package', value: { packageName: pkg, version } }],
  };
}

function channel(pkg: string, name: string, entries: ChannelEntry[]): Channel {
  return { schema: 'olm.channel', name, package: pkg, entries };
}

/** A package `pkg` with bundles `pkg.v<version>` for every version, and the given channels. */
function catalog(pkg: string, versions: string[], channels: [string, ChannelEntry[]][]): DeclarativeConfig {
  const cfg = emptyConfig();
  cfg.packages.push({ schema: 'olm.package', name: pkg, defaultChannel: channels[0]?.[0] ?? '' });
  for (const v of versions) cfg.bundles.push(bundle(pkg, `${pkg}.v${v}`, v));
  for (const [name, entries] of channels) cfg.channels.push(channel(pkg, name, entries));
  return cfg;
}

function merge(...cfgs: DeclarativeConfig[]): DeclarativeConfig {
  const out = emptyConfig();
  for (const c of cfgs) {
    out.packages.push(...c.packages);
    out.channels.push(...c.channels);
    out.bundles.push(...c.bundles);
    out.deprecations.push(...c.deprecations);
  }
  return out;
}

/** Every (from, to, kind) that the channel entries call for, with kind skip/replace/skipRange. */
function expectedEdges(doc: MermaidDoc): string[] {
  return doc.edges.map((e) => `${e.from} -${e.text}-> ${e.to}`);
}

describe('writeMermaid', () => {
  it('success/one channel, exact text', () => {
    const cfg = catalog(
      'etcd',
      ['0.9.0', '0.9.2', '0.9.4'],
      [
        [
          'stable',
          [
            { name: 'etcd.v0.9.0' },
            { name: 'etcd.v0.9.2', replaces: 'etcd.v0.9.0' },
            { name: 'etcd.v0.9.4', replaces: 'etcd.v0.9.2', skips: ['etcd.v0.9.0'], skipRange: '<0.9.4' },
          ],
        ],
      ],
    );
    expect(writeMermaid(cfg, { drawV0Semantics: false })).toBe(
      [
        'graph LR',
        '  classDef deprecated fill:#E8960F',
        '  classDef skipped stroke:#FF0000,stroke-width:4px',
        '  classDef deprecatedskipped fill:#E8960F,stroke:#FF0000,stroke-width:4px',
        '  %% package "etcd"',
        '  subgraph "etcd"',
        '    %% channel "stable"',
        '    subgraph etcd-stable["stable"]',
        '      etcd-stable-etcd.v0.9.4["etcd.v0.9.4"]',
        '      etcd-stable-etcd.v0.9.0["etcd.v0.9.0"]-- skip --> etcd-stable-etcd.v0.9.4["etcd.v0.9.4"]',
        '      etcd-stable-etcd.v0.9.0["etcd.v0.9.0"]-- "skipRange(<0.9.4)" --> etcd-stable-etcd.v0.9.4["etcd.v0.9.4"]',
        '      etcd-stable-etcd.v0.9.2["etcd.v0.9.2"]-- "skipRange(<0.9.4)" --> etcd-stable-etcd.v0.9.4["etcd.v0.9.4"]',
        '      etcd-stable-etcd.v0.9.2["etcd.v0.9.2"]-- replace --> etcd-stable-etcd.v0.9.4["etcd.v0.9.4"]',
        '      etcd-stable-etcd.v0.9.2["etcd.v0.9.2"]',
        '      etcd-stable-etcd.v0.9.0["etcd.v0.9.0"]-- replace --> etcd-stable-etcd.v0.9.2["etcd.v0.9.2"]',
        '      etcd-stable-etcd.v0.9.0["etcd.v0.9.0"]',
        '    end',
        '  end',
        '',
      ].join('\n'),
    );
  });

  it('success/v0 semantics marks skipped bundles and the links into them', () => {
    const cfg = catalog(
      'etcd',
      ['0.9.0', '0.9.2', '0.9.4'],
      [
        [
          'stable',
          [
            { name: 'etcd.v0.9.0' },
            { name: 'etcd.v0.9.2', replaces: 'etcd.v0.9.0' },
            { name: 'etcd.v0.9.4', replaces: 'etcd.v0.9.2', skips: ['etcd.v0.9.2'] },
          ],
        ],
      ],
    );
    const text = writeMermaid(cfg);
    const doc = parseMermaid(text);
    // 0.9.2 is skipped by 0.9.4, so its node is classed skipped and its incoming replace link
    // (link 2: skip 0→…, replace 1, replace 2) is drawn red.
    expect(doc.classes.get('skipped')).toEqual(['etcd-stable-etcd.v0.9.2']);
    expect(expectedEdges(doc)).toEqual([
      'etcd-stable-etcd.v0.9.2 -skip-> etcd-stable-etcd.v0.9.4',
      'etcd-stable-etcd.v0.9.2 -replace-> etcd-stable-etcd.v0.9.4',
      'etcd-stable-etcd.v0.9.0 -replace-> etcd-stable-etcd.v0.9.2',
    ]);
    expect(doc.linkStyles).toEqual([2]);
    expect(text).toContain('linkStyle 2 stroke:#FF0000,stroke-width:3px,stroke-dasharray:5;\n');
    expect(writeMermaid(cfg, { drawV0Semantics: false })).not.toContain('linkStyle');
  });

  it('success/linkStyle numbers follow the written order across packages', () => {
    // Package "alpha" has channel "zeta", package "beta" has channel "aaa": by channel name "aaa" comes
    // first, by written (package) order "zeta" does. The red links must be the ones into skipped nodes.
    const a = catalog(
      'alpha',
      ['1.0.0', '1.1.0', '1.2.0'],
      [
        [
          'zeta',
          [
            { name: 'alpha.v1.0.0' },
            { name: 'alpha.v1.1.0', replaces: 'alpha.v1.0.0' },
            { name: 'alpha.v1.2.0', replaces: 'alpha.v1.1.0', skips: ['alpha.v1.1.0'] },
          ],
        ],
      ],
    );
    const b = catalog(
      'beta',
      ['2.0.0', '2.1.0'],
      [
        [
          'aaa',
          [{ name: 'beta.v2.0.0' }, { name: 'beta.v2.1.0', replaces: 'beta.v2.0.0', skips: ['beta.v2.0.0'] }],
        ],
      ],
    );
    const doc = parseMermaid(writeMermaid(merge(b, a)));
    const skippedNodes = new Set(doc.classes.get('skipped'));
    expect(skippedNodes).toEqual(new Set(['alpha-zeta-alpha.v1.1.0', 'beta-aaa-beta.v2.0.0']));
    const red = doc.linkStyles.map((i) => doc.edges[i]);
    expect(red.length).toBeGreaterThan(0);
    for (const e of red) expect(skippedNodes.has(e?.to ?? '')).toBe(true);
    // every link into a skipped node that is not itself a skip link is red
    const intoSkipped = doc.edges
      .filter((e) => skippedNodes.has(e.to) && e.text !== 'skip')
      .map((e) => e.index);
    expect(doc.linkStyles).toEqual(intoSkipped);
  });

  it('success/edges match the channel entries', () => {
    const cfg = catalog(
      'op',
      ['0.1.0', '0.2.0', '0.3.0', '1.0.0'],
      [
        [
          'candidate',
          [
            { name: 'op.v0.1.0' },
            { name: 'op.v0.2.0', replaces: 'op.v0.1.0' },
            { name: 'op.v0.3.0', replaces: 'op.v0.2.0', skips: ['op.v0.1.0'] },
            { name: 'op.v1.0.0', skipRange: '>=0.2.0 <1.0.0' },
          ],
        ],
        ['stable', [{ name: 'op.v0.1.0' }, { name: 'op.v1.0.0', replaces: 'op.v0.1.0' }]],
      ],
    );
    const doc = parseMermaid(writeMermaid(cfg));
    const want: string[] = [];
    for (const c of cfg.channels) {
      const id = (n: string) => `${c.package}-${c.name}-${n}`;
      for (const e of c.entries ?? []) {
        for (const s of e.skips ?? []) want.push(`${id(s)} -skip-> ${id(e.name)}`);
        if (e.replaces) want.push(`${id(e.replaces)} -replace-> ${id(e.name)}`);
      }
    }
    want.push(
      'op-candidate-op.v0.2.0 -skipRange(>=0.2.0 <1.0.0)-> op-candidate-op.v1.0.0',
      'op-candidate-op.v0.3.0 -skipRange(>=0.2.0 <1.0.0)-> op-candidate-op.v1.0.0',
    );
    expect(expectedEdges(doc).sort()).toEqual(want.sort());
    expect(doc.subgraphs.map((s) => s.label)).toEqual(['op', 'candidate', 'stable']);
  });

  it('success/minimum edge keeps edges at or above the floor, in that package only', () => {
    const cfg = merge(
      catalog(
        'op',
        ['0.1.0', '0.2.0', '0.3.0'],
        [
          [
            'stable',
            [
              { name: 'op.v0.1.0' },
              { name: 'op.v0.2.0', replaces: 'op.v0.1.0' },
              { name: 'op.v0.3.0', replaces: 'op.v0.2.0', skips: ['op.v0.1.0'] },
            ],
          ],
        ],
      ),
      catalog('other', ['1.0.0'], [['stable', [{ name: 'other.v1.0.0' }]]]),
    );
    const doc = parseMermaid(writeMermaid(cfg, { minEdgeName: 'op.v0.2.0' }));
    expect(expectedEdges(doc)).toEqual(['op-stable-op.v0.2.0 -replace-> op-stable-op.v0.3.0']);
    expect([...doc.nodes.keys()].sort()).toEqual(['op-stable-op.v0.2.0', 'op-stable-op.v0.3.0']);
  });

  it('success/package filter', () => {
    const cfg = merge(
      catalog('op', ['0.1.0'], [['stable', [{ name: 'op.v0.1.0' }]]]),
      catalog('other', ['1.0.0'], [['stable', [{ name: 'other.v1.0.0' }]]]),
    );
    const doc = parseMermaid(writeMermaid(cfg, { packageName: 'other' }));
    expect([...doc.nodes.keys()]).toEqual(['other-stable-other.v1.0.0']);
  });

  it('success/deprecations are styled', () => {
    const cfg = catalog(
      'op',
      ['0.1.0', '0.2.0'],
      [['stable', [{ name: 'op.v0.1.0' }, { name: 'op.v0.2.0', replaces: 'op.v0.1.0' }]]],
    );
    cfg.deprecations.push({
      schema: 'olm.deprecations',
      package: 'op',
      entries: [
        { reference: { schema: 'olm.package' }, message: 'gone' },
        { reference: { schema: 'olm.channel', name: 'stable' }, message: 'gone' },
        { reference: { schema: 'olm.bundle', name: 'op.v0.1.0' }, message: 'gone' },
      ],
    });
    const text = writeMermaid(cfg);
    const doc = parseMermaid(text);
    expect(doc.classes.get('deprecated')).toEqual(['op-stable-op.v0.1.0']);
    expect(text).toContain('\nstyle op fill:#989695\nstyle op-stable fill:#DCD0FF\n');
  });

  it('warning/invalid skipRange is reported and not drawn', () => {
    const cfg = catalog(
      'op',
      ['0.1.0', '0.2.0'],
      [
        [
          'stable',
          [{ name: 'op.v0.1.0' }, { name: 'op.v0.2.0', replaces: 'op.v0.1.0', skipRange: '>v0.1.0' }],
        ],
      ],
    );
    const warnings: string[] = [];
    const doc = parseMermaid(writeMermaid(cfg, { warn: (l) => warnings.push(l) }));
    expect(doc.edges).toHaveLength(1);
    expect(warnings).toEqual([
      'warning: ignoring invalid SkipRange for package/edge "op"/"op.v0.2.0": Could not parse Range ">v0.1.0": Could not parse comparator ">v" in ">v0.1.0"',
    ]);
  });

  it.each([
    [
      'unknown minimum edge',
      (c: DeclarativeConfig) => c,
      { minEdgeName: 'nope' },
      'unknown minimum edge name: "nope"',
    ],
    [
      'bundle without olm.package',
      (c: DeclarativeConfig) => {
        const b = c.bundles[0];
        if (b) b.properties = [];
        return c;
      },
      {},
      'bundle "op.v0.1.0" has multiple "olm.package" properties, expected exactly 1',
    ],
    [
      'bundle with invalid version',
      (c: DeclarativeConfig) => {
        const b = c.bundles[0];
        if (b) b.properties = [{ type: 'olm.package', value: { packageName: 'op', version: '1.0' } }];
        return c;
      },
      {},
      'bundle "op.v0.1.0" has invalid version "1.0": No Major.Minor.Patch elements found',
    ],
  ])('error/%s', (_name, mutate, opts, message) => {
    const cfg = mutate(catalog('op', ['0.1.0'], [['stable', [{ name: 'op.v0.1.0' }]]]));
    expect(() => writeMermaid(cfg, opts)).toThrow(OpmError);
    expect(() => writeMermaid(cfg, opts)).toThrow(message);
  });
});
