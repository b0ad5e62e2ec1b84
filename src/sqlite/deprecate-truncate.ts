/**
 * `registry deprecatetruncate` on an index database, row for row as opm v1.73 leaves it: each
 * named bundle image is marked deprecated (an olm.deprecated property and a row in `deprecated`),
 * the channels it heads go, and the bundles it replaces are taken out of its channels — and out of
 * the database when no other channel or bundle still needs them. A bundle whose replaces chain
 * reaches its package's default channel head is refused; with package removal allowed, a package
 * whose every channel head is named goes whole.
 */
import type { SqlValue } from './file.js';
import { OpmError } from '../errors.js';
import { sqlEquals, type RowStore } from './write/row-store.js';
import { removeBundle, removePackage, removeStrandedDeprecated } from './remove-packages.js';

/** The image is not in the database: opm passes over it without a word. */
class NotInDatabase extends Error {}
/** The truncation would reach the default channel's head: opm goes on with the next bundle. */
class DefaultChannelHead extends OpmError {
  constructor() {
    super('Bundle deprecation causing default channel removal');
  }
}

interface Entry {
  id: SqlValue;
  channel: SqlValue;
  pkg: SqlValue;
  bundle: SqlValue;
  replaces: SqlValue;
}

function entries(store: RowStore): Entry[] {
  const g = store.getter('channel_entry');
  return store.rows('channel_entry').map((r) => ({
    id: g(r, 'entry_id'),
    channel: g(r, 'channel_name'),
    pkg: g(r, 'package_name'),
    bundle: g(r, 'operatorbundle_name'),
    replaces: g(r, 'replaces'),
  }));
}

interface Tail {
  channels: Set<string>;
  replaces: string[];
  replacedBy: string[];
}

/** The default channel's head of the package the bundle `head` is in (the first such row). */
function defaultChannelHead(store: RowStore, head: string): string {
  const pg = store.getter('package');
  const cg = store.getter('channel');
  for (const e of entries(store)) {
    if (!sqlEquals(e.bundle, head)) continue;
    for (const c of store.rows('channel')) {
      if (!sqlEquals(cg(c, 'package_name'), e.pkg)) continue;
      const isDefault = store
        .rows('package')
        .some(
          (p) =>
            sqlEquals(pg(p, 'name'), cg(c, 'package_name')) &&
            sqlEquals(pg(p, 'default_channel'), cg(c, 'name')),
        );
      if (!isDefault) continue;
      const h = cg(c, 'head_operatorbundle_name');
      if (typeof h !== 'string' || h === '')
        throw new OpmError(`invalid default channel head '${typeof h === 'string' ? h : ''}' for ${head}`);
      return h;
    }
  }
  throw new OpmError(`error getting default channel head for ${head}: sql: no rows in result set`);
}

/**
 * The bundles down the replaces chain from `head` (in any channel), each with the channels it is
 * in, the bundles it replaces and those replacing it.
 */
function tailOf(store: RowStore, head: string): Map<string, Tail> {
  const all = entries(store);
  const byId = new Map<string, Entry>();
  for (const e of all) byId.set(String(e.id), e);
  const rows = new Map<string, [string, string | null, string | null, SqlValue, SqlValue]>();
  const work: string[] = [head];
  const visited = new Set<string>();
  while (work.length > 0) {
    const name = work.shift() as string;
    if (visited.has(name)) continue;
    visited.add(name);
    for (const e of all) {
      if (!sqlEquals(e.bundle, name)) continue;
      const replaced = e.replaces === null ? undefined : byId.get(String(e.replaces));
      const replacesName = typeof replaced?.bundle === 'string' ? replaced.bundle : null;
      const by = all
        .filter((r) => r.replaces !== null && sqlEquals(r.replaces, e.id))
        .map((r) => (typeof r.bundle === 'string' ? r.bundle : null));
      for (const b of by.length === 0 ? [null] : by) {
        const t: [string, string | null, string | null, SqlValue, SqlValue] = [
          name,
          replacesName,
          b,
          e.channel,
          e.pkg,
        ];
        rows.set(JSON.stringify(t), t);
      }
      if (replacesName !== null) work.push(replacesName);
    }
  }
  const defaultHead = defaultChannelHead(store, head);
  const tail = new Map<string, Tail>();
  for (const [bundle, replaces, by, channel] of rows.values()) {
    if (bundle === defaultHead) throw new DefaultChannelHead();
    const t = tail.get(bundle) ?? { channels: new Set<string>(), replaces: [], replacedBy: [] };
    if (typeof channel === 'string' && channel !== '') t.channels.add(channel);
    if (replaces !== null && replaces !== '' && !t.replaces.includes(replaces)) t.replaces.push(replaces);
    if (by !== null && by !== '' && !t.replacedBy.includes(by)) t.replacedBy.push(by);
    tail.set(bundle, t);
  }
  return tail;
}

