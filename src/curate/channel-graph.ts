/**
 * Channel entries seen as an upgrade graph, for the catalog operations: the validator's chain
 * analysis over bare entries, and the edges OLM follows (an entry upgrades from what it replaces,
 * what it skips, and every version its skipRange matches).
 */
import type { Bundle, ChannelEntry } from '../declcfg/types.js';
import { bundleVersion } from '../model/bundle-version.js';
import { entryBundle, type ModelChannel, type ModelPackage } from '../model/model.js';
import { analyzeChain, type ChainAnalysis } from '../model/validate.js';
import { compareSemver, parseRange, type SemVer, type SemverRange } from '../model/semver.js';
import { compareUtf8 } from '../go/utf8.js';

/** A model channel holding only the graph of `entries`, so that the validator's analysis applies. */
function graphChannel(entries: readonly ChannelEntry[]): ModelChannel {
  const pkg: ModelPackage = { name: '', description: '', defaultChannelName: '', channels: new Map() };
  const ch: ModelChannel = { package: pkg, name: '', bundles: new Map(), properties: [], synthesized: false };
  for (const e of entries) {
    const b = entryBundle(pkg, ch, e);
    ch.bundles.set(e.name, b);
  }
  return ch;
}

/** Heads, replaces-chain walk and stranded bundles of a channel's entries, as `opm validate` sees them. */
export function analyzeEntries(entries: readonly ChannelEntry[]): ChainAnalysis {
  return analyzeChain(graphChannel(entries));
}

function rangeOf(text: string | undefined): SemverRange | undefined {
  if (text === undefined || text === '') return undefined;
  try {
    return parseRange(text);
  } catch {
    // An invalid skipRange matches nothing (the validator reports it).
    return undefined;
  }
}

/** An entry with its skipRange parsed once. */
export interface GraphEntry {
  name: string;
  replaces: string;
  skips: readonly string[];
  range: SemverRange | undefined;
}

export function graphEntries(entries: readonly ChannelEntry[]): GraphEntry[] {
  return entries.map((e) => ({
    name: e.name,
    replaces: e.replaces ?? '',
    skips: e.skips ?? [],
    range: rangeOf(e.skipRange),
  }));
}

/** Whether `to` upgrades from a bundle named `name` at `version` (by replaces, skips or skipRange). */
export function upgradesFrom(to: GraphEntry, name: string, version: SemVer | undefined): boolean {
  if (to.replaces === name || to.skips.includes(name)) return true;
  return version !== undefined && to.range !== undefined && to.range(version);
}

/**
 * The names of the entries that have a path to one of `heads` along upgrade edges (the heads
 * included). `versionOf` gives each entry's version, for skipRange edges.
 */
export function reachingHeads(
  entries: readonly GraphEntry[],
  heads: readonly string[],
  versionOf: (name: string) => SemVer | undefined,
): Set<string> {
  const byName = new Map(entries.map((e) => [e.name, e]));
  const reached = new Set<string>(heads.filter((h) => byName.has(h)));
  const queue = [...reached];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const target = byName.get(next);
    if (target === undefined) continue;
    for (const e of entries) {
      if (reached.has(e.name)) continue;
      if (upgradesFrom(target, e.name, versionOf(e.name))) {
        reached.add(e.name);
        queue.push(e.name);
      }
    }
  }
  return reached;
}

/** Versions of bundles by name, parsed when first asked; undefined for a missing or invalid one. */
export function versionLookup(bundles: ReadonlyMap<string, Bundle>): (bundle: string) => SemVer | undefined {
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

/** The name with the highest version (ties, and names without a version: the greatest name). */
export function highestVersion(
  names: readonly string[],
  versionOf: (b: string) => SemVer | undefined,
): string {
  let best = names[0] ?? '';
  for (const n of names.slice(1)) {
    const a = versionOf(n);
    const b = versionOf(best);
    const c = a !== undefined && b !== undefined ? compareSemver(a, b) : 0;
    if (c > 0 || (c === 0 && compareUtf8(n, best) > 0)) best = n;
  }
  return best;
}

/**
 * The head users of a channel upgrade to: its only head, or, in a channel with several (which
 * does not validate), the one with the highest version; undefined when every entry is replaced.
 */
export function channelHead(
  entries: readonly ChannelEntry[],
  versionOf: (b: string) => SemVer | undefined,
): string | undefined {
  const heads = analyzeEntries(entries).heads;
  return heads.length === 0 ? undefined : highestVersion(heads, versionOf);
}
