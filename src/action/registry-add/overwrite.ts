/**
 * `--overwrite-latest` of `registry add` and `index add` (hidden in opm): a bundle whose CSV name is
 * already a channel head of its package replaces that head. Which bundles overwrite, the check that
 * each is a head in every channel holding it, and the old head's removal (its channels' heads moved
 * to the bundle it replaced) as opm v1.73 makes them.
 */
import { AddError, findBy } from './add-error.js';
import type { BundleRecord } from './bundle-record.js';
import type { SqlValue } from '../../sqlite/file.js';
import { removeBundle } from '../../sqlite/remove-packages.js';
import { sqlEquals, type RowStore } from '../../sqlite/write/row-store.js';

const str = (v: SqlValue | undefined): string => (typeof v === 'string' ? v : '');

/** The old heads to remove by package (a bundle not in the database overwrites nothing). */
export function overwrittenHeads(t: RowStore, bundles: readonly BundleRecord[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const path = t.col('operatorbundle', 'bundlepath');
  for (const b of bundles) {
    const row = findBy(t, 'operatorbundle', 'name', b.name);
    if (row === undefined) continue;
    if (str(row[path]) === '')
      throw new AddError('index add --overwrite-latest is only supported when using bundle images');
    out.set(b.packageName, [...(out.get(b.packageName) ?? []), b.name]);
  }
  return out;
}

/**
 * The first bundle (in the operatorbundle table) whose channel entry replaces an entry of `name`
 * in `pkg` (and `channel`, when given), with that channel: what opm's queries find to say that
 * `name` is not a channel head there.
 */
export function replacedBy(
  t: RowStore,
  name: string,
  pkg: string,
  channel?: string,
): { by: string; channel: string } | undefined {
  const ce = t.getter('channel_entry');
  const mine = new Map<SqlValue, string>();
  for (const e of t.rows('channel_entry')) {
    if (ce(e, 'operatorbundle_name') !== name || ce(e, 'package_name') !== pkg) continue;
    if (channel !== undefined && ce(e, 'channel_name') !== channel) continue;
    mine.set(ce(e, 'entry_id'), str(ce(e, 'channel_name')));
  }
  const bundles = new Set(t.rows('operatorbundle').map((r) => r[t.col('operatorbundle', 'name')]));
  for (const r of t.rows('channel_entry')) {
    const replaced = ce(r, 'replaces');
    const ch = replaced === null ? undefined : mine.get(replaced);
    const by = ce(r, 'operatorbundle_name');
    if (ch !== undefined && by !== null && bundles.has(by)) return { by: str(by), channel: ch };
  }
  return undefined;
}

/**
 * Remove the head `bundle` of `pkg`: each channel it heads is headed by the bundle its entry
 * replaces; where it replaces none, the default channel's head is emptied first (so that the
 * package is not deleted with it); then the bundle's rows and its deprecation go.
 */
export function removeOverwrittenChannelHead(t: RowStore, pkg: string, bundle: string): void {
  const replaced = replacedBy(t, bundle, pkg);
  if (replaced !== undefined)
    throw new AddError(
      `cannot overwrite bundle ${bundle} from package ${pkg}: replaced by ${replaced.by} on channel ${replaced.channel}`,
    );
  const ce = t.getter('channel_entry');
  const byId = new Map(t.rows('channel_entry').map((e) => [ce(e, 'entry_id'), e]));
  const bundles = new Set(t.rows('operatorbundle').map((r) => r[t.col('operatorbundle', 'name')]));
  // Per channel, the bundle's entry of least depth (SQLite's min() picks that row's columns).
  const least = new Map<string, SqlValue[]>();
  for (const e of t.rows('channel_entry')) {
    if (ce(e, 'operatorbundle_name') !== bundle || ce(e, 'package_name') !== pkg) continue;
    const ch = str(ce(e, 'channel_name'));
    const seen = least.get(ch);
    const depth = ce(e, 'depth');
    const seenDepth = seen === undefined ? null : ce(seen, 'depth');
    if (seen === undefined || (depth !== null && (seenDepth === null || Number(depth) < Number(seenDepth))))
      least.set(ch, e);
  }
  const channel = t.getter('channel');
  const defaultChannel = findBy(t, 'package', 'name', pkg)?.[t.col('package', 'default_channel')] ?? null;
  for (const [ch, e] of least) {
    const target = byId.get(ce(e, 'replaces'));
    const name = target === undefined ? null : ce(target, 'operatorbundle_name');
    const head = t.col('channel', 'head_operatorbundle_name');
    const inChannel = (c: SqlValue[]): boolean =>
      channel(c, 'package_name') === pkg && channel(c, 'name') === ch;
    if (name !== null && bundles.has(name) && name !== '') {
      t.update(
        'channel',
        (c) => inChannel(c) && channel(c, 'head_operatorbundle_name') === bundle,
        (c) => {
          c[head] = name;
        },
      );
    } else {
      t.update(
        'channel',
        (c) => inChannel(c) && sqlEquals(ch, defaultChannel),
        (c) => {
          c[head] = null;
        },
      );
    }
  }
  removeBundle(t, bundle);
  const dep = t.col('deprecated', 'operatorbundle_name');
  t.deleteWhere('deprecated', (r) => r[dep] === bundle);
}
