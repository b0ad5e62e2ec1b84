/**
 * Filtering a catalog down to some packages, channels and version ranges, so that the result still
 * validates: entries of dropped bundles go, `replaces` that point at dropped bundles are rewritten
 * to the nearest kept bundle they replaced (or removed), `skips` of dropped bundles are removed,
 * kept bundles cut off from the head by the filter are linked to the nearest kept bundle that
 * upgraded from them (by a `skips` entry), and deprecations of dropped bundles and channels go.
 * Every such edit is returned as a sentence, for `--verbose`.
 */
import { OpmError } from '../errors.js';
import { expectConfig, expectObject } from '../util/args.js';
import type {
  Bundle,
  Channel,
  ChannelEntry,
  DeclarativeConfig,
  Deprecation,
  DeprecationEntry,
  Package,
} from '../declcfg/types.js';
import { compareUtf8 } from '../go/utf8.js';
import { convertToModel } from '../model/convert.js';
import { compareSemver } from '../model/semver.js';
import {
  ChannelGraph,
  highestVersion,
  versionLookup,
  type ChainAnalysis,
  type VersionOf,
} from '../model/channel-graph.js';
import type { FilterSpec, PackageSelection, VersionBound } from './filter-config.js';

export interface FilterResult {
  config: DeclarativeConfig;
  /** What was changed beyond dropping whole packages, one sentence each, in output order. */
  edits: string[];
}

interface Range {
  min?: VersionBound | undefined;
  max?: VersionBound | undefined;
}

function rangeText(r: Range): string {
  if (r.min && r.max) return `${r.min.text} to ${r.max.text}`;
  if (r.min) return `${r.min.text} and above`;
  if (r.max) return `up to ${r.max.text}`;
  return 'any version';
}

const byName = (a: { name: string }, b: { name: string }): number => compareUtf8(a.name, b.name);

/** A package's blobs, gathered once. */
interface PackageBlobs {
  pkg: Package;
  channels: Channel[];
  bundles: Map<string, Bundle>;
}

function indexPackages(cfg: DeclarativeConfig): Map<string, PackageBlobs> {
  const out = new Map<string, PackageBlobs>();
  for (const p of cfg.packages) {
    if (!out.has(p.name)) out.set(p.name, { pkg: p, channels: [], bundles: new Map() });
  }
  for (const c of cfg.channels) out.get(c.package)?.channels.push(c);
  for (const b of cfg.bundles) {
    const blobs = out.get(b.package);
    if (blobs !== undefined && !blobs.bundles.has(b.name)) blobs.bundles.set(b.name, b);
  }
  return out;
}

/** Filter `cfg` as `spec` says. Throws OpmError naming the package, channel or range that keeps nothing. */
export function filterCatalog(cfg: DeclarativeConfig, spec: FilterSpec): FilterResult {
  expectConfig(cfg, 'filterCatalog(cfg)');
  expectObject(spec, 'filterCatalog(cfg, spec)', "{ packages: [{ name: 'etcd' }], headsOnly: false }");
  if (!Array.isArray(spec.packages))
    throw new TypeError('filterCatalog(cfg, spec).packages must be an array');
  spec.packages.forEach((p: unknown, i) => {
    const sel = p as Partial<PackageSelection> | null;
    if (
      typeof sel !== 'object' ||
      sel === null ||
      typeof sel.name !== 'string' ||
      !Array.isArray(sel.channels)
    ) {
      throw new TypeError(
        `filterCatalog(cfg, spec).packages[${i}] must be a PackageSelection ({ name, channels: [], origin }); to select packages by name, use filter({ ref, packages: [name] })`,
      );
    }
  });
  const index = indexPackages(cfg);
  const selections: PackageSelection[] =
    spec.packages.length > 0
      ? spec.packages
      : [...index.keys()]
          .sort(compareUtf8)
          .map((name) => ({ name, channels: [], origin: 'the whole catalog' }));
  const edits: string[] = [];
  const out: DeclarativeConfig = { packages: [], channels: [], bundles: [], deprecations: [], others: [] };
  const kept = new Set<string>();
  for (const sel of selections) {
    const blobs = index.get(sel.name);
    if (blobs === undefined) {
      const hint = index.size > 0 ? undefined : 'the catalog has no packages';
      throw new OpmError(`package "${sel.name}" (${sel.origin}) is not in the catalog`, {
        ...(hint === undefined ? {} : { hint }),
      });
    }
    kept.add(sel.name);
    filterPackage(blobs, sel, spec.headsOnly, out, edits);
  }
  const droppedPackages = [...index.keys()].filter((p) => !kept.has(p)).sort(compareUtf8);
  if (droppedPackages.length > 0) edits.unshift(`dropped packages: ${droppedPackages.join(', ')}`);
  for (const d of cfg.deprecations) {
    if (!kept.has(d.package)) continue;
    const filtered = filterDeprecation(d, out, edits);
    if (filtered !== undefined) out.deprecations.push(filtered);
  }
  // Blobs of other schemas stay with their package; package-less ones belong to the whole catalog.
  out.others = cfg.others.filter((o) => o.package === '' || kept.has(o.package));
  checkValid(out);
  return { config: out, edits };
}

