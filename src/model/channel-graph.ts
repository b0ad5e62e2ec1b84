/**
 * A channel's upgrade graph, built once from its entries and its bundles' versions: the edges OLM
 * follows (an entry upgrades from what it replaces, what it skips, and every version its skipRange
 * matches), opm's heads and replaces-chain walk, which bundles a skipRange covers, which bundles
 * reach a head, and the `--minimum-edge` floor of the graph writers.
 *
 * Nothing here formats output. Work stays near linear on channels of thousands of entries: a
 * skipRange is matched by binary search over the versions sorted once (ranges are alternatives of
 * bounds), and a reachability search takes each bundle from that order once.
 */
import type { Bundle, Channel, ChannelEntry } from '../declcfg/types.js';
import { OpmError } from '../errors.js';
import { goQuote } from '../go/fmt.js';
import { compareUtf8 } from '../go/utf8.js';
import { bundleVersion } from './bundle-version.js';
import type { ModelChannel } from './model.js';
import {
  SemverError,
  compareSemver,
  comparisonHolds,
  parseRangeSet,
  rangeSetMatches,
  type RangeSet,
  type SemVer,
} from './semver.js';

/** The version a bundle without one is drawn at by the graph writers (opm's zero `semver.Version`). */
export const ZERO_VERSION: SemVer = { major: 0n, minor: 0n, patch: 0n, pre: [], build: [] };

/** A bundle's version by name; undefined when it has none (missing bundle, invalid version). */
export type VersionOf = (name: string) => SemVer | undefined;

/** `versionOf`, with the zero version for a bundle that has none (as opm's graph writers count it). */
export function orZero(versionOf: VersionOf): (name: string) => SemVer {
  return (name) => versionOf(name) ?? ZERO_VERSION;
}

/** What the graph reads of a channel entry; both `ChannelEntry` and `ModelBundle` are one. */
export interface EntryEdges {
  name: string;
  replaces?: string | undefined;
  skips?: readonly string[] | undefined;
  skipRange?: string | undefined;
}

export type EdgeKind = 'replaces' | 'skips' | 'skipRange';

/** An upgrade edge: users on `from` may upgrade to `to`. */
export interface UpgradeEdge {
  from: string;
  to: string;
  kind: EdgeKind;
}

/** An entry of the graph ('' for no replaces or skipRange); a `ModelBundle` is one as it is. */
export interface GraphEntry {
  readonly name: string;
  readonly replaces: string;
  readonly skips: readonly string[];
  readonly skipRange: string;
}

/** opm's view of a channel's replaces chain (Channel.Head and validateReplacesChain). */
export interface ChainAnalysis {
  /** Bundles nothing replaces or skips, in byte order. */
  heads: string[];
  /** When a cycle was met: the path from the repeated bundle back to it. */
  cycle?: string[];
  stranded: string[];
  /** The last bundle reached along `replaces` from the head, and what it replaces ('' for none). */
  tail?: { name: string; replaces: string };
}

/** Parsed skipRange: the range, or blang's error text. */
type ParsedRange = { set: RangeSet } | { error: string };

function parseSkipRange(text: string): ParsedRange {
  try {
    return { set: parseRangeSet(text) };
  } catch (e) {
    if (e instanceof SemverError) return { error: e.message };
    throw e;
  }
}

/**
 * Items ordered by version, so that the items a range matches are found by binary search on its
 * bounds. A search (`search()`) hands out each item once over all its ranges.
 */
export class VersionIndex<T> {
  private readonly items: T[];
  private readonly versions: SemVer[];

  constructor(entries: Iterable<{ item: T; version: SemVer }>) {
    const sorted = [...entries]
      .map((e, i) => ({ ...e, i }))
      .sort((a, b) => compareSemver(a.version, b.version) || a.i - b.i);
    this.items = sorted.map((e) => e.item);
    this.versions = sorted.map((e) => e.version);
  }

