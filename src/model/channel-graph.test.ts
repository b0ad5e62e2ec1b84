import { describe, expect, it } from 'vitest';
import type { Bundle, Channel, ChannelEntry, DeclarativeConfig } from '../declcfg/types.js';
import { OpmError } from '../errors.js';
import {
  ChannelGraph,
  VersionIndex,
  ZERO_VERSION,
  highestVersion,
  minimumEdge,
  narrowChannel,
  orZero,
  versionLookup,
  type VersionOf,
} from './channel-graph.js';
import { seededRandom } from '../../test/seeded-random.js';
import { convertToModel } from './convert.js';
import { compareSemver, parseRange, parseRangeSet, parseSemver, rangeError, type SemVer } from './semver.js';

/** Versions by name from `name: version` pairs. */
function versions(pairs: Record<string, string>): VersionOf {
  const m = new Map(Object.entries(pairs).map(([n, v]) => [n, parseSemver(v)]));
  return (n) => m.get(n);
}

const names = (entries: readonly { name: string }[]): string[] => entries.map((e) => e.name);

describe('ChannelGraph: replaces chains', () => {
  const entries: ChannelEntry[] = [{ name: 'a' }, { name: 'b', replaces: 'a' }, { name: 'c', replaces: 'b' }];
  const graph = ChannelGraph.fromEntries(entries);

  it('has the one head nothing replaces, and walks the chain to its end', () => {
    expect(graph.chain()).toEqual({ heads: ['c'], stranded: [], tail: { name: 'a', replaces: '' } });
    expect(graph.head()).toBe('c');
  });

  it('gives each entry its replaces edge and the entries that replace a bundle', () => {
    expect(graph.edgesInto(graph.entry('c') as never)).toEqual([{ from: 'b', to: 'c', kind: 'replaces' }]);
    expect(graph.edgesInto(graph.entry('a') as never)).toEqual([]);
    expect(names(graph.replacedBy('a'))).toEqual(['b']);
    expect(graph.replacedBy('c')).toEqual([]);
  });

  it('reaches every bundle of the chain from its head, and only the head from itself', () => {
    expect([...graph.reaching(['c'])].sort()).toEqual(['a', 'b', 'c']);
    expect([...graph.reaching(['a'])]).toEqual(['a']);
    expect(graph.reaching(['not-listed']).size).toBe(0);
  });

  it('reports the end of the chain when a replaces names a bundle outside the channel', () => {
    const g = ChannelGraph.fromEntries([
      { name: 'b', replaces: 'gone' },
      { name: 'x' },
      { name: 'c', replaces: 'b', skips: ['x'] },
    ]);
    expect(g.chain()).toEqual({ heads: ['c'], stranded: [], tail: { name: 'b', replaces: 'gone' } });
  });
});

describe('ChannelGraph: skips, stranded bundles and cycles', () => {
  it('counts a skipped bundle as neither head nor stranded, and ends the walk at it', () => {
    const g = ChannelGraph.fromEntries([
      { name: 'a' },
      { name: 'b', replaces: 'a' },
      { name: 'c', replaces: 'b', skips: ['b', 'a'] },
    ]);
    // b is replaced and skipped: the walk stops at it, a is skipped, so nothing is stranded.
    expect(g.chain()).toEqual({ heads: ['c'], stranded: [], tail: { name: 'c', replaces: 'b' } });
    expect(g.edgesInto(g.entry('c') as never)).toEqual([
      { from: 'b', to: 'c', kind: 'replaces' },
      { from: 'b', to: 'c', kind: 'skips' },
      { from: 'a', to: 'c', kind: 'skips' },
    ]);
    expect(names(g.replacedBy('b'))).toEqual(['c']);
    expect(names(g.replacedBy('a'))).toEqual(['b', 'c']);
  });

  it('lists bundles off the chain that nothing skips as stranded, in byte order', () => {
    const g = ChannelGraph.fromEntries([
      { name: 'b', replaces: 'a' },
      { name: 'a' },
      { name: 'z' },
      { name: 'B' },
      { name: 'head', replaces: 'b', skips: ['z', 'B'] },
      { name: 'lost', replaces: 'a' },
    ]);
    // "lost" replaces a but nothing replaces it: a second head.
    expect(g.heads()).toEqual(['head', 'lost']);
    expect(g.chain().stranded).toEqual([]);
    const one = ChannelGraph.fromEntries([
      { name: 'a' },
      { name: 'm' },
      { name: 'C' },
      { name: 'b', replaces: 'a' },
    ]);
    expect(one.heads()).toEqual(['C', 'b', 'm']);
    const single = ChannelGraph.fromEntries([
      { name: 'a', replaces: 'm' },
      { name: 'm' },
      { name: 'C' },
      { name: 'b', replaces: 'a', skips: ['x'] },
      { name: 'h', replaces: 'b', skips: ['C'] },
      { name: 'k', skips: ['h'] },
      { name: 'top', replaces: 'k', skips: ['m2'] },
    ]);
    // The walk from top ends at k; h and C are skipped; a, b and m hang off the chain.
    expect(single.chain()).toEqual({
      heads: ['top'],
      stranded: ['a', 'b', 'm'],
      tail: { name: 'k', replaces: '' },
    });
  });

  it('finds a cycle on the replaces walk and gives its path back to the repeated bundle', () => {
    const g = ChannelGraph.fromEntries([
      { name: 'h', replaces: 'a' },
      { name: 'a', replaces: 'b' },
      { name: 'b', replaces: 'a' },
    ]);
    const chain = g.chain();
    expect(chain.heads).toEqual(['h']);
    expect(chain.cycle).toEqual(['a', 'b', 'a']);
    // The search for bundles reaching the head ends on a cycle too.
    expect([...g.reaching(['h'])].sort()).toEqual(['a', 'b', 'h']);
  });

  it('has no head when every bundle is replaced', () => {
    const g = ChannelGraph.fromEntries([
      { name: 'a', replaces: 'b' },
      { name: 'b', replaces: 'a' },
    ]);
    expect(g.chain()).toEqual({ heads: [], stranded: [] });
    expect(g.head()).toBeUndefined();
  });
});

