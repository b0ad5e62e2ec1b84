/**
 * The semver modes of `registry add`: a package's version graph read back from its channel
 * entries, the new bundle placed in each of its channels by version (between the greatest version
 * behind it and the lowest ahead; in semver-skippatch it also replaces, and drops, the lower
 * patches of its minor), and the channels written again from the graph, as opm v1.73 does.
 */
import { compareUtf8 } from '../../go/utf8.js';
import { compareSemver, formatSemver, parseSemver, type SemVer } from '../../model/semver.js';
import type { BundleRecord } from './bundle-record.js';
import type { SqlValue } from '../../sqlite/file.js';
import type { RowStore } from '../../sqlite/write/row-store.js';
import { AddError, findBy } from './add-error.js';

export interface BundleKey {
  csvName: string;
  version: string;
  bundlePath: string;
}

const keyOf = (k: BundleKey): string => `${k.csvName}\u0000${k.version}\u0000${k.bundlePath}`;
const isEmpty = (k: BundleKey): boolean => k.csvName === '' && k.version === '' && k.bundlePath === '';
const EMPTY: BundleKey = { csvName: '', version: '', bundlePath: '' };

export interface ChannelGraph {
  head: BundleKey;
  /** Each node (by key text) and the keys it replaces. */
  nodes: Map<string, { key: BundleKey; replaces: Map<string, BundleKey> }>;
}

export interface PackageGraph {
  name: string;
  defaultChannel: string;
  channels: Map<string, ChannelGraph>;
}

const str = (v: SqlValue | undefined): string => (typeof v === 'string' ? v : '');

/** The graph of `pkg` from its channel entries; `undefined` when the package (or its default channel) is missing. */
export function packageGraph(t: RowStore, pkg: string): PackageGraph | undefined {
  const p = findBy(t, 'package', 'name', pkg);
  const defaultChannel = p?.[t.col('package', 'default_channel')] ?? null;
  if (p === undefined || defaultChannel === null) return undefined;
  const ob = t.getter('operatorbundle');
  const bundles = new Map<string, SqlValue[]>();
  for (const r of t.rows('operatorbundle'))
    if (!bundles.has(str(ob(r, 'name')))) bundles.set(str(ob(r, 'name')), r);
  const ce = t.getter('channel_entry');
  const byId = new Map<unknown, SqlValue[]>();
  const entries = t.rows('channel_entry').filter((e) => ce(e, 'package_name') === pkg);
  for (const e of t.rows('channel_entry')) byId.set(ce(e, 'entry_id'), e);
  const keyFor = (name: string): BundleKey => {
    const b = bundles.get(name);
    return {
      csvName: name,
      version: str(b && ob(b, 'version')),
      bundlePath: str(b && ob(b, 'bundlepath')),
    };
  };
  const existing = new Set<string>();
  for (const e of entries) {
    const b = bundles.get(str(ce(e, 'operatorbundle_name')));
    if (b !== undefined) existing.add(keyOf(keyFor(str(ce(e, 'operatorbundle_name')))));
  }
  const graph = new Map<string, Map<string, { key: BundleKey; replaces: Map<string, BundleKey> }>>();
  const candidates = new Map<string, Map<string, BundleKey>>();
  for (const e of entries) {
    const ch = str(ce(e, 'channel_name'));
    if (!graph.has(ch)) graph.set(ch, new Map());
    const key = keyFor(str(ce(e, 'operatorbundle_name')));
    if (!existing.has(keyOf(key))) continue;
    graph.get(ch)?.set(keyOf(key), { key, replaces: new Map() });
    if (!candidates.has(ch)) candidates.set(ch, new Map());
    candidates.get(ch)?.set(keyOf(key), key);
  }
  for (const e of entries) {
    const ch = str(ce(e, 'channel_name'));
    const key = keyFor(str(ce(e, 'operatorbundle_name')));
    const replaces = ce(e, 'replaces');
    const replaced = replaces === null ? undefined : byId.get(replaces);
    const rk = replaced === undefined ? EMPTY : keyFor(str(ce(replaced, 'operatorbundle_name')));
    if (!isEmpty(rk)) {
      let nodes = graph.get(ch);
      if (nodes === undefined) graph.set(ch, (nodes = new Map()));
      let node = nodes.get(keyOf(key));
      if (node === undefined) nodes.set(keyOf(key), (node = { key, replaces: new Map() }));
      node.replaces.set(keyOf(rk), rk);
    }
    candidates.get(ch)?.delete(keyOf(rk));
  }
  const channels = new Map<string, ChannelGraph>();
  for (const [ch, cands] of candidates) {
    if (cands.size === 0) throw new AddError(`no channel head found for ${ch}`);
    if (cands.size > 1) throw new AddError(`multiple candidate channel heads found for ${ch}`);
    const head = [...cands.values()][0] as BundleKey;
    channels.set(ch, { head, nodes: graph.get(ch) ?? new Map() });
  }
  return { name: pkg, defaultChannel: str(defaultChannel), channels };
}

function parseOr(v: string, message: string): SemVer {
  try {
    return parseSemver(v);
  } catch {
    throw new AddError(message);
  }
}