/** Take `csv` out of the channels `head` is in, and the edges to it there. */
function removeSharedEntries(store: RowStore, csv: string, head: string): void {
  const headChannels = entries(store)
    .filter((e) => sqlEquals(e.bundle, head))
    .map((e) => e.channel);
  const inShared = (e: Entry): boolean =>
    sqlEquals(e.bundle, csv) && headChannels.some((c) => sqlEquals(c, e.channel));
  const ids = entries(store)
    .filter(inShared)
    .map((e) => e.id);
  const g = store.getter('channel_entry');
  const rep = store.col('channel_entry', 'replaces');
  store.update(
    'channel_entry',
    (r) => ids.some((id) => sqlEquals(g(r, 'replaces'), id)),
    (r) => {
      r[rep] = null;
    },
  );
  store.deleteWhere('channel_entry', (r) =>
    inShared({
      id: null,
      channel: g(r, 'channel_name'),
      pkg: null,
      bundle: g(r, 'operatorbundle_name'),
      replaces: null,
    }),
  );
}

/** The bundle an image is, by its bundlepath: the first by name, as the covering index gives it. */
function bundleOfImage(store: RowStore, image: string): [string, string] {
  const g = store.getter('operatorbundle');
  const hits = store
    .rows('operatorbundle')
    .filter((r) => sqlEquals(g(r, 'bundlepath'), image))
    .map((r) => [g(r, 'name'), g(r, 'version')] as const)
    .sort((a, b) => Buffer.compare(Buffer.from(String(a[0])), Buffer.from(String(b[0]))));
  const [name, version] = hits[0] ?? [null, null];
  if (typeof name === 'string' && typeof version === 'string') return [name, version];
  throw new NotInDatabase();
}

function deprecateBundle(store: RowStore, image: string): void {
  const [name, version] = bundleOfImage(store, image);
  const tail = tailOf(store, name);
  const queue = [name];
  const seen = new Set([name]);
  const headChannels = tail.get(name)?.channels ?? new Set<string>();
  for (; queue.length > 0; queue.shift()) {
    const bundle = queue[0] as string;
    const t = tail.get(bundle);
    if (t === undefined) continue;
    for (const b of t.replaces) {
      if (!seen.has(b)) {
        queue.push(b);
        seen.add(b);
      }
    }
    if (bundle === name) continue;
    removeSharedEntries(store, bundle, name);
    // Still in a channel the deprecated bundle is not in, or replaced by a bundle outside the tail: kept.
    if (t.channels.size > headChannels.size) continue;
    if ([...t.channels].some((c) => !headChannels.has(c))) continue;
    if (t.replacedBy.some((b) => !tail.has(b))) continue;
    removeBundle(store, bundle);
  }
  const g = store.getter('channel_entry');
  const rep = store.col('channel_entry', 'replaces');
  store.update(
    'channel_entry',
    (r) => sqlEquals(g(r, 'operatorbundle_name'), name),
    (r) => {
      r[rep] = null;
    },
  );
  const head = store.col('channel', 'head_operatorbundle_name');
  store.deleteWhere('channel', (r) => sqlEquals(r[head] ?? null, name));
  const values: SqlValue[] = Array.from({ length: store.width('properties') }, () => null);
  const set = (c: string, v: SqlValue): void => {
    values[store.col('properties', c)] = v;
  };
  set('type', 'olm.deprecated');
  set('value', '{}');
  set('operatorbundle_name', name);
  set('operatorbundle_version', version === '' ? null : version);
  set('operatorbundle_path', image === '' ? null : image);
  store.insert('properties', values);
  const dep = store.col('deprecated', 'operatorbundle_name');
  const row: SqlValue[] = Array.from({ length: store.width('deprecated') }, () => null);
  row[dep] = name;
  store.insertOrReplace('deprecated', row, [dep]);
  removeStrandedDeprecated(store);
}