interface ChosenChannel {
  channel: Channel;
  range: Range;
  origin: string;
}

function chooseChannels(blobs: PackageBlobs, sel: PackageSelection, headsOnly: boolean): ChosenChannel[] {
  const name = sel.name;
  const find = (channel: string, origin: string): Channel => {
    const found = blobs.channels.find((c) => c.name === channel);
    if (found !== undefined) return found;
    const names = blobs.channels.map((c) => c.name).sort(compareUtf8);
    throw new OpmError(`channel "${channel}" of package "${name}" (${origin}) is not in the catalog`, {
      hint: names.length > 0 ? `its channels are ${names.join(', ')}` : 'the package has no channels',
    });
  };
  const pkgRange: Range = { min: sel.minVersion, max: sel.maxVersion };
  if (sel.channels.length > 0) {
    return sel.channels.map((c) => ({
      channel: find(c.name, c.origin),
      range: c.minVersion || c.maxVersion ? { min: c.minVersion, max: c.maxVersion } : pkgRange,
      origin: c.origin,
    }));
  }
  // As oc-mirror: a version range or heads only, without channels, is about the default channel.
  if (sel.minVersion || sel.maxVersion || headsOnly) {
    const dc = blobs.pkg.defaultChannel;
    if (dc === '') {
      throw new OpmError(`package "${name}" has no default channel to filter (${sel.origin})`, {
        hint: 'name its channels',
      });
    }
    return [{ channel: find(dc, sel.origin), range: pkgRange, origin: sel.origin }];
  }
  return [...blobs.channels]
    .sort(byName)
    .map((channel) => ({ channel, range: pkgRange, origin: sel.origin }));
}

function filterPackage(
  blobs: PackageBlobs,
  sel: PackageSelection,
  headsOnly: boolean,
  out: DeclarativeConfig,
  edits: string[],
): void {
  const name = sel.name;
  const chosen = chooseChannels(blobs, sel, headsOnly);
  const keptChannels = new Set(chosen.map((c) => c.channel.name));
  let defaultChannel = blobs.pkg.defaultChannel;
  if (sel.defaultChannel !== undefined) {
    if (!keptChannels.has(sel.defaultChannel)) {
      throw new OpmError(
        `defaultChannel "${sel.defaultChannel}" of package "${name}" (${sel.origin}) is not a kept channel`,
        { hint: `kept channels: ${[...keptChannels].sort(compareUtf8).join(', ')}` },
      );
    }
    if (sel.defaultChannel !== defaultChannel) {
      edits.push(
        `package "${name}": default channel "${defaultChannel}" -> "${sel.defaultChannel}" (defaultChannel in ${sel.origin})`,
      );
    }
    defaultChannel = sel.defaultChannel;
  } else if (!keptChannels.has(defaultChannel)) {
    throw new OpmError(
      `package "${name}": its default channel "${defaultChannel}" is dropped by ${sel.origin}, which keeps channels ${[
        ...keptChannels,
      ]
        .sort(compareUtf8)
        .join(', ')}`,
      {
        hint: `keep channel "${defaultChannel}" too, or set defaultChannel for package "${name}" in --config`,
      },
    );
  }
  const droppedChannels = blobs.channels
    .map((c) => c.name)
    .filter((c) => !keptChannels.has(c))
    .sort(compareUtf8);
  if (droppedChannels.length > 0) {
    edits.push(`package "${name}": dropped channels ${droppedChannels.join(', ')}`);
  }
  const pkg: Package =
    defaultChannel === blobs.pkg.defaultChannel ? blobs.pkg : { ...blobs.pkg, defaultChannel };
  out.packages.push(pkg);

  const versionOf = versionLookup(blobs.bundles);
  const keptBundles = new Set<string>();
  for (const c of chosen) {
    const ch = c.channel;
    const where = `package "${name}", channel "${ch.name}"`;
    const entries = ch.entries ?? [];
    if (entries.length === 0) {
      throw new OpmError(`${where} (${c.origin}) has no entries to keep`);
    }
    let keep = selectRange(entries, c.range, versionOf, where);
    if (keep.size === 0) {
      throw new OpmError(`${where}: no bundle is in the version range ${rangeText(c.range)} (${c.origin})`, {
        hint: 'widen minVersion/maxVersion',
      });
    }
    let repaired = repairChannel(entries, keep, versionOf, where);
    if (headsOnly) {
      const head = ChannelGraph.fromEntries(repaired.entries).heads()[0];
      if (head === undefined) throw new OpmError(`${where} has no head`);
      keep = new Set([head]);
      repaired = repairChannel(entries, keep, versionOf, where);
    }
    const dropped = entries.map((e) => e.name).filter((n) => !keep.has(n));
    if (dropped.length > 0) {
      const why = headsOnly ? '--heads-only' : `version range ${rangeText(c.range)}`;
      edits.push(`${where}: dropped entries ${dropped.join(', ')} (${why})`);
    }
    edits.push(...repaired.edits);
    for (const e of repaired.entries) keptBundles.add(e.name);
    out.channels.push({ ...ch, entries: repaired.entries });
  }
  for (const b of [...blobs.bundles.values()].sort(byName)) {
    if (keptBundles.has(b.name)) out.bundles.push(b);
  }
}