  /** The first position whose version is above `v` (`strict`) or at least `v`. */
  private firstAbove(v: SemVer, strict: boolean): number {
    let lo = 0;
    let hi = this.versions.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = compareSemver(this.versions[mid] as SemVer, v);
      if (c > 0 || (c === 0 && !strict)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** The positions [from, to) that can hold versions of one alternative of a range. */
  private span(alt: RangeSet[number]): [number, number] {
    let from = 0;
    let to = this.versions.length;
    for (const c of alt) {
      if (c.op === '>=' || c.op === '=') from = Math.max(from, this.firstAbove(c.version, false));
      if (c.op === '>') from = Math.max(from, this.firstAbove(c.version, true));
      if (c.op === '<=' || c.op === '=') to = Math.min(to, this.firstAbove(c.version, true));
      if (c.op === '<') to = Math.min(to, this.firstAbove(c.version, false));
    }
    return [from, to];
  }

  /** Whether the version at `i` satisfies every comparison of `alt` (the span leaves `!=` out). */
  private holds(i: number, alt: RangeSet[number]): boolean {
    const v = this.versions[i] as SemVer;
    return alt.every((c) => comparisonHolds(v, c));
  }

  /** The items `set` matches, in version order. */
  matching(set: RangeSet): T[] {
    if (set.length === 1) {
      const alt = set[0] as RangeSet[number];
      const [from, to] = this.span(alt);
      const out: T[] = [];
      for (let i = from; i < to; i++) if (this.holds(i, alt)) out.push(this.items[i] as T);
      return out;
    }
    const hit = new Set<number>();
    for (const alt of set) {
      const [from, to] = this.span(alt);
      for (let i = from; i < to; i++) if (this.holds(i, alt)) hit.add(i);
    }
    return [...hit].sort((a, b) => a - b).map((i) => this.items[i] as T);
  }

  /** Whether `set` matches an item for which `accept` holds. */
  someMatching(set: RangeSet, accept: (item: T) => boolean): boolean {
    for (const alt of set) {
      const [from, to] = this.span(alt);
      for (let i = from; i < to; i++) if (this.holds(i, alt) && accept(this.items[i] as T)) return true;
    }
    return false;
  }

  /**
   * A search over the items: each call of the returned function hands to `visit` the items the
   * range matches that no earlier call of this search handed out. Over a whole search every item is
   * handed out once, so it costs the items plus a binary search a range.
   */
  search(): (set: RangeSet, visit: (item: T) => void) => void {
    // The next position not yet handed out at or after each position (path-halved); one slot past
    // the end stands for "none left".
    const next = Int32Array.from({ length: this.items.length + 1 }, (_, i) => i);
    const free = (i: number): number => {
      let j = i;
      while (next[j] !== j) {
        const after = next[j] as number;
        next[j] = next[after] as number;
        j = after;
      }
      return j;
    };
    return (set, visit) => {
      for (const alt of set) {
        const [from, to] = this.span(alt);
        for (let i = free(from); i < to; i = free(i + 1)) {
          // A position a `!=` leaves out stays free for other ranges.
          if (!this.holds(i, alt)) continue;
          next[i] = i + 1;
          visit(this.items[i] as T);
        }
      }
    };
  }
}

/** The graph of one channel. Build it with `ChannelGraph.fromEntries` or `ChannelGraph.fromModel`. */
export class ChannelGraph {
  /** Every entry, in channel order (a name listed twice is there twice). */
  readonly entries: readonly GraphEntry[];
  private readonly byName: ReadonlyMap<string, GraphEntry>;
  private readonly versionOf: VersionOf;
  private readonly ranges = new Map<GraphEntry, ParsedRange>();
  /** Positions in `entries` of the entries with a version, by version. */
  private index: VersionIndex<number> | undefined;
  private successors: Map<string, GraphEntry[]> | undefined;

  private constructor(
    entries: readonly GraphEntry[],
    byName: ReadonlyMap<string, GraphEntry>,
    versionOf: VersionOf,
  ) {
    this.entries = entries;
    this.byName = byName;
    this.versionOf = versionOf;
  }

  /**
   * The graph of a channel's entries. The first entry of a name is the one the graph follows (as
   * opm's model keeps it). `versionOf` gives versions for skipRange matches; pass `orZero(…)` to
   * count bundles without a version as 0.0.0.
   */
  static fromEntries(entries: Iterable<EntryEdges>, versionOf: VersionOf = () => undefined): ChannelGraph {
    const list: GraphEntry[] = [];
    const byName = new Map<string, GraphEntry>();
    for (const e of entries) {
      const g: GraphEntry = {
        name: e.name,
        replaces: e.replaces ?? '',
        skips: e.skips ?? [],
        skipRange: e.skipRange ?? '',
      };
      list.push(g);
      if (!byName.has(g.name)) byName.set(g.name, g);
    }
    return new ChannelGraph(list, byName, versionOf);
  }

  /** The graph of a model channel (its bundles are its entries), with the bundles' own versions. */
  static fromModel(ch: ModelChannel): ChannelGraph {
    return new ChannelGraph([...ch.bundles.values()], ch.bundles, (n) => ch.bundles.get(n)?.version);
  }

  /** The (first) entry of a name. */
  entry(name: string): GraphEntry | undefined {
    return this.byName.get(name);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  private parsed(e: GraphEntry): ParsedRange | undefined {
    if (e.skipRange === '') return undefined;
    let p = this.ranges.get(e);
    if (p === undefined) this.ranges.set(e, (p = parseSkipRange(e.skipRange)));
    return p;
  }

  /** The entry's skipRange parsed; undefined when it has none or it does not parse. */
  skipRangeOf(e: GraphEntry): RangeSet | undefined {
    const p = this.parsed(e);
    return p !== undefined && 'set' in p ? p.set : undefined;
  }

  /** blang's error text for an entry's skipRange that does not parse. */
  skipRangeError(e: GraphEntry): string | undefined {
    const p = this.parsed(e);
    return p !== undefined && 'error' in p ? p.error : undefined;
  }

  /** The entries that have a version, ordered by it (built when first needed). */
  private versionIndex(): VersionIndex<number> {
    if (this.index === undefined) {
      const items: { item: number; version: SemVer }[] = [];
      this.entries.forEach((e, item) => {
        const version = this.versionOf(e.name);
        if (version !== undefined) items.push({ item, version });
      });
      this.index = new VersionIndex(items);
    }
    return this.index;
  }

  /**
   * The entries that upgrade from `name` by replacing or skipping it, in channel order (an entry
   * that does both, once; of a name listed twice, the first entry, as everywhere in the graph).
   */
  replacedBy(name: string): GraphEntry[] {
    if (this.successors === undefined) {
      const m = new Map<string, GraphEntry[]>();
      for (const e of this.byName.values()) {
        const from = new Set<string>(e.skips);
        if (e.replaces !== '') from.add(e.replaces);
        for (const n of from) {
          const list = m.get(n);
          if (list === undefined) m.set(n, [e]);
          else list.push(e);
        }
      }
      this.successors = m;
    }
    return this.successors.get(name) ?? [];
  }

  /**
   * The entries whose version `e`'s skipRange matches, in channel order (itself included when it
   * matches; a name listed twice, twice). Empty without a skipRange or when it does not parse.
   */
  skipRangeCovers(e: GraphEntry): GraphEntry[] {
    const set = this.skipRangeOf(e);
    if (set === undefined) return [];
    return this.versionIndex()
      .matching(set)
      .sort((a, b) => a - b)
      .map((i) => this.entries[i] as GraphEntry);
  }

  /**
   * The edges into `to`: its replaces, its skips in order, then what its skipRange covers in
   * channel order (itself left out, each name once). Names outside the channel are kept for
   * replaces and skips (a graph may draw them); a skipRange covers only entries.
   */
  edgesInto(to: GraphEntry): UpgradeEdge[] {
    const out: UpgradeEdge[] = [];
    if (to.replaces !== '') out.push({ from: to.replaces, to: to.name, kind: 'replaces' });
    for (const s of to.skips) out.push({ from: s, to: to.name, kind: 'skips' });
    const seen = new Set<string>([to.name]);
    for (const c of this.skipRangeCovers(to)) {
      if (seen.has(c.name)) continue;
      seen.add(c.name);
      out.push({ from: c.name, to: to.name, kind: 'skipRange' });
    }
    return out;
  }

  /** Bundles nothing in the channel replaces or skips, in byte order (opm's heads). */
  heads(): string[] {
    return this.headsAndSkipped().heads;
  }

  private headsAndSkipped(): { heads: string[]; skipped: Set<string> } {
    const incoming = new Set<string>();
    const skipped = new Set<string>();
    for (const b of this.byName.values()) {
      if (b.replaces !== '') incoming.add(b.replaces);
      for (const s of b.skips) {
        incoming.add(s);
        skipped.add(s);
      }
    }
    const heads = [...this.byName.keys()].filter((n) => !incoming.has(n)).sort(compareUtf8);
    return { heads, skipped };
  }

  /**
   * opm's Channel.Head and validateReplacesChain: heads (no incoming replaces or skips edge), then,
   * with exactly one head, the walk along replaces, a cycle met on it, and the stranded bundles
   * (neither on the walk nor skipped).
   */
  chain(): ChainAnalysis {
    const { heads, skipped } = this.headsAndSkipped();
    const onlyHead = heads[0];
    if (heads.length !== 1 || onlyHead === undefined) return { heads, stranded: [] };
    const path: string[] = [onlyHead];
    const reached = new Set<string>([onlyHead]);
    let cur = this.byName.get(onlyHead);
    let tail: { name: string; replaces: string } | undefined;
    while (cur !== undefined) {
      const next = cur.replaces;
      tail = { name: cur.name, replaces: next };
      if (next === '') break;
      if (reached.has(next)) {
        return { heads, cycle: [...path.slice(path.indexOf(next)), next], stranded: [], tail };
      }
      reached.add(next);
      path.push(next);
      // A replaced bundle that is also skipped ends the chain (opm's rule).
      if (skipped.has(next)) break;
      cur = this.byName.get(next);
    }
    const stranded = [...this.byName.keys()]
      .filter((n) => !reached.has(n) && !skipped.has(n))
      .sort(compareUtf8);
    return tail === undefined ? { heads, stranded } : { heads, stranded, tail };
  }

  /**
   * The head users upgrade to: the only head, or, in a channel with several (which does not
   * validate), the one with the highest version; undefined when every entry is replaced.
   */
  head(): string | undefined {
    const heads = this.heads();
    return heads.length === 0 ? undefined : highestVersion(heads, this.versionOf);
  }

  /**
   * The names of the entries with a path to one of `heads` along upgrade edges (the heads that are
   * entries included). Each entry is reached once: through a replaces or skips of an entry
   * reached, or through its skipRange.
   */
  reaching(heads: readonly string[]): Set<string> {
    const reached = new Set<string>();
    const queue: GraphEntry[] = [];
    const reach = (e: GraphEntry | undefined): void => {
      if (e === undefined || reached.has(e.name)) return;
      reached.add(e.name);
      queue.push(e);
    };
    for (const h of heads) reach(this.byName.get(h));
    const take = this.versionIndex().search();
    for (let target = queue.pop(); target !== undefined; target = queue.pop()) {
      if (target.replaces !== '') reach(this.byName.get(target.replaces));
      for (const s of target.skips) reach(this.byName.get(s));
      const set = this.skipRangeOf(target);
      if (set !== undefined) take(set, (i) => reach(this.byName.get(this.entries[i]?.name ?? '')));
    }
    return reached;
  }
}

/** The name with the highest version (ties, and names without a version: the greatest name). */
export function highestVersion(names: readonly string[], versionOf: VersionOf): string {
  let best = names[0] ?? '';
  for (const n of names.slice(1)) {
    const a = versionOf(n);
    const b = versionOf(best);
    const c = a !== undefined && b !== undefined ? compareSemver(a, b) : 0;
    if (c > 0 || (c === 0 && compareUtf8(n, best) > 0)) best = n;
  }
  return best;
}

/** Versions of bundles by name, parsed when first asked; undefined for a missing or invalid one. */
export function versionLookup(bundles: ReadonlyMap<string, Bundle>): VersionOf {
  const cache = new Map<string, SemVer | undefined>();
  return (name) => {
    if (cache.has(name)) return cache.get(name);
    const b = bundles.get(name);
    let v: SemVer | undefined;
    if (b !== undefined) {
      try {
        v = bundleVersion(b).version;
      } catch {
        v = undefined;
      }
    }
    cache.set(name, v);
    return v;
  };
}

// ---------------------------------------------------------------------------------------------
// The minimum edge of the graph writers (`alpha render-graph --minimum-edge`)

/** The lower bound of drawn edges: the version of the named bundle and the package that lists it. */
export interface MinimumEdge {
  name: string;
  floor: SemVer;
  /** The package of the first channel (by name) listing the bundle ('' when none does). */
  floorPackage: string;
}

/**
 * The minimum edge `name` among `channels` (sorted by name), its version from `versions`; none
 * for ''. A name without a version is opm's "unknown minimum edge name" error.
 */
export function minimumEdge(
  name: string,
  channels: readonly Channel[],
  versions: ReadonlyMap<string, SemVer>,
): MinimumEdge | undefined {
  if (name === '') return undefined;
  const floor = versions.get(name);
  if (floor === undefined) throw new OpmError(`unknown minimum edge name: ${goQuote(name)}`);
  const owner = channels.find((c) => (c.entries ?? []).some((e) => e.name === name));
  return { name, floor, floorPackage: owner?.package ?? '' };
}

/**
 * A channel narrowed as the graph writers narrow it: to `packageName` ('' = any), and to edges at
 * or above the minimum edge. The minimum-edge entry loses its edges; other entries keep a replaces
 * or skip at or above the floor and a skipRange that includes it; an entry left without edges
 * stays only if it never had any and is itself at or above the floor. Versions missing from
 * `versions` count as zero. Undefined when nothing of the channel is left.
 */
export function narrowChannel(
  c: Channel,
  versions: ReadonlyMap<string, SemVer>,
  packageName: string,
  min: MinimumEdge | undefined,
): Channel | undefined {
  if (packageName !== '' && c.package !== packageName) return undefined;
  if (min === undefined) return c;
  if (c.package !== min.floorPackage) return undefined;
  const atLeastFloor = (name: string): boolean =>
    compareSemver(versions.get(name) ?? ZERO_VERSION, min.floor) >= 0;
  const out: ChannelEntry[] = [];
  for (const e of c.entries ?? []) {
    if (e.name === min.name) {
      out.push({ name: e.name });
      continue;
    }
    const kept: ChannelEntry = { name: e.name };
    if (e.replaces !== undefined && e.replaces !== '' && atLeastFloor(e.replaces)) kept.replaces = e.replaces;
    const skips = (e.skips ?? []).filter(atLeastFloor);
    if (skips.length > 0) kept.skips = skips;
    if (e.skipRange !== undefined && e.skipRange !== '') {
      const r = parseSkipRange(e.skipRange);
      if ('set' in r && rangeSetMatches(r.set, min.floor)) kept.skipRange = e.skipRange;
    }
    const hasEdges = kept.replaces !== undefined || kept.skips !== undefined || kept.skipRange !== undefined;
    const hadEdges =
      (e.replaces !== undefined && e.replaces !== '') ||
      (e.skips !== undefined && e.skips.length > 0) ||
      (e.skipRange !== undefined && e.skipRange !== '');
    if (hasEdges || (!hadEdges && atLeastFloor(e.name))) out.push(kept);
  }
  if (out.length === 0) return undefined;
  return { ...c, entries: out };
}

/** `narrowChannel` over `channels`, the channels left grouped by package (in the order given). */
export function narrowChannels(
  channels: readonly Channel[],
  versions: ReadonlyMap<string, SemVer>,
  packageName: string,
  min: MinimumEdge | undefined,
): Map<string, Channel[]> {
  const byPackage = new Map<string, Channel[]>();
  for (const c of channels) {
    const f = narrowChannel(c, versions, packageName, min);
    if (f === undefined) continue;
    const list = byPackage.get(f.package);
    if (list === undefined) byPackage.set(f.package, [f]);
    else list.push(f);
  }
  return byPackage;
}
