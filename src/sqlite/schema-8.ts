/**
 * A database at schema 6 to 8 read as opm reads it after migrating it: migration 8 (for 6 and 7)
 * writes a `dependencies` row per distinct API each bundle requires in `api_requirer`; migration 9 writes each
 * bundle's properties from `api_provider` (its package, taken from its first channel entry, and one
 * GVK per provided API), and then sets every row of `dependencies` to the first row's value less its
 * `type` key (its UPDATE's subquery compares the table with itself, so every row matches the first).
 */
import { OpmError } from '../errors.js';
import { marshal } from '../go/json-encode.js';
import type { Row, SqliteDatabase } from './database.js';
import { text } from './channel-rows.js';
import type { TypedValue } from './bundle-rows.js';

/** The properties migration 9 writes, by bundle name, in the order it would add them. */
export function propertiesFromProvidedApis(db: SqliteDatabase): Map<string, TypedValue[]> {
  const pkgOf = new Map<string, string>();
  for (const r of db.rows('channel_entry')) {
    const name = text(r.operatorbundle_name);
    const pkg = text(r.package_name);
    if (name !== null && pkg !== null && !pkgOf.has(name)) pkgOf.set(name, pkg);
  }
  const bundles = new Map<string, { name: string; version: string; apis: Map<string, TypedValue> }>();
  for (const r of apiRows(db, 'api_provider')) {
    const [group, version, kind, name] = [r.group_name, r.version, r.kind, r.operatorbundle_name].map(text);
    if (group === null || version === null || kind === null || name === null || name === undefined) continue;
    const bundleVersion = text(r.operatorbundle_version) ?? '';
    const key = JSON.stringify([name, bundleVersion, text(r.operatorbundle_path)]);
    let b = bundles.get(key);
    if (b === undefined) bundles.set(key, (b = { name, version: bundleVersion, apis: new Map() }));
    const value = marshal({ group, kind, version });
    b.apis.set(value, { type: 'olm.gvk', value });
  }
  const out = new Map<string, TypedValue[]>();
  for (const b of bundles.values()) {
    const list = out.get(b.name) ?? [];
    list.push({
      type: 'olm.package',
      value: marshal({ packageName: pkgOf.get(b.name) ?? '', version: b.version }),
    });
    list.push(...b.apis.values());
    out.set(b.name, list);
  }
  return out;
}

/** `dependencies` after migration 9's UPDATE: every value the first row's, without `type`. */
export function dependenciesAfterMigration9(deps: Map<string, TypedValue[]>): Map<string, TypedValue[]> {
  const first = [...deps.values()][0]?.[0];
  if (first === undefined) return deps;
  let parsed: unknown;
  try {
    parsed = JSON.parse(first.value);
  } catch {
    throw new OpmError('malformed JSON in the dependencies table (migration 9 of opm would fail on it)');
  }
  let value = first.value;
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
    const o = { ...(parsed as Record<string, unknown>) };
    delete o.type;
    value = JSON.stringify(o);
  }
  return new Map([...deps].map(([name, list]) => [name, list.map((d) => ({ type: d.type, value }))]));
}

/**
 * The `dependencies` rows migration 8 writes from `api_requirer` (schemas 6 and 7): one per
 * bundle and distinct required API, of type olm.gvk, its value the API with `type` in it. opm
 * inserts them in Go's map order (random from run to run); here in table order. Only which value
 * comes first matters afterwards (migration 9 gives every row that one), so the result is opm's
 * whenever the database requires one API at most, as most do.
 */
export function dependenciesFromRequiredApis(db: SqliteDatabase): Map<string, TypedValue[]> {
  const out = new Map<string, TypedValue[]>();
  const seen = new Set<string>();
  for (const r of apiRows(db, 'api_requirer')) {
    const [group, version, kind, name] = [r.group_name, r.version, r.kind, r.operatorbundle_name].map(text);
    if (group === null || version === null || kind === null || name === null || name === undefined) continue;
    const key = JSON.stringify([
      name,
      text(r.operatorbundle_version),
      text(r.operatorbundle_path),
      group,
      version,
      kind,
    ]);
    if (seen.has(key)) continue;
    seen.add(key);
    const value = marshal({ group, kind, type: 'olm.gvk', version });
    const list = out.get(name) ?? [];
    list.push({ type: 'olm.gvk', value });
    out.set(name, list);
  }
  return out;
}

/**
 * The rows of `api_provider` or `api_requirer` as migration 6 leaves them: before it (schema 5 and
 * older) each row names a channel entry, whose bundle (joined by name) gives the name, version and
 * path the rows name from then on.
 */
function* apiRows(db: SqliteDatabase, table: string): Generator<Row> {
  if (!db.hasColumn(table, 'channel_entry_id')) {
    yield* db.rows(table);
    return;
  }
  const bundleOfEntry = new Map<string, string>();
  for (const e of db.rows('channel_entry')) {
    const name = text(e.operatorbundle_name);
    if (name !== null) bundleOfEntry.set(String(e.entry_id), name);
  }
  const bundles = new Map<string, Row>();
  for (const b of db.rows('operatorbundle')) {
    const name = text(b.name);
    if (name !== null && !bundles.has(name)) bundles.set(name, b);
  }
  for (const r of db.rows(table)) {
    const entry = r.channel_entry_id;
    const name = entry === null || entry === undefined ? undefined : bundleOfEntry.get(String(entry));
    const b = name === undefined ? undefined : bundles.get(name);
    if (b === undefined) continue;
    yield {
      group_name: r.group_name ?? null,
      version: r.version ?? null,
      kind: r.kind ?? null,
      operatorbundle_name: b.name ?? null,
      operatorbundle_version: b.version ?? null,
      operatorbundle_path: b.bundlepath ?? null,
    };
  }
}
