/**
 * The semver modes of `registry add`: a package's version graph read back from its channel
 * entries, the new bundle placed in each of its channels by version (between the greatest version
 * behind it and the lowest ahead; in semver-skippatch it also replaces, and drops, the lower
 * patches of its minor), and the channels written again from the graph, as opm v1.73 does.
 */
import { compareUtf8 } from '../../go/utf8.js';
import { compareSemver, formatSemver, parseSemver, type SemVer } from '../../model/semver.js';
import type { BundleRecord } from './bundle-record.js';
import { AddError } from './loader.js';
import type { Row, Tables } from './tables.js';

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

const str = (v: Row[string] | undefined): string => (typeof v === 'string' ? v : '');

/** The graph of `pkg` from its channel entries; `undefined` when the package (or its default channel) is missing. */
export function packageGraph(t: Tables, pkg: string): PackageGraph | undefined {
  const p = t.find('package', (r) => r.name === pkg);
  if (p === undefined || p.default_channel === null) return undefined;
  const bundles = new Map<string, Row>();
  for (const r of t.rows('operatorbundle')) if (!bundles.has(str(r.name))) bundles.set(str(r.name), r);
  const byId = new Map<unknown, Row>();
  const entries = t.rows('channel_entry').filter((e) => e.package_name === pkg);
  for (const e of t.rows('channel_entry')) byId.set(e.entry_id, e);
  const keyFor = (name: string): BundleKey => {
    const b = bundles.get(name);
    return { csvName: name, version: str(b?.version), bundlePath: str(b?.bundlepath) };
  };
  const existing = new Set<string>();
  for (const e of entries) {
    const b = bundles.get(str(e.operatorbundle_name));
    if (b !== undefined) existing.add(keyOf(keyFor(str(e.operatorbundle_name))));
  }
  const graph = new Map<string, Map<string, { key: BundleKey; replaces: Map<string, BundleKey> }>>();
  const candidates = new Map<string, Map<string, BundleKey>>();
  for (const e of entries) {
    const ch = str(e.channel_name);
    if (!graph.has(ch)) graph.set(ch, new Map());
    const key = keyFor(str(e.operatorbundle_name));
    if (!existing.has(keyOf(key))) continue;
    graph.get(ch)?.set(keyOf(key), { key, replaces: new Map() });
    if (!candidates.has(ch)) candidates.set(ch, new Map());
    candidates.get(ch)?.set(keyOf(key), key);
  }
  for (const e of entries) {
    const ch = str(e.channel_name);
    const key = keyFor(str(e.operatorbundle_name));
    const replaced = e.replaces === null ? undefined : byId.get(e.replaces);
    const rk = replaced === undefined ? EMPTY : keyFor(str(replaced.operatorbundle_name));
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
  return { name: pkg, defaultChannel: str(p.default_channel), channels };
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
export function addPackageChannelsFromGraph(t: Tables, g: PackageGraph): string[] {
  const errs: string[] = [];
  // INSERT OR REPLACE: the old row goes, the new one has no default channel yet.
  t.delete('package', (r) => r.name === g.name);
  const pkgRow = t.insert('package', { name: g.name });
  for (const [name, ch] of g.channels) {
    t.delete('channel', (r) => r.name === name && r.package_name === g.name);
    t.delete('channel_entry', (r) => r.channel_name === name && r.package_name === g.name);
    t.insert('channel', { name, package_name: g.name, head_operatorbundle_name: ch.head.csvName });
  }
  if (t.find('channel', (r) => r.name === g.defaultChannel && r.package_name === g.name) === undefined) {
    errs.push(`the default channel (${g.defaultChannel}) does not exist: FOREIGN KEY constraint failed`);
  } else {
    pkgRow.default_channel = g.defaultChannel;
  }
  for (const [name, ch] of g.channels) {
    t.delete('channel_entry', (r) => r.channel_name === name && r.package_name === g.name);
    let current = ch.head;
    let depth = 0;
    let previous: Row | undefined;
    for (;;) {
      const id = t.insert('channel_entry', {
        channel_name: name,
        package_name: g.name,
        operatorbundle_name: current.csvName,
        depth,
      });
      if (previous !== undefined) previous.replaces = id.entry_id ?? null;
      let next: BundleKey | undefined;
      let syntheticDepth = depth + 1;
      for (const r of ch.nodes.get(keyOf(current))?.replaces.values() ?? []) {
        if (ch.nodes.has(keyOf(r))) {
          next = r;
          continue;
        }
        const replaced = t.insert('channel_entry', {
          channel_name: name,
          package_name: g.name,
          operatorbundle_name: r.csvName,
          depth: syntheticDepth,
        });
        t.insert('channel_entry', {
          channel_name: name,
          package_name: g.name,
          operatorbundle_name: current.csvName,
          depth: syntheticDepth,
          replaces: replaced.entry_id ?? null,
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
