/**
 * A semantic diff of two catalogs, for review: what was added and removed (packages, channels,
 * bundles, channel entries, deprecations), default channel changes, changed upgrade edges
 * (`replaces`, `skips`, `skipRange` of an entry present on both sides), released bundles whose
 * content changed, and the upgrade impact. Every list is in byte order of package, channel,
 * bundle.
 */
import type {
  Bundle,
  Channel,
  ChannelEntry,
  DeclarativeConfig,
  Deprecation,
  Package,
} from '../declcfg/types.js';
import { marshal } from '../go/json-encode.js';
import { compareUtf8 } from '../go/utf8.js';
import { expectConfig } from '../util/args.js';
import { propertyValue } from '../property/property.js';
import { versionLookup } from '../model/channel-graph.js';
import { packageImpact, type PackageGraph, type UpgradeImpact } from './upgrade-impact.js';

export interface ChannelRef {
  package: string;
  channel: string;
}

export interface BundleRef {
  package: string;
  bundle: string;
}

export interface EntryRef {
  package: string;
  channel: string;
  bundle: string;
}

export interface DefaultChannelChange {
  package: string;
  before: string;
  after: string;
}

export type EdgeField = 'replaces' | 'skips' | 'skipRange';

export interface EdgeChange {
  package: string;
  channel: string;
  bundle: string;
  field: EdgeField;
  /** '' or [] when unset. */
  before: string | string[];
  after: string | string[];
}

export interface DeprecationRef {
  package: string;
  /** `olm.package`, `olm.channel` or `olm.bundle`. */
  schema: string;
  /** The channel or bundle ('' for the package). */
  name: string;
  message: string;
}

export interface DeprecationChange extends DeprecationRef {
  before: string;
}

export interface ContentChange {
  package: string;
  /** The bundle; '' for a change of the package blob itself. */
  bundle: string;
  /** What changed: `image`, `relatedImages`, `description`, `icon`, or property types. */
  changed: string[];
}

export interface CatalogDiff {
  packagesAdded: string[];
  packagesRemoved: string[];
  defaultChannelsChanged: DefaultChannelChange[];
  packagesChanged: ContentChange[];
  channelsAdded: ChannelRef[];
  channelsRemoved: ChannelRef[];
  bundlesAdded: BundleRef[];
  bundlesRemoved: BundleRef[];
  entriesAdded: EntryRef[];
  entriesRemoved: EntryRef[];
  edgesChanged: EdgeChange[];
  deprecationsAdded: DeprecationRef[];
  deprecationsRemoved: DeprecationRef[];
  deprecationsChanged: DeprecationChange[];
  /** Bundles on both sides whose content differs (a released bundle should not change). */
  bundlesChanged: ContentChange[];
  upgradeImpact: UpgradeImpact[];
}

function emptyDiff(): CatalogDiff {
  return {
    packagesAdded: [],
    packagesRemoved: [],
    defaultChannelsChanged: [],
    packagesChanged: [],
    channelsAdded: [],
    channelsRemoved: [],
    bundlesAdded: [],
    bundlesRemoved: [],
    entriesAdded: [],
    entriesRemoved: [],
    edgesChanged: [],
    deprecationsAdded: [],
    deprecationsRemoved: [],
    deprecationsChanged: [],
    bundlesChanged: [],
    upgradeImpact: [],
  };
}

/** Whether the two catalogs are the same for every aspect the diff looks at. */
export function isEmptyDiff(d: CatalogDiff): boolean {
  return Object.values(d).every((list: unknown[]) => list.length === 0);
}

interface Side {
  pkg: Package;
  channels: Map<string, Channel>;
  bundles: Map<string, Bundle>;
  deprecations: Map<string, DeprecationRef>;
}

function index(cfg: DeclarativeConfig): Map<string, Side> {
  const out = new Map<string, Side>();
  for (const p of cfg.packages) {
    if (!out.has(p.name))
      out.set(p.name, { pkg: p, channels: new Map(), bundles: new Map(), deprecations: new Map() });
  }
  for (const c of cfg.channels) {
    const s = out.get(c.package);
    if (s !== undefined && !s.channels.has(c.name)) s.channels.set(c.name, c);
  }
  for (const b of cfg.bundles) {
    const s = out.get(b.package);
    if (s !== undefined && !s.bundles.has(b.name)) s.bundles.set(b.name, b);
  }
  for (const d of cfg.deprecations) {
    const s = out.get(d.package);
    if (s !== undefined) addDeprecations(s, d);
  }
  return out;
}

function addDeprecations(s: Side, d: Deprecation): void {
  for (const e of d.entries ?? []) {
    const name = e.reference.name ?? '';
    const key = `${e.reference.schema}\0${name}`;
    if (!s.deprecations.has(key)) {
      s.deprecations.set(key, { package: d.package, schema: e.reference.schema, name, message: e.message });
    }
  }
}

function union(a: ReadonlyMap<string, unknown>, b: ReadonlyMap<string, unknown>): string[] {
  return [...new Set([...a.keys(), ...b.keys()])].sort(compareUtf8);
}

/** Compare two catalogs. */
export function diffCatalogs(before: DeclarativeConfig, after: DeclarativeConfig): CatalogDiff {
  expectConfig(before, 'diffCatalogs(before)');
  expectConfig(after, 'diffCatalogs(before, after)');
  const d = emptyDiff();
  const old = index(before);
  const cur = index(after);
  for (const name of union(old, cur)) {
    const o = old.get(name);
    const n = cur.get(name);
    if (o === undefined) {
      d.packagesAdded.push(name);
      continue;
    }
    const oldGraph: PackageGraph = { channels: o.channels, versionOf: versionLookup(o.bundles) };
    if (n === undefined) {
      d.packagesRemoved.push(name);
      d.upgradeImpact.push(...packageImpact(name, oldGraph, undefined));
      continue;
    }
    diffPackage(d, name, o, n);
    d.upgradeImpact.push(
      ...packageImpact(name, oldGraph, { channels: n.channels, versionOf: versionLookup(n.bundles) }),
    );
  }
  return d;
}