describe('ChannelGraph: several heads', () => {
  const v = versions({ 'p.v1': '1.0.0', 'p.v2': '2.0.0', 'p.v10': '10.0.0', 'q.v2': '2.0.0' });

  it('lists heads in byte order and picks the highest version as the head users get', () => {
    const g = ChannelGraph.fromEntries([{ name: 'p.v2' }, { name: 'p.v10' }, { name: 'p.v1' }], v);
    expect(g.heads()).toEqual(['p.v1', 'p.v10', 'p.v2']);
    expect(g.chain().stranded).toEqual([]);
    expect(g.head()).toBe('p.v10');
  });

  it('breaks version ties, and heads without a version, by the greatest name', () => {
    expect(highestVersion(['p.v2', 'q.v2'], v)).toBe('q.v2');
    expect(highestVersion(['q.v2', 'p.v2'], v)).toBe('q.v2');
    expect(highestVersion(['p.v10', 'zz-no-version'], v)).toBe('zz-no-version');
    expect(highestVersion([], v)).toBe('');
  });
});

describe('ChannelGraph: skipRange', () => {
  const v = versions({
    'op.v1.0.0': '1.0.0',
    'op.v1.1.0-rc.1': '1.1.0-rc.1',
    'op.v1.1.0': '1.1.0',
    'op.v1.2.0': '1.2.0',
    'op.v2.0.0': '2.0.0',
  });
  const entries: ChannelEntry[] = [
    { name: 'op.v1.1.0', skipRange: '>=1.0.0 <1.1.0' },
    { name: 'op.v1.0.0' },
    { name: 'op.v1.1.0-rc.1' },
    { name: 'op.v2.0.0', replaces: 'op.v1.2.0', skipRange: '<1.1.0 || >1.1.0 !=2.0.0' },
    { name: 'op.v1.2.0', skipRange: '1.1.x' },
  ];
  const graph = ChannelGraph.fromEntries(entries, v);
  const entry = (n: string): NonNullable<ReturnType<ChannelGraph['entry']>> => {
    const e = graph.entry(n);
    if (e === undefined) throw new Error(`no entry ${n}`);
    return e;
  };

  it('covers the versions its range matches, pre-releases included, in channel order', () => {
    expect(names(graph.skipRangeCovers(entry('op.v1.1.0')))).toEqual(['op.v1.0.0', 'op.v1.1.0-rc.1']);
    // Alternatives, and a `!=` that leaves the entry itself out.
    expect(names(graph.skipRangeCovers(entry('op.v2.0.0')))).toEqual([
      'op.v1.0.0',
      'op.v1.1.0-rc.1',
      'op.v1.2.0',
    ]);
    // 1.1.x is >=1.1.0 <1.2.0: the release candidate is below it.
    expect(names(graph.skipRangeCovers(entry('op.v1.2.0')))).toEqual(['op.v1.1.0']);
    expect(graph.skipRangeCovers(entry('op.v1.0.0'))).toEqual([]);
  });

  it('draws skipRange edges after replaces, each covered bundle once, not the entry itself', () => {
    expect(graph.edgesInto(entry('op.v2.0.0'))).toEqual([
      { from: 'op.v1.2.0', to: 'op.v2.0.0', kind: 'replaces' },
      { from: 'op.v1.0.0', to: 'op.v2.0.0', kind: 'skipRange' },
      { from: 'op.v1.1.0-rc.1', to: 'op.v2.0.0', kind: 'skipRange' },
      { from: 'op.v1.2.0', to: 'op.v2.0.0', kind: 'skipRange' },
    ]);
  });

  it('does not make heads of skipRange edges (opm counts replaces and skips only)', () => {
    expect(graph.heads()).toEqual(['op.v1.0.0', 'op.v1.1.0', 'op.v1.1.0-rc.1', 'op.v2.0.0']);
  });

  it('reaches through skipRange edges', () => {
    // 1.2.0 covers 1.1.0, whose own skipRange covers 1.0.0 and the release candidate.
    expect([...graph.reaching(['op.v1.2.0'])].sort()).toEqual([
      'op.v1.0.0',
      'op.v1.1.0',
      'op.v1.1.0-rc.1',
      'op.v1.2.0',
    ]);
    expect([...graph.reaching(['op.v1.1.0-rc.1'])]).toEqual(['op.v1.1.0-rc.1']);
    expect([...graph.reaching(['op.v2.0.0'])].sort()).toEqual([
      'op.v1.0.0',
      'op.v1.1.0',
      'op.v1.1.0-rc.1',
      'op.v1.2.0',
      'op.v2.0.0',
    ]);
  });

  it("matches nothing with a skipRange that does not parse, and keeps blang's error", () => {
    const g = ChannelGraph.fromEntries(
      [{ name: 'a', skipRange: '>=1.0.0 <=one' }, { name: 'b' }],
      versions({ a: '2.0.0', b: '1.0.0' }),
    );
    const a = g.entry('a');
    expect(a).toBeDefined();
    if (a === undefined) return;
    expect(g.skipRangeError(a)).toBeDefined();
    expect(g.skipRangeError(a)).toBe(rangeError('>=1.0.0 <=one'));
    expect(g.skipRangeOf(a)).toBeUndefined();
    expect(g.skipRangeCovers(a)).toEqual([]);
    expect(g.edgesInto(a)).toEqual([]);
  });
});