/** The bundle images opm knows: those of bundles some channel entry names. */
function listedImages(store: RowStore): Set<string> {
  const named = new Set(entries(store).map((e) => e.bundle));
  const g = store.getter('operatorbundle');
  const out = new Set<string>();
  for (const r of store.rows('operatorbundle')) {
    const p = g(r, 'bundlepath');
    if (named.has(g(r, 'name')) && typeof p === 'string') out.add(p);
  }
  return out;
}

export interface DeprecateOptions {
  images: string[];
  permissive: boolean;
  allowPackageRemoval: boolean;
}

/** What went wrong, when --permissive let it pass (each as opm words it). */
export function deprecateTruncate(store: RowStore, opts: DeprecateOptions): string[] {
  const problems: string[] = [];
  const fail = (message: string): void => {
    if (!opts.permissive) throw new OpmError(message);
    problems.push(message);
  };
  let images = opts.images;
  const listed = listedImages(store);
  if (images.length > 0 && listed.size === 0) images = [];
  const missing = images.filter((i) => !listed.has(i));
  if (missing.length > 0) {
    fail(`target bundlepaths for deprecation missing from registry: [${missing.join(' ')}]`);
    images = images.filter((i) => listed.has(i));
  }
  if (opts.allowPackageRemoval) images = removeWholePackages(store, images, fail);
  for (const image of images) {
    const restore = store.snapshot();
    try {
      deprecateBundle(store, image);
    } catch (err) {
      restore();
      if (err instanceof NotInDatabase) continue;
      if (!(err instanceof OpmError)) throw err;
      fail(`error deprecating bundle ${image}: ${err.message}`);
      if (!(err instanceof DefaultChannelHead)) break;
    }
  }
  return problems;
}

/**
 * Packages whose default channel head is named and every channel head too are removed whole; the
 * images left are those still to deprecate.
 */
function removeWholePackages(store: RowStore, images: string[], fail: (m: string) => void): string[] {
  const pg = store.getter('package');
  const cg = store.getter('channel');
  const og = store.getter('operatorbundle');
  const nameOf = (image: string): SqlValue =>
    store.rows('operatorbundle').find((r) => sqlEquals(og(r, 'bundlepath'), image))?.[
      store.col('operatorbundle', 'name')
    ] ?? null;
  const packages: string[] = [];
  for (const image of images) {
    const bundle = nameOf(image);
    let found = '';
    for (const p of store.rows('package')) {
      for (const c of store.rows('channel')) {
        if (
          sqlEquals(cg(c, 'package_name'), pg(p, 'name')) &&
          sqlEquals(pg(p, 'default_channel'), cg(c, 'name')) &&
          sqlEquals(cg(c, 'head_operatorbundle_name'), bundle)
        ) {
          const n = cg(c, 'package_name');
          found = typeof n === 'string' ? n : '';
        }
      }
    }
    if (found !== '') packages.push(found);
  }
  if (packages.length === 0) return images;
  const removedImages: string[] = [];
  for (const pkg of packages) {
    const channels = [
      ...new Set(
        store
          .rows('channel')
          .filter((c) => sqlEquals(cg(c, 'package_name'), pkg))
          .map((c) => cg(c, 'name')),
      ),
    ];
    for (const ch of channels) {
      let headImage = '';
      for (const c of store.rows('channel')) {
        if (!sqlEquals(cg(c, 'package_name'), pkg) || !sqlEquals(cg(c, 'name'), ch)) continue;
        for (const b of store.rows('operatorbundle')) {
          if (sqlEquals(og(b, 'name'), cg(c, 'head_operatorbundle_name')))
            headImage = String(og(b, 'bundlepath') ?? '');
        }
      }
      if (!images.includes(headImage)) {
        fail(
          `cannot deprecate default channel head from package without removing all other channel heads in package ${pkg}: must deprecate ${headImage}, head of channel ${String(ch)}`,
        );
        return images;
      }
      removedImages.push(headImage);
    }
  }
  for (const pkg of packages) {
    try {
      removePackage(store, pkg);
    } catch (err) {
      if (!(err instanceof OpmError)) throw err;
      fail(`error removing package ${pkg}: ${err.message}`);
    }
  }
  return images.filter((i) => !removedImages.includes(i));
}
