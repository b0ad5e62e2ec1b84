/**
 * The rows opm's bundle listing gives for an index database: one per bundle and channel, with the
 * one `replaces` and the `skips` it reads from `channel_entry`. Each row of that table is an inbound
 * upgrade edge; opm follows `replaces` from the entries of least depth (the channel heads), keeps the
 * greatest bundle name an entry of that walk replaces as the bundle's `replaces`, and lists the
 * targets of every other edge as its `skips`, in entry order.
 */
import { compareUtf8 } from '../go/utf8.js';
import type { SqlValue } from './file.js';
import type { Row } from './database.js';

export interface ChannelEntryRow {
  id: number;
  channel: string | null;
  pkg: string | null;
  bundle: string | null;
  replaces: number | null;
  depth: number | null;
}

/** A bundle's place in one channel. */
export interface BundleInChannel {
  pkg: string | null;
  channel: string | null;
  /** The least entry id of the bundle in the channel (the order opm's listing groups by). */
  firstEntry: number;
  replaces: string | null;
  skips: string[] | null;
}

/** A column's value as text, as Go's sql.NullString scans it (null for NULL). */
export function text(v: SqlValue | undefined): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  return String(v);
}

function int(v: SqlValue | undefined): number | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return Number.isInteger(v) ? v : null;
  if (typeof v === 'bigint') return Number(v);
  const t = text(v) ?? '';
  return /^-?\d+$/.test(t.trim()) ? Number(t) : null;
}

export function channelEntryRow(r: Row): ChannelEntryRow {
  return {
    id: int(r.entry_id) ?? 0,
    channel: text(r.channel_name),
    pkg: text(r.package_name),
    bundle: text(r.operatorbundle_name),
    replaces: int(r.replaces),
    depth: int(r.depth),
  };
}

/** Group key of (bundle, package, channel); NULLs group together, as in SQL's GROUP BY. */
function groupKey(e: ChannelEntryRow): string {
  return JSON.stringify([e.bundle, e.pkg, e.channel]);
}

/** Each bundle name's places in channels, as opm's listing query gives them. */
export function bundlesInChannels(entries: readonly ChannelEntryRow[]): Map<string, BundleInChannel[]> {
  const byId = new Map<number, ChannelEntryRow>();
  for (const e of entries) byId.set(e.id, e);
  let tip: number | null = null;
  for (const e of entries) if (e.depth !== null && (tip === null || e.depth < tip)) tip = e.depth;
  // The replaces walk from the heads: the entries it reaches.
  const walk = new Set<number>();
  const todo = entries.filter((e) => tip !== null && e.depth === tip);
  while (todo.length > 0) {
    const e = todo.pop() as ChannelEntryRow;
    if (walk.has(e.id)) continue;
    walk.add(e.id);
    const next = e.replaces === null ? undefined : byId.get(e.replaces);
    if (next !== undefined) todo.push(next);
  }
  const groups = new Map<string, BundleInChannel & { bundle: string | null }>();
  const sorted = [...entries].sort((a, b) => a.id - b.id);
  for (const e of sorted) {
    const key = groupKey(e);
    let g = groups.get(key);
    if (g === undefined) {
      g = { bundle: e.bundle, pkg: e.pkg, channel: e.channel, firstEntry: e.id, replaces: null, skips: null };
      groups.set(key, g);
    }
    const target = e.replaces === null ? undefined : byId.get(e.replaces);
    if (target === undefined) continue;
    if (walk.has(e.id)) {
      const name = target.bundle;
      if (name !== null && (g.replaces === null || compareUtf8(name, g.replaces) > 0)) g.replaces = name;
    } else if (target.bundle !== null) {
      (g.skips ??= []).push(target.bundle);
    }
  }
  const out = new Map<string, BundleInChannel[]>();
  for (const g of groups.values()) {
    if (g.bundle === null) continue;
    const { bundle, ...place } = g;
    const list = out.get(bundle);
    if (list === undefined) out.set(bundle, [place]);
    else list.push(place);
  }
  return out;
}