describe('ChannelGraph: the zero version', () => {
  const entries: ChannelEntry[] = [{ name: 'no-bundle' }, { name: 'v1', skipRange: '<1.0.0' }];
  const known = versions({ v1: '1.0.0' });

  it('leaves bundles without a version out of skipRange matches by default', () => {
    const g = ChannelGraph.fromEntries(entries, known);
    expect(g.skipRangeCovers(g.entry('v1') as never)).toEqual([]);
    expect([...g.reaching(['v1'])]).toEqual(['v1']);
  });

  it('counts them as 0.0.0 with orZero, as the graph writers draw them', () => {
    const g = ChannelGraph.fromEntries(entries, orZero(known));
    expect(names(g.skipRangeCovers(g.entry('v1') as never))).toEqual(['no-bundle']);
    expect(orZero(known)('missing')).toBe(ZERO_VERSION);
    expect(compareSemver(ZERO_VERSION, parseSemver('0.0.0'))).toBe(0);
  });
});

describe('ChannelGraph: entries listed twice, and the model', () => {
  it('follows the first entry of a name and lists every entry a skipRange covers', () => {
    const g = ChannelGraph.fromEntries(
      [
        { name: 'a' },
        { name: 'b', replaces: 'a' },
        { name: 'b', skips: ['a'] },
        { name: 'c', skipRange: '<2.0.0' },
      ],
      versions({ a: '1.0.0', b: '1.1.0', c: '2.0.0' }),
    );
    expect(g.entry('b')?.replaces).toBe('a');
    expect(names(g.skipRangeCovers(g.entry('c') as never))).toEqual(['a', 'b', 'b']);
    expect(g.edgesInto(g.entry('c') as never).map((e) => e.from)).toEqual(['a', 'b']);
  });

  it('reads a model channel as its bundles, with their versions', () => {
    const bundle = (name: string, version: string): Bundle => ({
      schema: 'olm.bundle',
      package: 'p',
      name,
      image: `example.com/p:${version}`,
      properties: [{ type: 'olm.package', value: { packageName: 'p', version } }],
    });
    const cfg: DeclarativeConfig = {
      packages: [{ schema: 'olm.package', name: 'p', defaultChannel: 'c' }],
      channels: [
        {
          schema: 'olm.channel',
          package: 'p',
          name: 'c',
          entries: [
            { name: 'p.v1' },
            { name: 'p.v2', skipRange: '<2.0.0' },
            { name: 'p.v3', replaces: 'p.v2' },
          ],
        },
      ],
      bundles: [bundle('p.v1', '1.0.0'), bundle('p.v2', '2.0.0'), bundle('p.v3', '3.0.0')],
      deprecations: [],
      others: [],
    };
    const ch = convertToModel(cfg).model.get('p')?.channels.get('c');
    expect(ch).toBeDefined();
    if (ch === undefined) return;
    const g = ChannelGraph.fromModel(ch);
    expect(g.chain()).toEqual({ heads: ['p.v1', 'p.v3'], stranded: [] });
    expect([...g.reaching(['p.v3'])].sort()).toEqual(['p.v1', 'p.v2', 'p.v3']);
    const lookup = versionLookup(new Map(cfg.bundles.map((b) => [b.name, b])));
    expect(lookup('p.v3')).toEqual(parseSemver('3.0.0'));
    expect(lookup('absent')).toBeUndefined();
  });
});

