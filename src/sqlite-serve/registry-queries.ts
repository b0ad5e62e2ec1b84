/**
 * The answers of opm v1.73's `registry serve` (its SQLite querier, `pkg/sqlite/query.go`) computed
 * from an index database's rows: each RPC gives the rows its SQL query gives, in the order SQLite's
 * plan for that query visits them (noted at each method), and fills the fields that querier fills.
 * Most differ from `opm serve`'s: GetBundleForChannel sends only the name and the CSV, GetBundle
 * leaves replaces and skips out and names plurals, errors are worded otherwise.
 */
import { marshal } from '../go/json-encode.js';
import { goFieldFor } from '../go/json-decode.js';
import { compareUtf8 } from '../go/utf8.js';
import { OpmError } from '../errors.js';
import { RpcError, STATUS, type QueryEngine } from '../catalog-queries/queries.js';
import {
  emptyBundle,
  encodeBundle,
  type ApiBundle,
  type ApiChannelEntry,
  type ApiGroupVersionKind,
  type ApiPackage,
  type ApiTypedValue,
} from '../api-contract/messages.js';
import { bundlesInChannels, type ChannelEntryRow } from '../sqlite/channel-rows.js';
import { splitBundleObjects, uniqueTypedValues } from '../sqlite/bundle-rows.js';
import { gvkKey, type BundleRow, type PerBundleRow, type RegistryRows } from '../sqlite/registry-rows.js';

const GVK_TYPE = 'olm.gvk';

/** The querier returns plain errors, which gRPC sends as UNKNOWN. */
const fail = (message: string): RpcError => new RpcError(STATUS.UNKNOWN, message);

interface Gvk {
  group: string;
  version: string;
  kind: string;
}

/** A GVK value as Go's json.Unmarshal fills a struct of group, kind and version; undefined on an error. */
export function decodeGvk(value: string): Gvk | undefined {
  let v: unknown;
  try {
    v = JSON.parse(value);
  } catch {
    return undefined;
  }
  const out: Gvk = { group: '', version: '', kind: '' };
  if (v === null) return out;
  if (typeof v !== 'object' || Array.isArray(v)) return undefined;
  let typeError = false;
  for (const [k, f] of Object.entries(v as Record<string, unknown>)) {
    const field = goFieldFor(k, ['group', 'version', 'kind'] as const);
    if (field === undefined || f === null) continue;
    if (typeof f === 'string') out[field] = f;
    else typeError = true;
  }
  return typeError ? undefined : out;
}

/** The manifests of a `bundle` column as the querier converts them: objects, and the CSV among them. */
function manifests(raw: Uint8Array): { csvJson: string; object: string[] } {
  let split;
  try {
    split = splitBundleObjects(raw);
  } catch (err) {
    throw fail(err instanceof OpmError ? err.message : String(err));
  }
  const object = split.bytes.map((b) => b.toString('utf8'));
  const csvJson =
    object.find((o) => {
      if (!o.includes('ClusterServiceVersion')) return false;
      const parsed: unknown = JSON.parse(o);
      return (
        typeof parsed === 'object' &&
        parsed !== null &&
        (parsed as Record<string, unknown>).kind === 'ClusterServiceVersion'
      );
    }) ?? '';
  return { csvJson, object };
}

/** Rows of name, matching a bundle's version and path or NULL there; DISTINCT (type, value). */
function typedRowsFor(
  rows: readonly PerBundleRow[] | undefined,
  version: string,
  path: string,
): ApiTypedValue[] {
  const out: ApiTypedValue[] = [];
  const seen = new Set<string>();
  for (const r of rows ?? []) {
    if (r.version !== null && r.version !== version) continue;
    if (r.path !== null && r.path !== path) continue;
    const key = JSON.stringify([r.type, r.value]);
    if (seen.has(key)) continue;
    seen.add(key);
    // A NULL type or value ends the querier's loop with nothing and no error.
    if (r.type === null || r.value === null) return [];
    out.push({ type: r.type, value: r.value });
  }
  return out;
}

/** ListBundles' GVKs of one kind: each olm.gvk value decoded until the first that does not decode. */
function legacyApis(list: readonly ApiTypedValue[]): ApiGroupVersionKind[] {
  const out: ApiGroupVersionKind[] = [];
  for (const p of list) {
    if (p.type !== GVK_TYPE) continue;
    const g = decodeGvk(p.value);
    if (g === undefined) break;
    out.push(g);
  }
  return out;
}

const cmpNullFirst = (a: string | null, b: string | null): number =>
  a === null ? (b === null ? 0 : -1) : b === null ? 1 : compareUtf8(a, b);