function selectRange(
  entries: readonly ChannelEntry[],
  range: Range,
  versionOf: VersionOf,
  where: string,
): Set<string> {
  if (range.min === undefined && range.max === undefined) return new Set(entries.map((e) => e.name));
  const keep = new Set<string>();
  for (const e of entries) {
    const v = versionOf(e.name);
    if (v === undefined) {
      throw new OpmError(`${where}: bundle "${e.name}" has no valid version to compare with the range`, {
        hint: 'run "opm validate" on the catalog',
      });
    }
    if (range.min !== undefined && compareSemver(v, range.min.version) < 0) continue;
    if (range.max !== undefined && compareSemver(v, range.max.version) > 0) continue;
    keep.add(e.name);
  }
  return keep;
}

/**
 * The kept entries of a channel with their edges rewritten so that the channel validates and every
 * kept bundle still upgrades, step by step, to the head.
 */
function repairChannel(
  entries: readonly ChannelEntry[],
  keep: ReadonlySet<string>,
  versionOf: VersionOf,
  where: string,
): { entries: ChannelEntry[]; edits: string[] } {
  const edits: string[] = [];
  const original = ChannelGraph.fromEntries(entries);
  const out: ChannelEntry[] = [];
  for (const e of entries) {
    if (!keep.has(e.name)) continue;
    const copy: ChannelEntry = { ...e };
    if (e.skips !== undefined) copy.skips = [...e.skips];
    const r = e.replaces;
    if (r !== undefined && r !== '' && !keep.has(r) && original.has(r)) {
      const seen = new Set<string>();
      let a = r;
      while (a !== '' && original.has(a) && !keep.has(a) && !seen.has(a)) {
        seen.add(a);
        a = original.entry(a)?.replaces ?? '';
      }
      if (keep.has(a)) {
        copy.replaces = a;
        edits.push(`${where}: "${e.name}" replaces "${r}" -> "${a}" ("${r}" is not kept)`);
      } else {
        delete copy.replaces;
        edits.push(
          `${where}: "${e.name}" no longer replaces "${r}" (neither it nor what it replaced is kept)`,
        );
      }
    }
    if (copy.skips !== undefined) {
      const removed = copy.skips.filter((s) => !keep.has(s) && original.has(s));
      if (removed.length > 0) {
        copy.skips = copy.skips.filter((s) => keep.has(s) || !original.has(s));
        edits.push(
          `${where}: "${e.name}" no longer skips ${removed.map((s) => `"${s}"`).join(', ')} (not kept)`,
        );
        if (copy.skips.length === 0) delete copy.skips;
      }
    }
    out.push(copy);
  }
  const byOutName = new Map(out.map((e) => [e.name, e]));
  // Whether `to` is on the replaces chain that starts at `from` (a replaces edge back would loop).
  const chainReaches = (from: string, to: string): boolean => {
    const seen = new Set<string>();
    for (let n: string | undefined = from; n !== undefined && n !== '' && !seen.has(n);) {
      if (n === to) return true;
      seen.add(n);
      n = byOutName.get(n)?.replaces;
    }
    return false;
  };
  const linkTo = (from: string, to: string, why: string): void => {
    const target = byOutName.get(to);
    if (target === undefined) return;
    // A replaces edge carries the chain on to what `from` replaces; a skips edge only takes `from`.
    if ((target.replaces ?? '') === '' && !chainReaches(from, to)) {
      target.replaces = from;
      edits.push(`${where}: "${to}" now replaces "${from}" (${why})`);
      return;
    }
    target.skips = [...(target.skips ?? []), from];
    edits.push(`${where}: "${to}" now skips "${from}" (${why})`);
  };
  // Successors in the original graph: the entries that upgraded from a bundle.
  const successors = (name: string): string[] =>
    original
      .replacedBy(name)
      .map((e) => e.name)
      .sort(compareUtf8);
  const nearestKeptSuccessor = (from: string): string | undefined => {
    const seen = new Set<string>([from]);
    let level = successors(from);
    while (level.length > 0) {
      const found = level.find((n) => keep.has(n) && !seen.has(n));
      if (found !== undefined) return found;
      const next: string[] = [];
      for (const n of level) {
        if (seen.has(n)) continue;
        seen.add(n);
        next.push(...successors(n));
      }
      level = [...new Set(next)].sort(compareUtf8);
    }
    return undefined;
  };

  const chainOf = (list: readonly ChannelEntry[]): ChainAnalysis => ChannelGraph.fromEntries(list).chain();
  let analysis = chainOf(out);
  if (analysis.heads.length > 1) {
    const originalHead = original.heads();
    const head =
      analysis.heads.find((h) => originalHead.length === 1 && originalHead[0] === h) ??
      highestVersion(analysis.heads, versionOf);
    for (const other of analysis.heads) {
      if (other === head) continue;
      const to = nearestKeptSuccessor(other) ?? head;
      linkTo(other, to, 'what upgraded from it in between is not kept');
    }
    analysis = chainOf(out);
  }
  const head = analysis.heads[0];
  if (analysis.heads.length === 1 && head !== undefined && analysis.cycle === undefined) {
    for (const s of analysis.stranded) {
      const to = nearestKeptSuccessor(s) ?? head;
      linkTo(s, to === s ? head : to, 'it was cut off from the head');
    }
    analysis = chainOf(out);
  }
  if (analysis.heads.length !== 1 || analysis.cycle !== undefined || analysis.stranded.length > 0) {
    const problem =
      analysis.heads.length !== 1
        ? `${analysis.heads.length} heads`
        : analysis.cycle !== undefined
          ? `a replaces cycle ${analysis.cycle.join(' -> ')}`
          : `stranded bundles ${analysis.stranded.join(', ')}`;
    throw new OpmError(`${where}: the filtered channel cannot be made valid (${problem})`, {
      hint: 'run "opm validate" on the catalog; the channel may be invalid already',
    });
  }
  return { entries: out, edits };
}