function diffPackage(d: CatalogDiff, name: string, o: Side, n: Side): void {
  if (o.pkg.defaultChannel !== n.pkg.defaultChannel) {
    d.defaultChannelsChanged.push({
      package: name,
      before: o.pkg.defaultChannel,
      after: n.pkg.defaultChannel,
    });
  }
  const pkgChanged: string[] = [];
  if ((o.pkg.description ?? '') !== (n.pkg.description ?? '')) pkgChanged.push('description');
  if (marshal(o.pkg.icon ?? null) !== marshal(n.pkg.icon ?? null)) pkgChanged.push('icon');
  pkgChanged.push(...changedProperties(o.pkg.properties, n.pkg.properties));
  if (pkgChanged.length > 0) d.packagesChanged.push({ package: name, bundle: '', changed: pkgChanged });

  for (const ch of union(o.channels, n.channels)) {
    const oc = o.channels.get(ch);
    const nc = n.channels.get(ch);
    if (oc === undefined) d.channelsAdded.push({ package: name, channel: ch });
    else if (nc === undefined) d.channelsRemoved.push({ package: name, channel: ch });
    else diffEntries(d, name, ch, oc.entries ?? [], nc.entries ?? []);
  }
  for (const b of union(o.bundles, n.bundles)) {
    const ob = o.bundles.get(b);
    const nb = n.bundles.get(b);
    if (ob === undefined) d.bundlesAdded.push({ package: name, bundle: b });
    else if (nb === undefined) d.bundlesRemoved.push({ package: name, bundle: b });
    else {
      const changed = changedContent(ob, nb);
      if (changed.length > 0) d.bundlesChanged.push({ package: name, bundle: b, changed });
    }
  }
  for (const key of union(o.deprecations, n.deprecations)) {
    const od = o.deprecations.get(key);
    const nd = n.deprecations.get(key);
    if (od === undefined && nd !== undefined) d.deprecationsAdded.push(nd);
    else if (nd === undefined && od !== undefined) d.deprecationsRemoved.push(od);
    else if (od !== undefined && nd !== undefined && od.message !== nd.message) {
      d.deprecationsChanged.push({ ...nd, before: od.message });
    }
  }
}

function diffEntries(
  d: CatalogDiff,
  pkg: string,
  channel: string,
  before: readonly ChannelEntry[],
  after: readonly ChannelEntry[],
): void {
  const o = new Map(before.map((e) => [e.name, e]));
  const n = new Map(after.map((e) => [e.name, e]));
  for (const bundle of union(o, n)) {
    const oe = o.get(bundle);
    const ne = n.get(bundle);
    if (oe === undefined) d.entriesAdded.push({ package: pkg, channel, bundle });
    else if (ne === undefined) d.entriesRemoved.push({ package: pkg, channel, bundle });
    else {
      const at = { package: pkg, channel, bundle };
      const text = (field: 'replaces' | 'skipRange'): void => {
        const [before, after] = [oe[field] ?? '', ne[field] ?? ''];
        if (before !== after) d.edgesChanged.push({ ...at, field, before, after });
      };
      text('replaces');
      const os = oe.skips ?? [];
      const ns = ne.skips ?? [];
      if (marshal([...os].sort(compareUtf8)) !== marshal([...ns].sort(compareUtf8))) {
        d.edgesChanged.push({ ...at, field: 'skips', before: [...os], after: [...ns] });
      }
      text('skipRange');
    }
  }
}

/** Equality of JSON values, objects compared whatever their key order (as JSON's meaning is). */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => jsonEqual(x, b[i]));
  }
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  return ka.every((k) => Object.hasOwn(rb, k) && jsonEqual(ra[k], rb[k]));
}

/** Property values by type, in their order. */
function propertyValues(props: Bundle['properties']): Map<string, unknown[]> {
  const byType = new Map<string, unknown[]>();
  for (const p of props ?? []) {
    let list = byType.get(p.type);
    if (list === undefined) byType.set(p.type, (list = []));
    list.push(propertyValue(p) ?? null);
  }
  return byType;
}

/** Whether two lists hold the same values, in any order (the common case, same order, is cheap). */
function sameValues(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  if (a.every((x, i) => jsonEqual(x, b[i]))) return true;
  const canonical = (xs: readonly unknown[]): string =>
    xs
      .map((x) => marshal(x))
      .sort(compareUtf8)
      .join('\n');
  return canonical(a) === canonical(b);
}

/** The property types whose values differ. */
function changedProperties(a: Bundle['properties'], b: Bundle['properties']): string[] {
  const pa = propertyValues(a);
  const pb = propertyValues(b);
  return union(pa, pb).filter((t) => !sameValues(pa.get(t) ?? [], pb.get(t) ?? []));
}

function changedContent(a: Bundle, b: Bundle): string[] {
  const out: string[] = [];
  if (a.image !== b.image) out.push('image');
  const related = (x: Bundle): string =>
    marshal((x.relatedImages ?? []).map((r) => `${r.name}\0${r.image}`).sort(compareUtf8));
  if (related(a) !== related(b)) out.push('relatedImages');
  out.push(...changedProperties(a.properties, b.properties));
  return out;
}