const cmpIntNullFirst = (a: number | null, b: number | null): number =>
  a === null ? (b === null ? 0 : -1) : b === null ? 1 : a - b;

/** A channel entry row as a message: NULL columns are empty strings. */
const entryMessage = (e: ChannelEntryRow, replaces: string | null): ApiChannelEntry => ({
  packageName: e.pkg ?? '',
  channelName: e.channel ?? '',
  bundleName: e.bundle ?? '',
  replaces: replaces ?? '',
});

/** The registry's answers over the rows of one index database. */
export class SqliteRegistryQueries implements QueryEngine {
  private readonly rows: RegistryRows;

  constructor(rows: RegistryRows) {
    this.rows = rows;
  }

  /** SELECT DISTINCT name FROM package: the primary key's index, in byte order. */
  listPackages(): string[] {
    return this.rows.packageNames;
  }

  /** The package joined with its channels, scanned in the channel key's order (name, package). */
  getPackage(name: string): ApiPackage {
    const def = this.rows.defaultChannel.get(name);
    const channels = def === undefined ? [] : this.rows.channels.filter((c) => c.pkg === name);
    if (channels.length === 0) throw fail(`package ${name} not found`);
    const seen = new Set<string>();
    const out: ApiPackage = { name, channels: [], defaultChannelName: def ?? '' };
    for (const c of channels) {
      const key = JSON.stringify([c.name, c.head]);
      if (seen.has(key)) continue;
      seen.add(key);
      out.channels.push({ name: c.name ?? '', csvName: c.head ?? '' });
    }
    return out;
  }

  /** GetApisForEntry: the entry's bundle's GVK properties (every row) and distinct GVK dependencies, with plurals. */
  private apisForEntry(entryId: number): {
    provided: ApiGroupVersionKind[];
    required: ApiGroupVersionKind[];
  } {
    const e = this.rows.entryById.get(entryId);
    const provided: ApiGroupVersionKind[] = [];
    const required: ApiGroupVersionKind[] = [];
    if (e === undefined || e.bundle === null) return { provided, required };
    for (const p of this.rows.properties.get(e.bundle) ?? []) {
      if (p.type !== GVK_TYPE || p.value === null) continue;
      const g = decodeGvk(p.value);
      if (g !== undefined) provided.push(g);
    }
    const seen = new Set<string>();
    for (const d of this.rows.dependencies.get(e.bundle) ?? []) {
      if (d.type !== GVK_TYPE || d.value === null || seen.has(d.value)) continue;
      seen.add(d.value);
      const g = decodeGvk(d.value);
      if (g !== undefined) required.push(g);
    }
    for (const g of [...provided, ...required]) {
      const plural = this.rows.plurals.get(gvkKey(g.group, g.version, g.kind));
      if (plural !== undefined) g.plural = plural;
    }
    return { provided, required };
  }

  /** A bundle as GetBundle, GetBundleThatReplaces and GetDefaultBundleThatProvides fill it. */
  private fullBundle(entryId: number, b: BundleRow, pkg: string, channel: string): ApiBundle {
    const out = emptyBundle();
    if (b.bundle !== null && b.bundle.length > 0) Object.assign(out, manifests(b.bundle));
    const version = b.version ?? '';
    const path = b.bundlepath ?? '';
    const apis = this.apisForEntry(entryId);
    return {
      ...out,
      csvName: b.name,
      packageName: pkg,
      channelName: channel,
      bundlePath: path,
      version,
      skipRange: b.skiprange ?? '',
      providedApis: apis.provided,
      requiredApis: apis.required,
      dependencies: typedRowsFor(this.rows.dependencies.get(b.name), version, path),
      properties: typedRowsFor(this.rows.properties.get(b.name), version, path),
    };
  }

  /** The bundle row, then the channel's entries of it in rowid order: the first is the answer. */
  getBundle(pkgName: string, channelName: string, csvName: string): Promise<ApiBundle> {
    const b = this.rows.bundles.get(csvName);
    const e = (this.rows.entriesOfBundle.get(csvName) ?? []).find(
      (x) => x.pkg === pkgName && x.channel === channelName,
    );
    if (b === undefined || e === undefined) {
      return Promise.reject(fail(`no entry found for ${pkgName} ${channelName} ${csvName}`));
    }
    return Promise.resolve(this.fullBundle(e.id, b, pkgName, channelName));
  }

