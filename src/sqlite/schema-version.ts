/**
 * The schema version of an index database (`schema_migrations`, migrations 0 to 13 in opm v1.73)
 * and whether this reader takes it. opm migrates a database to the newest version, in place,
 * before reading it; this reader never writes, and reads the versions whose rows give the same
 * result as the migrated database does.
 */
import { OpmError } from '../errors.js';
import type { SqliteDatabase } from './database.js';
import { text } from './channel-rows.js';

/** The newest schema opm v1.73 knows. */
export const NEWEST_SCHEMA = 13;
/**
 * The oldest schema read: from 9 on as it is (bundles' properties have their table); 5 to 8 as
 * migrations 6, 8 and 9 would leave them (schema-8.ts; migration 7 adds columns nothing reads).
 */
export const OLDEST_READ_AS_IS = 5;

/** The version recorded in the database; -1 when none is (opm's migrator then runs them all). */
export function schemaVersion(db: SqliteDatabase): number {
  for (const r of db.rows('schema_migrations')) {
    const v = Number(text(r.version));
    return Number.isInteger(v) ? v : -1;
  }
  return -1;
}

/** Throws unless the database's schema is one this reader takes. */
export function readableSchema(db: SqliteDatabase): number {
  const v = schemaVersion(db);
  if (v > NEWEST_SCHEMA) {
    throw new OpmError(
      `database schema version ${v} is newer than ${NEWEST_SCHEMA}, the newest opm v1.73 knows`,
      {
        hint: 'it was written by a newer tool; render it with that tool',
      },
    );
  }
  if (v < OLDEST_READ_AS_IS) {
    // opm v1.73 cannot read these either: its migration 5 fails ("database table is locked") on
    // any database holding a bundle, and its migrations would leave every bundle without a version.
    throw new OpmError(
      `database schema version ${v} is older than ${OLDEST_READ_AS_IS}: opm v1.73's migrations fail on it too ("database table is locked")`,
      { hint: 'build the index again from its bundle images' },
    );
  }
  const tables = ['package', 'channel', 'channel_entry', 'operatorbundle'];
  const perVersion =
    v >= 9
      ? ['dependencies', 'properties']
      : v === 8
        ? ['dependencies', 'api_provider']
        : ['api_provider', 'api_requirer'];
  for (const t of [...tables, ...perVersion]) {
    if (!db.hasTable(t)) throw new OpmError(`not an opm index database: table ${t} is missing`);
  }
  return v;
}
