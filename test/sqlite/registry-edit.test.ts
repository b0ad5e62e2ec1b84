// `registry rm`, `prune` and `prune-stranded` on index databases made with the sqlite3 command
// line: with opm's foreign keys and api clean-up triggers, the rows left are those sqlite3 itself
// leaves when it runs the same deletes with foreign keys on (the cascades and triggers done by
// SQLite, not by us); the file passes integrity_check; bad input changes nothing.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { haveSqlite3, rowsSql, schemaSql, sqlite3, type DbBundle } from './index-db.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'opm-sqlite-edit-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function run(file: string, ...args: string[]): string {
  const r = spawnSync('sqlite3', [file, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout;
}

/** opm's tables at schema 13 with their foreign keys and the api clean-up triggers. */
const FK_SCHEMA = `
CREATE TABLE operatorbundle (name TEXT PRIMARY KEY, csv TEXT, bundle TEXT, bundlepath TEXT, skiprange TEXT, version TEXT, replaces TEXT, skips TEXT, substitutesfor TEXT);
CREATE UNIQUE INDEX pk ON operatorbundle(name, version, bundlepath);
CREATE TABLE package (name TEXT PRIMARY KEY, default_channel TEXT, FOREIGN KEY(name, default_channel) REFERENCES channel(package_name,name) ON DELETE CASCADE);
CREATE TABLE channel (name TEXT, package_name TEXT, head_operatorbundle_name TEXT, PRIMARY KEY(name, package_name), FOREIGN KEY(head_operatorbundle_name) REFERENCES operatorbundle(name) ON DELETE CASCADE);
CREATE TABLE channel_entry (entry_id INTEGER PRIMARY KEY, channel_name TEXT, package_name TEXT, operatorbundle_name TEXT, replaces INTEGER, depth INTEGER, FOREIGN KEY(replaces) REFERENCES channel_entry(entry_id) DEFERRABLE INITIALLY DEFERRED, FOREIGN KEY(channel_name, package_name) REFERENCES channel(name, package_name) ON DELETE CASCADE);
CREATE TABLE api (group_name TEXT, version TEXT, kind TEXT, plural TEXT NOT NULL, PRIMARY KEY(group_name, version, kind));
CREATE TABLE api_provider (group_name TEXT, version TEXT, kind TEXT, operatorbundle_name TEXT, operatorbundle_version TEXT, operatorbundle_path TEXT, FOREIGN KEY(operatorbundle_name, operatorbundle_version, operatorbundle_path) REFERENCES operatorbundle(name, version, bundlepath) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED, FOREIGN KEY(group_name, version, kind) REFERENCES api(group_name, version, kind) ON DELETE CASCADE);
CREATE TABLE api_requirer (group_name TEXT, version TEXT, kind TEXT, operatorbundle_name TEXT, operatorbundle_version TEXT, operatorbundle_path TEXT, FOREIGN KEY(operatorbundle_name, operatorbundle_version, operatorbundle_path) REFERENCES operatorbundle(name, version, bundlepath) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED, FOREIGN KEY(group_name, version, kind) REFERENCES api(group_name, version, kind) ON DELETE CASCADE);
CREATE TRIGGER api_provider_cleanup AFTER DELETE ON api_provider WHEN NOT EXISTS (SELECT 1 FROM api_provider JOIN api_requirer WHERE (api_provider.group_name = OLD.group_name AND api_provider.version = OLD.version AND api_provider.kind = OLD.kind) OR (api_requirer.group_name = OLD.group_name AND api_requirer.version = OLD.version AND api_requirer.kind = OLD.kind)) BEGIN DELETE FROM api WHERE group_name = OLD.group_name AND version = OLD.version AND kind = OLD.kind; END;
CREATE TRIGGER api_requirer_cleanup AFTER DELETE ON api_requirer WHEN NOT EXISTS (SELECT 1 FROM api_provider JOIN api_requirer WHERE (api_provider.group_name = OLD.group_name AND api_provider.version = OLD.version AND api_provider.kind = OLD.kind) OR (api_requirer.group_name = OLD.group_name AND api_requirer.version = OLD.version AND api_requirer.kind = OLD.kind)) BEGIN DELETE FROM api WHERE group_name = OLD.group_name AND version = OLD.version AND kind = OLD.kind; END;
CREATE TABLE related_image (image TEXT, operatorbundle_name TEXT, FOREIGN KEY(operatorbundle_name) REFERENCES operatorbundle(name) ON DELETE CASCADE);
CREATE TABLE dependencies (type TEXT, value TEXT, operatorbundle_name TEXT, operatorbundle_version TEXT, operatorbundle_path TEXT, FOREIGN KEY(operatorbundle_name, operatorbundle_version, operatorbundle_path) REFERENCES operatorbundle(name, version, bundlepath) ON DELETE CASCADE);
CREATE TABLE properties (type TEXT, value TEXT, operatorbundle_name TEXT, operatorbundle_version TEXT, operatorbundle_path TEXT, FOREIGN KEY(operatorbundle_name, operatorbundle_version, operatorbundle_path) REFERENCES operatorbundle(name, version, bundlepath) ON DELETE CASCADE);
CREATE TABLE deprecated (operatorbundle_name TEXT PRIMARY KEY);
CREATE TABLE schema_migrations (version bigint NOT NULL, timestamp DATETIME DEFAULT CURRENT_TIMESTAMP);
INSERT INTO schema_migrations(version) VALUES (13);
`;

const bundles = (pkg: string, n: number): DbBundle[] =>
  Array.from({ length: n }, (_, i) => ({
    name: `${pkg}.v1.${i}.0`,
    pkg,
    version: `1.${i}.0`,
    image: `example.com/${pkg}:1.${i}.0`,
    channels: i === 0 ? ['stable'] : ['stable', 'fast'],
  }));

/** APIs provided and required across packages, related images, a stranded bundle, a deprecation. */
function extraRows(): string {
  const out: string[] = [
    "INSERT INTO api VALUES ('etcd.example.com','v1','Etcd','etcds'), ('prom.example.com','v1','Prom','proms'), ('lone.example.com','v1','Lone','lones');",
    "INSERT INTO api_provider SELECT 'etcd.example.com','v1','Etcd', name, version, bundlepath FROM operatorbundle WHERE name LIKE 'etcd.%';",
    "INSERT INTO api_provider SELECT 'prom.example.com','v1','Prom', name, version, bundlepath FROM operatorbundle WHERE name LIKE 'prom.%';",
    "INSERT INTO api_requirer SELECT 'prom.example.com','v1','Prom', name, version, bundlepath FROM operatorbundle WHERE name = 'etcd.v1.2.0';",
    "INSERT INTO api_provider SELECT 'lone.example.com','v1','Lone', name, version, bundlepath FROM operatorbundle WHERE name = 'lone.v1.0.0';",
    'INSERT INTO related_image SELECT bundlepath, name FROM operatorbundle;',
    "INSERT INTO operatorbundle(name, bundlepath, version) VALUES ('stray.v1', 'example.com/stray:1', '1');",
    "INSERT INTO properties VALUES ('olm.package', '{\"packageName\":\"stray\",\"version\":\"1\"}', 'stray.v1', '1', 'example.com/stray:1');",
    "INSERT INTO deprecated VALUES ('etcd.v1.0.0'), ('gone.v9');",
  ];
  return out.join('\n');
}

function makeDb(name: string, fk: boolean): string {
  const file = path.join(tmp, `${name}.db`);
  let id = 0;
  const rows = [
    ['etcd', 3],
    ['prom', 2],
    ['lone', 1],
  ].map(([p, n]) => {
    // Entry ids unique across packages: each package's statements numbered from where the last ended.
    const sql = rowsSql(p as string, 'stable', bundles(p as string, n as number))
      .replace(
        /INSERT INTO channel_entry VALUES \((\d+),/g,
        (_m, d: string) => `INSERT INTO channel_entry VALUES (${Number(d) + id},`,
      )
      .replace(/, (\d+), (\d+)\);$/gm, (m, r: string, depth: string) =>
        m.includes('NULL') ? m : `, ${Number(r) + id}, ${depth});`,
      );
    id += 10;
    return sql;
  });
  sqlite3(file, `${fk ? FK_SCHEMA : schemaSql(13)}\n${rows.join('\n')}\n${fk ? extraRows() : ''}`);
  return file;
}

/** The deletes opm makes to remove a package, run by sqlite3 with foreign keys on. */
function oracleRemove(pkg: string): string {
  const bundleDeletes = (where: string): string =>
    [
      'operatorbundle WHERE name',
      'api_provider WHERE operatorbundle_name',
      'api_requirer WHERE operatorbundle_name',
      'channel_entry WHERE operatorbundle_name',
    ]
      .map((t) => `DELETE FROM ${t} IN (${where});`)
      .join('\n');
  return [
    `DELETE FROM deprecated WHERE operatorbundle_name IN (SELECT operatorbundle_name FROM channel_entry WHERE package_name = '${pkg}');`,
    `CREATE TEMP TABLE b AS SELECT DISTINCT operatorbundle_name AS n FROM channel_entry WHERE package_name = '${pkg}';`,
    bundleDeletes('SELECT n FROM temp.b'),
    `DELETE FROM package WHERE name = '${pkg}';`,
    `DELETE FROM channel WHERE package_name = '${pkg}';`,
    'DROP TABLE temp.b;',
  ].join('\n');
}

const ORACLE_STRANDED = `
DELETE FROM operatorbundle WHERE name NOT IN (SELECT operatorbundle_name FROM channel_entry) AND name NOT IN (SELECT operatorbundle_name FROM deprecated);
CREATE TEMP TABLE s AS SELECT DISTINCT operatorbundle_name AS n FROM properties WHERE type = 'olm.package' AND json_extract(value, '$.packageName') NOT IN (SELECT name FROM package);
DELETE FROM operatorbundle WHERE name IN (SELECT n FROM temp.s);
DELETE FROM api_provider WHERE operatorbundle_name IN (SELECT n FROM temp.s);
DELETE FROM api_requirer WHERE operatorbundle_name IN (SELECT n FROM temp.s);
DELETE FROM channel_entry WHERE operatorbundle_name IN (SELECT n FROM temp.s);
DROP TABLE temp.s;
DELETE FROM deprecated WHERE operatorbundle_name NOT IN (SELECT DISTINCT name FROM operatorbundle);
`;

function oracle(src: string, sql: string): string {
  const file = `${src}.oracle.db`;
  copyFileSync(src, file);
  sqlite3(file, `PRAGMA foreign_keys = ON;\nBEGIN;\n${sql}\nCOMMIT;\nVACUUM;`);
  return run(file, '.dump');
}

async function ours(args: string[]): Promise<{ code: number; stderr: string }> {
  const r = await runOpm(args, { cwd: tmp });
  return { code: r.code, stderr: r.stderr };
}

describe.runIf(haveSqlite3)('registry rm, prune, prune-stranded', () => {
  it.each([true, false])('rm with foreign keys %s: the rows sqlite3 leaves', async (fk) => {
    const db = makeDb(`rm-${fk}`, fk);
    const want = oracle(db, [oracleRemove('etcd'), ORACLE_STRANDED, ORACLE_STRANDED].join('\n'));
    const r = await ours(['registry', 'rm', '-d', db, '-o', 'etcd']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('DEPRECATION NOTICE');
    expect(run(db, 'PRAGMA integrity_check').trim()).toBe('ok');
    expect(run(db, '.dump')).toBe(want);
    expect(run(db, "SELECT count(*) FROM operatorbundle WHERE name LIKE 'etcd.%'").trim()).toBe('0');
    if (fk) {
      // The cascades and the trigger did their part: etcd's related images and its lone API are gone.
      expect(
        run(db, "SELECT count(*) FROM related_image WHERE operatorbundle_name LIKE 'etcd.%'").trim(),
      ).toBe('0');
      expect(run(db, "SELECT count(*) FROM api WHERE kind = 'Etcd'").trim()).toBe('0');
    }
  });

  it('rm of two packages; prune keeping one: the rows sqlite3 leaves', async () => {
    const db = makeDb('rm2', true);
    const both = [
      oracleRemove('etcd'),
      ORACLE_STRANDED,
      oracleRemove('lone'),
      ORACLE_STRANDED,
      ORACLE_STRANDED,
    ].join('\n');
    const want = oracle(db, both);
    const pruned = makeDb('prune', true);
    const wantPruned = oracle(pruned, both);
    expect((await ours(['registry', 'rm', '-d', db, '-o', 'etcd', '-o', 'lone'])).code).toBe(0);
    expect(run(db, '.dump')).toBe(want);
    expect((await ours(['registry', 'prune', '-d', pruned, '-p', 'prom'])).code).toBe(0);
    expect(run(pruned, '.dump')).toBe(wantPruned);
  });

  it('prune-stranded: the stray bundle and its properties go', async () => {
    const db = makeDb('stranded', true);
    const want = oracle(db, ORACLE_STRANDED);
    expect((await ours(['registry', 'prune-stranded', '-d', db])).code).toBe(0);
    expect(run(db, '.dump')).toBe(want);
    expect(run(db, "SELECT count(*) FROM operatorbundle WHERE name = 'stray.v1'").trim()).toBe('0');
  });

  it('a missing package, a read-only file, a missing file, not a database: one line, exit 1, the bytes kept', async () => {
    const db = makeDb('bad', true);
    const before = readFileSync(db);
    const missing = await ours(['registry', 'rm', '-d', db, '-o', 'etcd,nosuch']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no package found for packagename nosuch');
    expect(readFileSync(db).equals(before)).toBe(true);
    // -o is required, as in opm: without it, a usage error and nothing written.
    const noFlag = await ours(['registry', 'rm', '-d', db]);
    expect(noFlag.code).toBe(2);
    expect(noFlag.stderr).toContain("required option '-o, --packages <strings>' not specified");
    expect(readFileSync(db).equals(before)).toBe(true);
    const permissive = await ours(['registry', 'rm', '-d', db, '-o', 'nosuch', '--permissive']);
    expect(permissive.code).toBe(0);
    chmodSync(db, 0o444);
    const before2 = readFileSync(db);
    if (process.getuid?.() !== 0) {
      const ro = await ours(['registry', 'rm', '-d', db, '-o', 'etcd']);
      expect(ro.code).toBe(1);
      expect(ro.stderr.trim().split('\n').at(-1)).toContain('read-only');
      expect(readFileSync(db).equals(before2)).toBe(true);
    }
    chmodSync(db, 0o644);
    // A write in progress (its -journal beside it): refused, nothing touched.
    writeFileSync(`${db}-journal`, 'journal');
    const locked = await ours(['registry', 'rm', '-d', db, '-o', 'etcd']);
    expect(locked.code).toBe(1);
    expect(locked.stderr).toContain('database is locked');
    expect(readFileSync(db).equals(before2)).toBe(true);
    rmSync(`${db}-journal`);
    const none = await ours(['registry', 'prune-stranded', '-d', path.join(tmp, 'nope.db')]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('does not exist');
    const text = path.join(tmp, 'text.db');
    writeFileSync(text, 'hello');
    const notDb = await ours(['registry', 'prune-stranded', '-d', text]);
    expect(notDb.code).toBe(1);
    expect(readFileSync(text, 'utf8')).toBe('hello');
  });
});