  /** The channel's head joined with its bundle: its name and CSV column only. */
  getBundleForChannel(pkgName: string, channelName: string): Promise<ApiBundle> {
    const ch = this.rows.channels.find((c) => c.name === channelName && c.pkg === pkgName);
    const b = ch?.head === null || ch === undefined ? undefined : this.rows.bundles.get(ch.head);
    if (b === undefined) return Promise.reject(fail(`no entry found for ${pkgName} ${channelName}`));
    return Promise.resolve({ ...emptyBundle(), csvName: b.name, csvJson: b.csv ?? '' });
  }

  /** Entries in rowid order whose replaced entry is the name's; distinct (package, channel, bundle). */
  getChannelEntriesThatReplace(csvName: string): ApiChannelEntry[] {
    const out: ApiChannelEntry[] = [];
    const seen = new Set<string>();
    for (const e of this.rows.entries) {
      const r = e.replaces === null ? undefined : this.rows.entryById.get(e.replaces);
      if (r?.bundle !== csvName) continue;
      const key = JSON.stringify([e.pkg, e.channel, e.bundle]);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(entryMessage(e, csvName));
    }
    if (out.length === 0) throw fail(`no channel entries found that replace ${csvName}`);
    return out;
  }

  /** Entries in rowid order whose replaced entry is the name's in the channel; the first with a bundle row. */
  getBundleThatReplaces(csvName: string, pkgName: string, channelName: string): Promise<ApiBundle> {
    for (const r of this.rows.entries) {
      const e = r.replaces === null ? undefined : this.rows.entryById.get(r.replaces);
      if (e === undefined || e.bundle !== csvName || e.pkg !== pkgName || e.channel !== channelName) continue;
      const b = r.bundle === null ? undefined : this.rows.bundles.get(r.bundle);
      if (b === undefined) continue;
      return Promise.resolve(this.fullBundle(r.id, b, pkgName, channelName));
    }
    return Promise.reject(fail(`no entry found for ${pkgName} ${channelName}`));
  }

  /**
   * The rows of the provider queries: the properties holding the GVK in rowid order, each with
   * its bundle's entries as SQLite's automatic covering index on the bundle name orders them (the
   * other columns the query reads, in table order: channel, package, replaces, then depth when
   * read, then rowid), each with the name of the entry it replaces.
   */
  private providerRows(g: Gvk, readsDepth: boolean): { e: ChannelEntryRow; replaces: string | null }[] {
    const value = marshal({ group: g.group, kind: g.kind, version: g.version });
    const out: { e: ChannelEntryRow; replaces: string | null }[] = [];
    const ordered = new Map<string, ChannelEntryRow[]>();
    for (const p of this.rows.propertyScan) {
      if (p.type !== GVK_TYPE || p.value !== value || p.blob === true) continue;
      let entries = ordered.get(p.name);
      if (entries === undefined) {
        entries = [...(this.rows.entriesOfBundle.get(p.name) ?? [])].sort(
          (a, b) =>
            cmpNullFirst(a.channel, b.channel) ||
            cmpNullFirst(a.pkg, b.pkg) ||
            cmpIntNullFirst(a.replaces, b.replaces) ||
            (readsDepth ? cmpIntNullFirst(a.depth, b.depth) : 0) ||
            a.id - b.id,
        );
        ordered.set(p.name, entries);
      }
      for (const e of entries) {
        const r = e.replaces === null ? undefined : this.rows.entryById.get(e.replaces);
        out.push({ e, replaces: r?.bundle ?? null });
      }
    }
    return out;
  }

  getChannelEntriesThatProvide(g: Gvk): Promise<ApiChannelEntry[]> {
    const out: ApiChannelEntry[] = [];
    const seen = new Set<string>();
    for (const { e, replaces } of this.providerRows(g, false)) {
      const key = JSON.stringify([e.pkg, e.channel, e.bundle, replaces]);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(entryMessage(e, replaces));
    }
    if (out.length === 0) {
      return Promise.reject(fail(`no channel entries found that provide ${g.group} ${g.version} ${g.kind}`));
    }
    return Promise.resolve(out);
  }

  /** The provider rows grouped by (package, channel) in that order, each group's first row of least depth. */
  getLatestChannelEntriesThatProvide(g: Gvk): Promise<ApiChannelEntry[]> {
    const groups = leastDepthByChannel(this.providerRows(g, true), (r) => r.e);
    if (groups.length === 0) {
      return Promise.reject(fail(`no channel entries found that provide ${g.group} ${g.version} ${g.kind}`));
    }
    return Promise.resolve(groups.map(({ e, replaces }) => entryMessage(e, replaces)));
  }