/** Place `b` in the graph of its package (opm's BundleGraphLoader.AddBundleToGraph). */
export function addBundleToGraph(b: BundleRecord, g: PackageGraph, skippatch: boolean): PackageGraph {
  const toAdd = parseOr(b.version, `Bundle version ${b.version} is not valid`);
  const newKey: BundleKey = { csvName: b.name, version: formatSemver(toAdd), bundlePath: b.image };
  if (g.name === '') g.name = b.packageName;
  if (b.defaultChannel !== '') g.defaultChannel = b.defaultChannel;
  if (g.defaultChannel === '') {
    const sorted = [...b.channels].sort(compareUtf8);
    if (sorted.length === 0 || sorted[0] === '')
      throw new AddError("Default channel is missing and can't be inferred");
    g.defaultChannel = sorted[0] as string;
  }
  for (const channel of b.channels) {
    const replaces = new Map<string, BundleKey>();
    const cg = g.channels.get(channel);
    if (cg === undefined) {
      g.channels.set(channel, {
        head: newKey,
        nodes: new Map([[keyOf(newKey), { key: newKey, replaces: new Map() }]]),
      });
      continue;
    }
    let lowestAhead: { key: BundleKey; v: SemVer } | undefined;
    let greatestBehind: { key: BundleKey; v: SemVer } | undefined;
    const patchCandidates: BundleKey[] = [];
    for (const { key } of cg.nodes.values()) {
      const v = parseOr(
        key.version,
        `Unable to parse existing bundle version stored in index ${key.csvName} ${key.version} ${key.bundlePath}`,
      );
      const c = compareSemver(v, toAdd);
      if (c === 0) throw new AddError(`Bundle version ${b.version} already added to index`);
      if (c > 0 && (lowestAhead === undefined || compareSemver(v, lowestAhead.v) < 0))
        lowestAhead = { key, v };
      if (c < 0 && (greatestBehind === undefined || compareSemver(v, greatestBehind.v) > 0))
        greatestBehind = { key, v };
      if (skippatch && v.major === toAdd.major && v.minor === toAdd.minor && compareSemver(toAdd, v) > 0) {
        patchCandidates.push(key);
        replaces.set(keyOf(key), key);
      }
    }
    if (greatestBehind !== undefined) replaces.set(keyOf(greatestBehind.key), greatestBehind.key);
    if (lowestAhead !== undefined) {
      const la = lowestAhead.key;
      cg.nodes.set(keyOf(la), { key: la, replaces: new Map([[keyOf(newKey), newKey]]) });
    } else {
      cg.head = newKey;
    }
    for (const k of patchCandidates) cg.nodes.delete(keyOf(k));
    cg.nodes.set(keyOf(newKey), { key: newKey, replaces });
  }
  return g;
}

/** Write the package, its channels and their entries from the graph (opm's AddPackageChannelsFromGraph). */
export function addPackageChannelsFromGraph(t: RowStore, g: PackageGraph): string[] {
  const errs: string[] = [];
  const entry = t.getter('channel_entry');
  const [chName, chPkg] = [t.col('channel', 'name'), t.col('channel', 'package_name')] as const;
  const [ceName, cePkg] = [
    t.col('channel_entry', 'channel_name'),
    t.col('channel_entry', 'package_name'),
  ] as const;
  const isChannel =
    (name: string) =>
    (r: SqlValue[]): boolean =>
      r[chName] === name && r[chPkg] === g.name;
  const isEntryOf =
    (name: string) =>
    (r: SqlValue[]): boolean =>
      r[ceName] === name && r[cePkg] === g.name;
  // INSERT OR REPLACE: the old row goes, the new one has no default channel yet.
  const pkgName = t.col('package', 'name');
  t.deleteWhere('package', (r) => r[pkgName] === g.name);
  const pkgRow = t.insertNamed('package', { name: g.name });
  for (const [name, ch] of g.channels) {
    t.deleteWhere('channel', isChannel(name));
    t.deleteWhere('channel_entry', isEntryOf(name));
    t.insertNamed('channel', { name, package_name: g.name, head_operatorbundle_name: ch.head.csvName });
  }
  if (t.find('channel', isChannel(g.defaultChannel)) === undefined) {
    errs.push(`the default channel (${g.defaultChannel}) does not exist: FOREIGN KEY constraint failed`);
  } else {
    t.set('package', pkgRow, 'default_channel', g.defaultChannel);
  }
  for (const [name, ch] of g.channels) {
    t.deleteWhere('channel_entry', isEntryOf(name));
    let current = ch.head;
    let depth = 0;
    let previous: SqlValue[] | undefined;
    for (;;) {
      const id = t.insertNamed('channel_entry', {
        channel_name: name,
        package_name: g.name,
        operatorbundle_name: current.csvName,
        depth,
      });
      if (previous !== undefined) t.set('channel_entry', previous, 'replaces', entry(id, 'entry_id'));
      let next: BundleKey | undefined;
      let syntheticDepth = depth + 1;
      for (const r of ch.nodes.get(keyOf(current))?.replaces.values() ?? []) {
        if (ch.nodes.has(keyOf(r))) {
          next = r;
          continue;
        }
        const replaced = t.insertNamed('channel_entry', {
          channel_name: name,
          package_name: g.name,
          operatorbundle_name: r.csvName,
          depth: syntheticDepth,
        });
        t.insertNamed('channel_entry', {
          channel_name: name,
          package_name: g.name,
          operatorbundle_name: current.csvName,
          depth: syntheticDepth,
          replaces: entry(replaced, 'entry_id'),
        });
        syntheticDepth++;
      }
      if (next === undefined) {
        const expected = ch.nodes.size - 1;
        if (expected !== depth)
          errs.push(
            `Invalid graph: some (non-bottom) nodes defined in the graph were not mentioned as replacements of any node (${expected} != ${depth})`,
          );
        break;
      }
      current = next;
      previous = id;
      depth++;
    }
  }
  return errs;
}
