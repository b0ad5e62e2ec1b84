// The SQLite file reader against sqlite3 itself: tables written by the sqlite3 command line (small
// and large pages, deep b-trees, overflow chains, columns added by ALTER TABLE, integer keys as
// rowids, every kind of value) read back row for row as sqlite3 prints them.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteDatabase } from '../../src/sqlite/database.js';
import { haveSqlite3, sqlite3 } from './index-db.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'opm-sqlite-file-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Rows as sqlite3 prints them in JSON mode. */
function sqliteRows(file: string, sql: string): Record<string, unknown>[] {
  const r = spawnSync('sqlite3', ['-json', file, sql], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout.trim() === '' ? [] : (JSON.parse(r.stdout) as Record<string, unknown>[]);
}

function ours(file: string, table: string): Record<string, unknown>[] {
  const db = SqliteDatabase.open(file);
  try {
    return [...db.rows(table)].map((r) =>
      Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])),
    );
  } finally {
    db.close();
  }
}

describe.runIf(haveSqlite3)('SQLite file format', () => {
  it.each([512, 4096, 65536])(
    'page size %i: deep trees and overflow chains read as sqlite3 reads them',
    (size) => {
      const file = path.join(tmp, `p${size}.db`);
      const rows = Array.from({ length: 400 }, (_, i) => {
        const text = `row ${i} ${'é✓'.repeat(i % 7)} ${'x'.repeat((i * 97) % 9000)}`;
        return `INSERT INTO t(id, name, n, f, big) VALUES (${i * 3 + 1}, '${text}', ${i % 5 === 0 ? 'NULL' : i * 1000003}, ${i / 7}, ${2 ** 40 + i});`;
      });
      sqlite3(
        file,
        [
          `PRAGMA page_size=${size};`,
          'CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, n INTEGER, f REAL, big INTEGER);',
          'BEGIN;',
          ...rows,
          'COMMIT;',
          'ALTER TABLE t ADD COLUMN later TEXT;',
          "UPDATE t SET later = 'set' WHERE id % 2 = 0;",
          'DELETE FROM t WHERE id % 11 = 0;',
        ].join('\n'),
      );
      const want = sqliteRows(file, 'SELECT id, name, n, f, big, later FROM t ORDER BY rowid');
      const got = ours(file, 't');
      expect(got).toHaveLength(want.length);
      expect(got).toEqual(want);
    },
  );
});