describe('minimum edge', () => {
  const channel = (pkg: string, name: string, entries: ChannelEntry[]): Channel => ({
    schema: 'olm.channel',
    package: pkg,
    name,
    entries,
  });
  const vs = new Map(
    Object.entries({
      'a.v1': '1.0.0',
      'a.v2': '2.0.0',
      'a.v3': '3.0.0',
      'a.v4': '4.0.0',
      'b.v1': '1.0.0',
    }).map(([n, v]) => [n, parseSemver(v)]),
  );
  const stable = channel('a', 'stable', [
    { name: 'a.v1' },
    { name: 'a.v2', replaces: 'a.v1' },
    { name: 'a.v3', replaces: 'a.v2', skips: ['a.v1'], skipRange: '>=1.0.0 <3.0.0' },
    { name: 'a.v4', replaces: 'a.v3', skipRange: '<2.0.0' },
    { name: 'unversioned' },
  ]);
  const other = channel('b', 'alpha', [{ name: 'b.v1' }]);

  it('takes its floor from the bundle version and its package from the first channel listing it', () => {
    expect(minimumEdge('', [other, stable], vs)).toBeUndefined();
    expect(minimumEdge('a.v2', [other, stable], vs)).toEqual({
      name: 'a.v2',
      floor: parseSemver('2.0.0'),
      floorPackage: 'a',
    });
    expect(() => minimumEdge('nope', [stable], vs)).toThrow(OpmError);
    expect(() => minimumEdge('nope', [stable], vs)).toThrow('unknown minimum edge name: "nope"');
  });

  it('keeps the edges at or above the floor and drops the entries left without any', () => {
    const min = minimumEdge('a.v2', [stable, other], vs);
    expect(narrowChannel(stable, vs, '', min)?.entries).toEqual([
      // The minimum edge loses its edges; a.v1 (below the floor, with no edges) goes.
      { name: 'a.v2' },
      // The skip of a.v1 is below the floor; the skipRange includes 2.0.0.
      { name: 'a.v3', replaces: 'a.v2', skipRange: '>=1.0.0 <3.0.0' },
      // <2.0.0 does not include the floor.
      { name: 'a.v4', replaces: 'a.v3' },
    ]);
    // Another package's channels are left out; without a floor only the package narrows.
    expect(narrowChannel(other, vs, '', min)).toBeUndefined();
    expect(narrowChannel(other, vs, '', undefined)).toBe(other);
    expect(narrowChannel(other, vs, 'a', undefined)).toBeUndefined();
  });

  it('counts an entry without a version at zero, below any floor but 0.0.0', () => {
    const zero = new Map([...vs, ['a.v0', ZERO_VERSION]]);
    const ch = channel('a', 'stable', [{ name: 'a.v0' }, { name: 'unversioned' }]);
    expect(narrowChannel(ch, zero, '', minimumEdge('a.v0', [ch], zero))?.entries).toEqual([
      { name: 'a.v0' },
      { name: 'unversioned' },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// The searches against plain scans over generated channels

/** Whole numbers in [0, n) from a seeded generator, so that a failure can be replayed. */
function random(seed: number): (n: number) => number {
  const next = seededRandom(seed);
  return (n) => Math.floor(next() * n);
}

const RANGES = [
  '<1.2.0',
  '>=1.0.0 <1.3.0',
  '>1.1.0 <=2.0.0',
  '1.2.x',
  '<1.1.0 || >=2.0.0',
  '>=1.0.0 !=1.2.0 <2.1.0',
  '=1.1.0',
  '>=0.0.0',
  '<1.2.0-rc.2 || 2.x',
];
const VERSIONS = ['0.9.0', '1.0.0', '1.1.0', '1.2.0-rc.1', '1.2.0-rc.2', '1.2.0', '1.3.0', '2.0.0', '2.1.0'];

function generated(seed: number): { entries: ChannelEntry[]; versionOf: VersionOf } {
  const next = random(seed);
  const count = 5 + next(60);
  const vmap = new Map<string, SemVer>();
  const entries: ChannelEntry[] = [];
  for (let i = 0; i < count; i++) {
    const name = `b${i}`;
    // Some bundles have no version; versions repeat.
    if (next(8) !== 0) vmap.set(name, parseSemver(VERSIONS[next(VERSIONS.length)] as string));
    const e: ChannelEntry = { name };
    if (i > 0 && next(2) === 0) e.replaces = `b${next(i + 3)}`;
    if (next(3) === 0) e.skips = [`b${next(count)}`, `b${next(count)}`];
    if (next(3) === 0) e.skipRange = RANGES[next(RANGES.length)] as string;
    entries.push(e);
  }
  return { entries, versionOf: (n) => vmap.get(n) };
}

/** Reverse search from the heads testing every entry against every reached one. */
function naiveReaching(entries: readonly ChannelEntry[], heads: string[], versionOf: VersionOf): Set<string> {
  const byName = new Map<string, ChannelEntry>();
  for (const e of entries) if (!byName.has(e.name)) byName.set(e.name, e);
  const reached = new Set(heads.filter((h) => byName.has(h)));
  const queue = [...reached];
  for (let t = queue.shift(); t !== undefined; t = queue.shift()) {
    const y = byName.get(t) as ChannelEntry;
    const range = y.skipRange === undefined ? undefined : parseRange(y.skipRange);
    for (const x of entries) {
      if (reached.has(x.name)) continue;
      const v = versionOf(x.name);
      if (y.replaces === x.name || (y.skips ?? []).includes(x.name) || (range && v && range(v))) {
        reached.add(x.name);
        queue.push(x.name);
      }
    }
  }
  return reached;
}

describe('ChannelGraph against plain scans', () => {
  it('covers and reaches what testing every pair finds, over 100 generated channels', () => {
    for (let seed = 1; seed <= 100; seed++) {
      const { entries, versionOf } = generated(seed);
      const g = ChannelGraph.fromEntries(entries, versionOf);
      for (const e of g.entries) {
        const range = e.skipRange === '' ? undefined : parseRange(e.skipRange);
        const expected = entries.filter((x) => {
          const v = versionOf(x.name);
          return range !== undefined && v !== undefined && range(v);
        });
        expect(names(g.skipRangeCovers(e)), `seed ${seed}, ${e.name}`).toEqual(names(expected));
      }
      const heads = [`b${seed % entries.length}`, ...g.heads()];
      for (const h of [heads.slice(0, 1), heads]) {
        expect([...g.reaching(h)].sort(), `seed ${seed}, from ${h.join(',')}`).toEqual(
          [...naiveReaching(entries, h, versionOf)].sort(),
        );
      }
    }
  });

  it('hands each item out once over a search, and a range its matches in version order', () => {
    const next = random(7);
    const items = Array.from({ length: 300 }, (_, i) => ({
      item: i,
      version: parseSemver(VERSIONS[next(VERSIONS.length)] as string),
    }));
    const index = new VersionIndex(items);
    const take = index.search();
    const seen: number[] = [];
    for (const r of RANGES) {
      const set = parseRangeSet(r);
      const matching = index.matching(set);
      const predicate = parseRange(r);
      expect(matching.sort((a, b) => a - b)).toEqual(
        items.filter((x) => predicate(x.version)).map((x) => x.item),
      );
      take(set, (i) => seen.push(i));
    }
    expect(new Set(seen).size).toBe(seen.length);
    const any = RANGES.map(parseRange);
    expect(seen.sort((a, b) => a - b)).toEqual(
      items.filter((x) => any.some((p) => p(x.version))).map((x) => x.item),
    );
    expect(index.someMatching(parseRangeSet('1.2.x'), (i) => i > 290)).toBe(
      items.some((x) => x.item > 290 && parseRange('1.2.x')(x.version)),
    );
  });
});
