// The SQLite file writer against sqlite3 itself: databases sqlite3 made (every kind of value, page
// sizes, overflow chains, deep trees, indexes of mixed keys, collations, DESC, triggers, views,
// empty tables) read and written again pass `PRAGMA integrity_check` and dump as the originals do;
// databases written from rows alone hold what sqlite3 would have made of the same statements.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readDatabaseContent, writeDatabaseContent } from '../../src/sqlite/write/content.js';
import { autoIndexes, tableObjects } from '../../src/sqlite/write/schema.js';
import { haveSqlite3, sqlite3 } from './index-db.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'opm-sqlite-write-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function run(file: string, ...args: string[]): string {
  const r = spawnSync('sqlite3', [file, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout;
}

/** Read with our reader, write with our writer, and compare with sqlite3's eyes. */
function roundTrip(src: string): string {
  const out = `${src}.out.db`;
  writeDatabaseContent(out, readDatabaseContent(src));
  expect(run(out, 'PRAGMA integrity_check').trim()).toBe('ok');
  expect(run(out, '.dump')).toBe(run(src, '.dump'));
  return out;
}

const q = (s: string): string => `'${s.replaceAll("'", "''")}'`;

describe.runIf(haveSqlite3)('SQLite file writer', () => {
  it.each([512, 4096, 65536])('a database of page size %i written again dumps the same', (size) => {
    const file = path.join(tmp, `mixed-${size}.db`);
    const stmts = [
      `PRAGMA page_size=${size};`,
      'PRAGMA user_version=7;',
      'CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, n INTEGER, f REAL, big INTEGER, b BLOB, any);',
      'CREATE INDEX t_name ON t(name, n);',
      'CREATE INDEX t_n ON t(n DESC);',
      'CREATE INDEX t_any ON t(any);',
      'CREATE TABLE u (a TEXT UNIQUE, b TEXT COLLATE NOCASE, c, PRIMARY KEY(b, c));',
      'CREATE TABLE empty (x TEXT PRIMARY KEY);',
      'CREATE TABLE ch (name TEXT, pkg TEXT, PRIMARY KEY(name, pkg) ON CONFLICT REPLACE, FOREIGN KEY(pkg) REFERENCES empty(x));',
      'CREATE TRIGGER tr AFTER DELETE ON t BEGIN DELETE FROM u WHERE a = OLD.name; END;',
      'CREATE VIEW v AS SELECT id, name FROM t;',
      'BEGIN;',
    ];
    const anys = [
      'NULL',
      '3',
      '-2.5',
      "'7'",
      "x'00ff'",
      "'\uffff'",
      "'\u{1d11e}'",
      "''",
      '9223372036854775807',
      '-9223372036854775808',
    ];
    for (let i = 0; i < 600; i++) {
      const text = `row ${i} ${'é✓'.repeat(i % 7)} ${'x'.repeat((i * 97) % 9000)}`;
      stmts.push(
        `INSERT INTO t VALUES (${i * 3 - 40}, ${q(text)}, ${i % 5 === 0 ? 'NULL' : i * 1000003 - 50000000}, ${i / 7}, ${2 ** 40 + i}, x'${(i * 7919).toString(16).padStart(8, '0')}', ${anys[i % anys.length]});`,
      );
    }
    for (let i = 0; i < 400; i++) {
      const a = i % 9 === 0 ? 'NULL' : q(`a${(i * 7919) % 400}${'\u{1d11e}'.repeat(i % 3)}`);
      stmts.push(
        `INSERT INTO u VALUES (${a}, ${q(`${i % 2 ? 'B' : 'b'}${i % 50}`)}, ${i % 3 ? i : q(String(i))});`,
      );
    }
    stmts.push(
      'CREATE TABLE seq (id INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT);',
      "INSERT INTO seq(v) VALUES ('a'), ('b'), ('c');",
      'DELETE FROM seq WHERE id = 3;',
      "INSERT INTO ch VALUES ('stable','etcd'),('alpha','etcd'),('Alpha','etcd');",
      'DELETE FROM t WHERE id % 11 = 0;',
      'COMMIT;',
    );
    sqlite3(file, stmts.join('\n'));
    const out = roundTrip(file);
    expect(run(out, 'PRAGMA user_version').trim()).toBe('7');
    // AUTOINCREMENT's counter (sqlite_sequence) and ANALYZE's statistics are tables like others.
    sqlite3(out, "ANALYZE; INSERT INTO seq(v) VALUES ('d');");
    expect(run(out, 'SELECT id FROM seq ORDER BY id')).toBe('1\n2\n4\n');
    roundTrip(out);
    // The indexes answer queries that use them.
    expect(run(out, "SELECT count(*) FROM u WHERE b = 'B3'").trim()).toBe(
      run(file, "SELECT count(*) FROM u WHERE b = 'B3'").trim(),
    );
    expect(run(out, 'SELECT id FROM t INDEXED BY t_n WHERE n > 100000000 ORDER BY n DESC LIMIT 3')).toBe(
      run(file, 'SELECT id FROM t INDEXED BY t_n WHERE n > 100000000 ORDER BY n DESC LIMIT 3'),
    );
  });

  it('many rows: tables and indexes several levels deep', () => {
    const file = path.join(tmp, 'many.db');
    sqlite3(
      file,
      [
        'CREATE TABLE e (entry_id INTEGER PRIMARY KEY, channel TEXT, pkg TEXT, replaces INTEGER, depth INTEGER);',
        'CREATE INDEX e_ch ON e(channel, pkg, depth);',
        'CREATE TABLE p (type TEXT, value TEXT, bundle TEXT);',
        'CREATE UNIQUE INDEX p_k ON p(bundle, type, value);',
        'WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 60000)',
        "INSERT INTO e SELECT i, 'ch' || (i % 97), 'pkg' || (i % 1013), CASE WHEN i % 4 = 0 THEN NULL ELSE i - 1 END, i % 13 FROM c;",
        'WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 20000)',
        'INSERT INTO p SELECT \'olm.gvk\', printf(\'{"group":"g%d.example.com","kind":"K","pad":"%.*c"}\', i, i % 700, \'x\'), \'bundle\' || (i % 3000) FROM c;',
      ].join('\n'),
    );
    const out = roundTrip(file);
    expect(Number(run(out, 'PRAGMA page_count'))).toBeGreaterThan(1000);
  });

  it('empty tables, and a database with no tables at all', () => {
    const file = path.join(tmp, 'empty.db');
    sqlite3(
      file,
      'CREATE TABLE a (x TEXT PRIMARY KEY, y UNIQUE); CREATE INDEX a_y ON a(y, x); CREATE TABLE b (id INTEGER PRIMARY KEY);',
    );
    roundTrip(file);
    const none = path.join(tmp, 'none.db');
    writeDatabaseContent(none, { objects: [], rows: new Map() });
    expect(run(none, 'PRAGMA integrity_check').trim()).toBe('ok');
    expect(run(none, 'SELECT count(*) FROM sqlite_master').trim()).toBe('0');
  });

  it('a schema too large for page 1 puts the schema table in several pages', () => {
    const file = path.join(tmp, 'wide-schema.db');
    const stmts = Array.from(
      { length: 120 },
      (_, i) =>
        `CREATE TABLE t${i} (id INTEGER PRIMARY KEY, name${'_long'.repeat(10)} TEXT UNIQUE, v TEXT); INSERT INTO t${i} VALUES (${i}, 'n${i}', 'v');`,
    );
    sqlite3(file, stmts.join('\n'));
    roundTrip(file);
  });

  it('the automatic indexes are those sqlite3 makes, with their key columns', () => {
    const tables: [string, string][] = [
      ['t1', 'CREATE TABLE t1 (a TEXT UNIQUE, b TEXT, c INTEGER, UNIQUE(a), UNIQUE(c, a), UNIQUE(b))'],
      ['t2', 'CREATE TABLE t2 (id INTEGER PRIMARY KEY, x TEXT UNIQUE)'],
      ['t3', 'CREATE TABLE t3 (x INTEGER, y, PRIMARY KEY(x))'],
      ['t4', 'CREATE TABLE t4 (x integer primary key desc, y)'],
      ['t5', 'CREATE TABLE t5 (a TEXT UNIQUE, b TEXT, PRIMARY KEY(a))'],
      ['t6', 'CREATE TABLE t6 (a, b, UNIQUE(a, b), PRIMARY KEY(b, a))'],
      [
        't7',
        "CREATE TABLE t7 (a COLLATE NOCASE UNIQUE, b DEFAULT ('unique'), UNIQUE(b DESC), CONSTRAINT k UNIQUE (a COLLATE BINARY))",
      ],
      [
        'channel',
        'CREATE TABLE channel (name TEXT, package_name TEXT, head_operatorbundle_name TEXT, PRIMARY KEY(name, package_name), FOREIGN KEY(package_name) REFERENCES package(name) ON DELETE CASCADE)',
      ],
    ];
    const file = path.join(tmp, 'auto.db');
    sqlite3(file, tables.map(([, sql]) => `${sql};`).join('\n'));
    const theirs = JSON.parse(
      run(
        file,
        '-json',
        "SELECT m.name AS name, m.tbl_name AS tbl, group_concat(i.name || ':' || i.desc || ':' || i.coll, ',') AS cols FROM sqlite_master m, pragma_index_xinfo(m.name) i WHERE m.type = 'index' AND i.key GROUP BY m.name ORDER BY m.rowid",
      ),
    ) as { name: string; tbl: string; cols: string }[];
    const ours = tables.flatMap(([name, sql]) =>
      autoIndexes(name, sql).map((a) => ({
        name: a.name,
        tbl: name,
        cols: a.columns
          .map((c) => `${c.name}:${c.desc ? 1 : 0}:${(c.collation ?? 'binary').toUpperCase()}`)
          .join(','),
      })),
    );
    // Collations the index takes from its column are named by sqlite3; ours say "BINARY" unless the key names one.
    expect(
      ours.map((o) => [
        o.name,
        o.tbl,
        o.cols
          .split(',')
          .map((c) => c.split(':').slice(0, 2).join(':'))
          .join(','),
      ]),
    ).toEqual(
      theirs.map((t) => [
        t.name,
        t.tbl,
        t.cols
          .split(',')
          .map((c) => c.split(':').slice(0, 2).join(':'))
          .join(','),
      ]),
    );
  });

  it('a database written from rows alone: sqlite3 reads the rows, finds them by its indexes, and checks it whole', () => {
    const table = 'CREATE TABLE package (name TEXT PRIMARY KEY, default_channel TEXT)';
    const entries =
      'CREATE TABLE channel_entry (entry_id INTEGER PRIMARY KEY, channel_name TEXT, package_name TEXT, operatorbundle_name TEXT, replaces INTEGER, depth INTEGER)';
    const idx = 'CREATE UNIQUE INDEX pk ON channel_entry(package_name, channel_name, depth)';
    const file = path.join(tmp, 'fresh.db');
    writeDatabaseContent(file, {
      objects: [
        ...tableObjects('package', table),
        ...tableObjects('channel_entry', entries),
        { type: 'index', name: 'pk', tableName: 'channel_entry', sql: idx },
      ],
      rows: new Map([
        [
          'package',
          [
            ['zeta', 'stable'],
            ['alpha', null],
            ['Émile', 'beta'],
            ['0', 'x'],
          ],
        ],
        [
          'channel_entry',
          [
            [3, 'stable', 'zeta', 'zeta.v2', 1, 0],
            [1, 'stable', 'zeta', 'zeta.v1', null, 1],
            [null, 'beta', 'alpha', 'alpha.v1', null, 0],
          ],
        ],
      ]),
    });
    expect(run(file, 'PRAGMA integrity_check').trim()).toBe('ok');
    expect(run(file, 'SELECT name FROM package ORDER BY name')).toBe('0\nalpha\nzeta\nÉmile\n');
    expect(run(file, 'SELECT entry_id, operatorbundle_name FROM channel_entry ORDER BY rowid')).toBe(
      '1|zeta.v1\n3|zeta.v2\n4|alpha.v1\n',
    );
    expect(run(file, "SELECT default_channel FROM package WHERE name = 'Émile'")).toBe('beta\n');
    // Values take their column's affinity, as an INSERT gives them.
    expect(run(file, "SELECT typeof(name) FROM package WHERE name = '0'")).toBe('text\n');
  });

  it('a write that fails leaves the file as it was and nothing beside it', () => {
    const file = path.join(tmp, 'keep.db');
    sqlite3(file, "CREATE TABLE k (x TEXT PRIMARY KEY); INSERT INTO k VALUES ('a');");
    const before = readFileSync(file);
    const content = readDatabaseContent(file);
    content.rows.set('k', [['a'], ['a']]);
    expect(() => writeDatabaseContent(file, content)).toThrow(/UNIQUE constraint failed: k.x/);
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(readdirSync(tmp).filter((n) => n.includes('keep.db') && n !== 'keep.db')).toEqual([]);
    expect(existsSync(file)).toBe(true);
  });
});
