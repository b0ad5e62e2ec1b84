/**
 * Reading an index database file: whether a file is one (SQLite's magic, as opm's file type check
 * looks for it), and its declarative config. The file is only ever read.
 */
import { openSync, readSync, closeSync } from 'node:fs';
import type { DeclarativeConfig } from '../declcfg/types.js';
import { SqliteDatabase } from './database.js';
import { indexToDeclcfg, type IndexReadOptions } from './index-to-declcfg.js';

/** What opm says once when it reads a SQLite catalog. */
export const SQLITE_DEPRECATION_NOTICE =
  'DEPRECATION NOTICE: Sqlite-based catalogs and their related subcommands are deprecated. Support for them will be removed in a future release. Please migrate your catalog workflows to the new file-based catalog format.';

/** The same notice as opm logs it: over four lines, in bold yellow (terminal escape codes included). */
export const SQLITE_DEPRECATION_MESSAGE = `\x1b[1;33mDEPRECATION NOTICE:
Sqlite-based catalogs and their related subcommands are deprecated. Support for
them will be removed in a future release. Please migrate your catalog workflows
to the new file-based catalog format.\x1b[0m`;

const MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/** Whether the file starts as a SQLite 3 database does. */
export function looksLikeSqlite(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(MAGIC.length);
    const n = readSync(fd, head, 0, head.length, 0);
    return n === MAGIC.length && head.equals(MAGIC);
  } finally {
    closeSync(fd);
  }
}

/** The declarative config of the index database `file`, as opm v1.73's render gives it. */
export function readIndexDatabase(file: string, opts: IndexReadOptions = {}): DeclarativeConfig {
  const db = SqliteDatabase.open(file);
  try {
    return indexToDeclcfg(db, opts);
  } finally {
    db.close();
  }
}
