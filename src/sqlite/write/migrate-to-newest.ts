/**
 * An index database below schema 13 brought to 13 before a write verb edits it, as opm v1.73's
 * migrator does first (the database given to a write verb is its output, so migrating it is what
 * was asked for). Migrations 10 to 13 are made here, on the content in memory: 10 fills each
 * property's bundle path, 11 adds `operatorbundle.substitutesfor` (SQLite's ALTER TABLE ADD
 * COLUMN: the column's text put before the table statement's closing parenthesis, NULL in every
 * row), 12 makes `deprecated` from the `olm.deprecated` properties, 13 drops deprecations of
 * bundles no longer there; `schema_migrations` then holds version 13 and the time of the
 * migration. Schemas below 9 are refused: their migrations derive rows from each CSV.
 */
import { OpmError } from '../../errors.js';
import { NEWEST_SCHEMA } from '../schema-version.js';
import { SCHEMA_13, sqliteTimestamp } from './schema-13.js';
import type { DatabaseContent, SchemaObject, SqlValue } from './content.js';
import { RowStore, sqlEquals } from './row-store.js';

/** The oldest schema migrated here. */
export const OLDEST_MIGRATED = 9;

/** The schema version `schema_migrations` holds (-1 when it holds none). */
export function schemaVersionOf(content: DatabaseContent): number {
  const v = content.rows.get('schema_migrations')?.[0]?.[0];
  return typeof v === 'number' || typeof v === 'bigint' ? Number(v) : -1;
}

/**
 * The content at schema 13 (changed in place), or an error naming `label` when its schema is
 * outside 9–13.
 */
export function migrateToNewest(content: DatabaseContent, label: string, now: Date): void {
  const version = schemaVersionOf(content);
  if (version === NEWEST_SCHEMA) return;
  if (version < OLDEST_MIGRATED || version > NEWEST_SCHEMA)
    throw new OpmError(
      `${label}: database schema version ${version}; opm-ts edits databases at versions ${OLDEST_MIGRATED} to ${NEWEST_SCHEMA} (migrating them to ${NEWEST_SCHEMA} first, as opm v1.73 does)`,
      {
        hint:
          version > NEWEST_SCHEMA
            ? `version ${NEWEST_SCHEMA} is the newest opm v1.73 knows`
            : 'migrate it first with opm v1.73 (any registry verb on it), or render it to a File-Based Catalog with `opm migrate`',
      },
    );
  const t = new RowStore(content);
  if (version < 10) setPropertyBundlePaths(t);
  let objects = content.objects;
  let rows = t.toContent().rows;
  if (version < 11) {
    objects = objects.map((o) => (o.type === 'table' && o.name === 'operatorbundle' ? addColumn(o) : o));
    rows.set(
      'operatorbundle',
      (rows.get('operatorbundle') ?? []).map((r) => [...r, null]),
    );
  }
  if (version < 12) {
    objects = [...objects, ...SCHEMA_13.filter((o) => o.tableName === 'deprecated').map((o) => ({ ...o }))];
    rows.set('deprecated', []);
  }
  content.objects = objects;
  content.rows = rows;
  const after = new RowStore(content);
  if (version < 12) fillDeprecated(after);
  dropStrandedDeprecations(after);
  // opm's migrator leaves one row: the version, the other columns their defaults (the time).
  const row: SqlValue[] = new Array<SqlValue>(after.width('schema_migrations')).fill(null);
  row[after.col('schema_migrations', 'version')] = NEWEST_SCHEMA;
  if (after.has('schema_migrations') && hasColumn(after, 'schema_migrations', 'timestamp'))
    row[after.col('schema_migrations', 'timestamp')] = sqliteTimestamp(now);
  rows = after.toContent().rows;
  rows.set('schema_migrations', [row]);
  content.rows = rows;
}

function hasColumn(t: RowStore, table: string, column: string): boolean {
  try {
    t.col(table, column);
    return true;
  } catch {
    return false;
  }
}

/** Migration 10: each property's bundle path from its bundle of the same name and version. */
function setPropertyBundlePaths(t: RowStore): void {
  const ob = t.getter('operatorbundle');
  const bundles = t.rows('operatorbundle');
  const pr = t.getter('properties');
  const pathCol = t.col('properties', 'operatorbundle_path');
  t.update(
    'properties',
    () => true,
    (r) => {
      const b = bundles.find(
        (x) =>
          sqlEquals(pr(r, 'operatorbundle_name'), ob(x, 'name')) &&
          sqlEquals(pr(r, 'operatorbundle_version'), ob(x, 'version')),
      );
      r[pathCol] = b === undefined ? null : ob(b, 'bundlepath');
    },
  );
}

/** SQLite's ALTER TABLE ADD COLUMN of migration 11 on the table's statement text. */
function addColumn(o: SchemaObject): SchemaObject {
  const sql = o.sql ?? '';
  const end = sql.lastIndexOf(')');
  return { ...o, sql: `${sql.slice(0, end)}, substitutesfor TEXT${sql.slice(end)}` };
}

/** Migration 12: INSERT OR REPLACE of every `olm.deprecated` property's bundle name. */
function fillDeprecated(t: RowStore): void {
  const pr = t.getter('properties');
  for (const r of t.rows('properties')) {
    if (pr(r, 'type') !== 'olm.deprecated') continue;
    t.insertOrReplace('deprecated', [pr(r, 'operatorbundle_name')], [0]);
  }
}

/** Migration 13: deprecations of bundles not in operatorbundle go. */
function dropStrandedDeprecations(t: RowStore): void {
  const names: SqlValue[] = t.rows('operatorbundle').map((r) => r[t.col('operatorbundle', 'name')] ?? null);
  const col = t.col('deprecated', 'operatorbundle_name');
  t.deleteWhere('deprecated', (r) => {
    const n = r[col] ?? null;
    return n !== null && !names.some((x) => sqlEquals(x, n));
  });
}