  /**
   * Entries in rowid order in their package's default channel whose bundle has a row and holds
   * the GVK (once per matching property row), grouped by (package, channel): the first group's
   * entry of least depth.
   */
  getDefaultBundleThatProvides(g: Gvk): Promise<ApiBundle> {
    const value = marshal({ group: g.group, kind: g.kind, version: g.version });
    const rows: { e: ChannelEntryRow; b: BundleRow }[] = [];
    for (const e of this.rows.entries) {
      const b = e.bundle === null ? undefined : this.rows.bundles.get(e.bundle);
      if (b === undefined || e.pkg === null) continue;
      const def = this.rows.defaultChannel.get(e.pkg);
      if (def === undefined || def === null || def !== e.channel) continue;
      for (const p of this.rows.properties.get(b.name) ?? []) {
        if (p.type === GVK_TYPE && p.value === value && p.blob !== true) rows.push({ e, b });
      }
    }
    const first = leastDepthByChannel(rows, (r) => r.e)[0];
    if (first === undefined || first.b.bundle === null) {
      return Promise.reject(fail(`no entry found that provides ${g.group} ${g.version} ${g.kind}`));
    }
    return Promise.resolve(this.fullBundle(first.e.id, first.b, first.e.pkg ?? '', first.e.channel ?? ''));
  }

  /**
   * One message per bundle and channel, ordered by (bundle, package, channel) as the listing's
   * GROUP BY leaves them; manifests only for bundles without an image, as `registry serve` asks.
   * Each message is made as the stream reaches it.
   */
  *listBundles(): Generator<ApiBundle> {
    const places = bundlesInChannels(this.rows.entries);
    const keys: ListKey[] = [];
    for (const [name, list] of places) for (const p of list) keys.push({ name, ...p });
    keys.sort(
      (a, b) =>
        compareUtf8(a.name, b.name) || cmpNullFirst(a.pkg, b.pkg) || cmpNullFirst(a.channel, b.channel),
    );
    for (const k of keys) {
      const b = this.rows.bundles.get(k.name);
      if (b === undefined || b.version === null || b.bundlepath === null || k.channel === null) continue;
      yield this.listed(k, b, k.channel, b.version, b.bundlepath);
    }
  }

  private listed(k: ListKey, b: BundleRow, channel: string, version: string, path: string): ApiBundle {
    let bundle = emptyBundle();
    if (path === '' && b.bundle !== null && b.bundle.length > 0)
      bundle = { ...bundle, ...manifests(b.bundle) };
    // json_group_array of every row of the bundle's name, NULL read back as an empty string.
    const merged = (rows: readonly PerBundleRow[] | undefined): ApiTypedValue[] =>
      (rows ?? []).map((r) => ({ type: r.type ?? '', value: r.value ?? '' }));
    const deps = merged(this.rows.dependencies.get(b.name));
    const props = merged(this.rows.properties.get(b.name));
    return {
      ...bundle,
      csvName: b.name,
      packageName: k.pkg ?? '',
      channelName: channel,
      bundlePath: path,
      version,
      skipRange: b.skiprange ?? '',
      replaces: k.replaces ?? '',
      skips: k.skips ?? [],
      requiredApis: legacyApis(deps),
      dependencies: uniqueTypedValues(deps),
      providedApis: legacyApis(props),
      properties: uniqueTypedValues(props),
    };
  }

  async *listedMessages(): AsyncIterable<Uint8Array> {
    for (const b of this.listBundles()) yield await Promise.resolve(encodeBundle(b));
  }
}

interface ListKey {
  name: string;
  pkg: string | null;
  channel: string | null;
  replaces: string | null;
  skips: string[] | null;
}

/**
 * GROUP BY (package, channel) with MIN(depth): the groups in key order (NULL first), each with the
 * values of its first row of least depth (the first row when no depth is set).
 */
function leastDepthByChannel<T>(rows: readonly T[], entry: (r: T) => ChannelEntryRow): T[] {
  const groups = new Map<string, { pkg: string | null; channel: string | null; best: T }>();
  for (const r of rows) {
    const e = entry(r);
    const key = JSON.stringify([e.pkg, e.channel]);
    const g = groups.get(key);
    if (g === undefined) {
      groups.set(key, { pkg: e.pkg, channel: e.channel, best: r });
      continue;
    }
    const bestDepth = entry(g.best).depth;
    if (e.depth !== null && (bestDepth === null || e.depth < bestDepth)) g.best = r;
  }
  return [...groups.values()]
    .sort((a, b) => cmpNullFirst(a.pkg, b.pkg) || cmpNullFirst(a.channel, b.channel))
    .map((g) => g.best);
}
