/**
 * Removing packages and stranded bundles from an index database, row for row as opm v1.73's
 * `registry rm`, `registry prune` and `registry prune-stranded` leave it (the deprecation-aware
 * package removal, then the clean-up of bundles no channel reaches, whose foreign keys cascade
 * through the bundle's properties, dependencies, related images, channels and APIs).
 */
import type { SqlValue } from './file.js';
import { OpmError } from '../errors.js';
import { sqlEquals, type RowStore } from './write/row-store.js';

/** `x NOT IN (values)` as SQL has it: NULL (so false) when x is NULL or a NULL is among the values. */
function notIn(x: SqlValue, values: readonly SqlValue[]): boolean {
  if (values.length === 0) return true;
  if (x === null) return false;
  let sawNull = false;
  for (const v of values) {
    if (v === null) sawNull = true;
    else if (sqlEquals(x, v)) return false;
  }
  return !sawNull;
}

const column = (store: RowStore, table: string, name: string): SqlValue[] => {
  const i = store.col(table, name);
  return store.rows(table).map((r) => r[i] ?? null);
};

/** The rows of a bundle go: the bundle (cascading), its API rows, its channel entries. */
export function removeBundle(store: RowStore, csv: string): void {
  const is =
    (table: string, col: string) =>
    (r: SqlValue[]): boolean =>
      sqlEquals(r[store.col(table, col)] ?? null, csv);
  store.deleteWhere('operatorbundle', is('operatorbundle', 'name'));
  store.deleteWhere('api_provider', is('api_provider', 'operatorbundle_name'));
  store.deleteWhere('api_requirer', is('api_requirer', 'operatorbundle_name'));
  store.deleteWhere('channel_entry', is('channel_entry', 'operatorbundle_name'));
}

/** The bundles in a package's channels, each once, in the order the entries hold them. */
export function packageBundles(store: RowStore, pkg: string): string[] {
  const g = store.getter('channel_entry');
  const out = new Set<string>();
  for (const r of store.rows('channel_entry')) {
    const name = g(r, 'operatorbundle_name');
    if (sqlEquals(g(r, 'package_name'), pkg) && typeof name === 'string') out.add(name);
  }
  return [...out];
}

/** The packages named in the package table, each once. */
export function listPackages(store: RowStore): string[] {
  const out = new Set<string>();
  for (const v of column(store, 'package', 'name')) if (typeof v === 'string') out.add(v);
  return [...out];
}

/**
 * Remove a package as opm's deprecation-aware loader does: the deprecations recorded for its
 * bundles, its bundles, its package and channel rows, then whatever that strands. Throws when no
 * channel entry names the package.
 */
export function removePackage(store: RowStore, pkg: string): void {
  // The last deprecated bundles of a package keep channel entries: they tie the deprecations to it.
  const inPackage = new Set(packageBundles(store, pkg));
  store.deleteWhere(
    'deprecated',
    (r) =>
      typeof r[store.col('deprecated', 'operatorbundle_name')] === 'string' &&
      inPackage.has(r[store.col('deprecated', 'operatorbundle_name')] as string),
  );
  const bundles = packageBundles(store, pkg);
  if (bundles.length === 0) throw new OpmError(`no package found for packagename ${pkg}`);
  for (const csv of bundles) removeBundle(store, csv);
  const pn = store.col('package', 'name');
  store.deleteWhere('package', (r) => sqlEquals(r[pn] ?? null, pkg));
  const cp = store.col('channel', 'package_name');
  store.deleteWhere('channel', (r) => sqlEquals(r[cp] ?? null, pkg));
  removeStrandedBundles(store);
}

/**
 * Bundles no channel entry names (unless deprecated), bundles whose olm.package property names a
 * package that is gone, and deprecations of bundles that are gone.
 */
export function removeStrandedBundles(store: RowStore): void {
  const entries = column(store, 'channel_entry', 'operatorbundle_name');
  const deprecated = column(store, 'deprecated', 'operatorbundle_name');
  const name = store.col('operatorbundle', 'name');
  store.deleteWhere(
    'operatorbundle',
    (r) => notIn(r[name] ?? null, entries) && notIn(r[name] ?? null, deprecated),
  );
  removeStrandedDeprecated(store);
}

/**
 * Bundles whose olm.package property names a package that is gone, and deprecations of bundles
 * that are gone.
 */
export function removeStrandedDeprecated(store: RowStore): void {
  const known = new Set<string>();
  for (const v of column(store, 'package', 'name')) {
    if (typeof v !== 'string' || v === '') throw new OpmError(`invalid package ${describe(v)}`);
    known.add(v);
  }
  const g = store.getter('properties');
  const seen = new Set<string>();
  const strays: string[] = [];
  for (const r of store.rows('properties')) {
    if (!sqlEquals(g(r, 'type'), 'olm.package')) continue;
    const bundle = g(r, 'operatorbundle_name');
    const value = g(r, 'value');
    const key = JSON.stringify([String(bundle), String(value)]);
    if (seen.has(key)) continue;
    seen.add(key);
    if (typeof bundle !== 'string' || bundle === '') throw new OpmError(`invalid bundle ${describe(bundle)}`);
    if (typeof value !== 'string' || value === '')
      throw new OpmError(`invalid package property on ${bundle}: ${describe(value)}`);
    if (!known.has(packageNameOf(value, bundle))) strays.push(bundle);
  }
  for (const b of strays) removeBundle(store, b);
  const names = column(store, 'operatorbundle', 'name');
  const dn = store.col('deprecated', 'operatorbundle_name');
  store.deleteWhere('deprecated', (r) => notIn(r[dn] ?? null, names));
}

function packageNameOf(value: string, bundle: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new OpmError(`bundle ${bundle}: its olm.package property is not JSON: ${value.slice(0, 80)}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new OpmError(`bundle ${bundle}: its olm.package property is not an object: ${value.slice(0, 80)}`);
  const p = (parsed as Record<string, unknown>).packageName;
  if (p !== undefined && p !== null && typeof p !== 'string')
    throw new OpmError(`bundle ${bundle}: its olm.package property's packageName is not a string`);
  return typeof p === 'string' ? p : '';
}

/** Go's %v of a sql.NullString. */
function describe(v: SqlValue): string {
  return typeof v === 'string' ? `{${v} true}` : '{ false}';
}