function filterDeprecation(d: Deprecation, out: DeclarativeConfig, edits: string[]): Deprecation | undefined {
  const channels = new Set(out.channels.filter((c) => c.package === d.package).map((c) => c.name));
  const bundles = new Set(out.bundles.filter((b) => b.package === d.package).map((b) => b.name));
  const keptEntry = (e: DeprecationEntry): boolean => {
    const ref = e.reference;
    if (ref.schema === 'olm.channel') return channels.has(ref.name ?? '');
    if (ref.schema === 'olm.bundle') return bundles.has(ref.name ?? '');
    return true;
  };
  const entries = d.entries ?? [];
  const keptEntries = entries.filter(keptEntry);
  for (const e of entries) {
    if (!keptEntry(e)) {
      const what = e.reference.schema === 'olm.channel' ? 'channel' : 'bundle';
      edits.push(
        `package "${d.package}": deprecation of ${what} "${e.reference.name ?? ''}" dropped (not kept)`,
      );
    }
  }
  if (keptEntries.length === entries.length) return d;
  if (keptEntries.length === 0) {
    edits.push(`package "${d.package}": olm.deprecations blob dropped (none of its entries is kept)`);
    return undefined;
  }
  return { ...d, entries: keptEntries };
}

/** The filter's promise: its output validates. A failure here names the first problem. */
function checkValid(cfg: DeclarativeConfig): void {
  const errors = convertToModel(cfg).findings.filter((f) => f.severity === 'error');
  const first = errors[0];
  if (first === undefined) return;
  const where =
    first.file === undefined ? undefined : { file: first.file, ...(first.line ? { line: first.line } : {}) };
  throw new OpmError(
    `the filtered catalog does not validate: ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more problems)` : ''}`,
    {
      hint: 'run "opm validate" on the input catalog; filter keeps problems of the packages it keeps',
      ...(where === undefined ? {} : { at: where }),
    },
  );
}
