/**
 * A semantic diff of two catalogs, for review: what was added and removed (packages, channels,
 * bundles, channel entries, deprecations), default channel changes, changed upgrade edges
 * (`replaces`, `skips`, `skipRange` of an entry present on both sides), released bundles whose
 * content changed, the upgrade impact, and the CRD upgrade problems of the upgrade edges the change
 * adds (crd-edges.ts). Every list is in byte order of package, channel, bundle.
 *
 * Lists inside a blob (`skips`, related images, the values of one property type) are compared as
 * sets: neither their order nor a value written twice means anything to OLM, so a list that was
 * only reordered or had a duplicate added is no change. A list that changed carries what the new
 * side added and what it removed, so a reviewer reads the change rather than both whole lists.
 */
import type {
  Bundle,
  Channel,
  ChannelEntry,
  DeclarativeConfig,
  Deprecation,
  Package,
  RelatedImage,
} from '../declcfg/types.js';
import { marshal } from '../go/json-encode.js';
import { compareUtf8 } from '../go/utf8.js';
import { expectConfig } from '../util/args.js';
import { propertyValue } from '../property/property.js';
import { versionLookup } from '../model/channel-graph.js';
import { packageImpact, type PackageGraph, type UpgradeImpact } from './upgrade-impact.js';
import { newEdgeCrdProblems, type CrdEdgeProblem } from './crd-edges.js';

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
  /** `skips` only: the names in `after` and not in `before`, in their order in `after`. */
  added?: string[];
  /** `skips` only: the names in `before` and not in `after`, in their order in `before`. */
  removed?: string[];
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
  /**
   * For each list-valued aspect in `changed` (`relatedImages`, a property type) that gained values:
   * the values only the new side has (related images as `{name, image}`, property values as
   * written), in their order there.
   */
  added: Record<string, unknown[]>;
  /** As `added`, for the values only the old side has. */
  removed: Record<string, unknown[]>;
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
  /**
   * Upgrade edges new in the catalog whose CRD change OLM refuses (or, for a dropped CRD, that
   * deletes objects), when both bundles' CRDs are known; in package order, then by edge.
   */
  crdUpgrades: CrdEdgeProblem[];
}

export interface DiffCatalogsOptions {
  /**
   * Bundle image reference → registry+v1 bundle directory: where the CRDs of bundles whose
   * manifests the catalogs do not carry are read.
   */
  bundleDirs?: ReadonlyMap<string, string>;
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
    crdUpgrades: [],
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
export function diffCatalogs(
  before: DeclarativeConfig,
  after: DeclarativeConfig,
  opts: DiffCatalogsOptions = {},
): CatalogDiff {
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
      if (n !== undefined) d.crdUpgrades.push(...newEdgeCrdProblems(name, undefined, n, opts.bundleDirs));
      continue;
    }
    const oldGraph: PackageGraph = { channels: o.channels, versionOf: versionLookup(o.bundles) };
    if (n === undefined) {
      d.packagesRemoved.push(name);
      d.upgradeImpact.push(...packageImpact(name, oldGraph, undefined));
      continue;
    }
    diffPackage(d, name, o, n);
    d.crdUpgrades.push(...newEdgeCrdProblems(name, o, n, opts.bundleDirs));
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
  const pkgChanged = newContentChange(name, '');
  if ((o.pkg.description ?? '') !== (n.pkg.description ?? '')) pkgChanged.changed.push('description');
  if (marshal(o.pkg.icon ?? null) !== marshal(n.pkg.icon ?? null)) pkgChanged.changed.push('icon');
  changedProperties(pkgChanged, o.pkg.properties, n.pkg.properties);
  if (pkgChanged.changed.length > 0) d.packagesChanged.push(pkgChanged);

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
      const changed = changedContent(name, ob, nb);
      if (changed.changed.length > 0) d.bundlesChanged.push(changed);
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
      const { added, removed } = setDelta(os, ns, (x) => x);
      if (added.length + removed.length > 0) {
        d.edgesChanged.push({ ...at, field: 'skips', before: [...os], after: [...ns], added, removed });
      }
      text('skipRange');
    }
  }
}

/**
 * What `after` has that `before` has not, and the reverse, by `key`; each value once, in its order
 * on its side.
 */
function setDelta<T>(
  before: readonly T[],
  after: readonly T[],
  key: (x: T) => string,
): { added: T[]; removed: T[] } {
  const only = (xs: readonly T[], other: readonly T[]): T[] => {
    const seen = new Set(other.map(key));
    const out: T[] = [];
    for (const x of xs) {
      const k = key(x);
      if (seen.has(k)) continue;
      seen.add(k);
      out.push(x);
    }
    return out;
  };
  return { added: only(after, before), removed: only(before, after) };
}

function newContentChange(pkg: string, bundle: string): ContentChange {
  return { package: pkg, bundle, changed: [], added: {}, removed: {} };
}

/** Record a list-valued aspect of a blob that differs as sets. */
function listChanged<T>(
  c: ContentChange,
  field: string,
  before: readonly T[],
  after: readonly T[],
  key: (x: T) => string,
): void {
  const { added, removed } = setDelta(before, after, key);
  if (added.length + removed.length === 0) return;
  c.changed.push(field);
  if (added.length > 0) c.added[field] = added;
  if (removed.length > 0) c.removed[field] = removed;
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

/** The property types whose values differ (as sets; objects whatever their key order). */
function changedProperties(c: ContentChange, a: Bundle['properties'], b: Bundle['properties']): void {
  const pa = propertyValues(a);
  const pb = propertyValues(b);
  for (const t of union(pa, pb)) listChanged(c, t, pa.get(t) ?? [], pb.get(t) ?? [], (v) => marshal(v));
}

function changedContent(pkg: string, a: Bundle, b: Bundle): ContentChange {
  const c = newContentChange(pkg, a.name);
  if (a.image !== b.image) c.changed.push('image');
  const related = (x: Bundle): RelatedImage[] => x.relatedImages ?? [];
  listChanged(c, 'relatedImages', related(a), related(b), (r) => `${r.name}\0${r.image}`);
  changedProperties(c, a.properties, b.properties);
  return c;
}
