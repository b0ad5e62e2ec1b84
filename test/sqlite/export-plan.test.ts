// What `index export` reads from a database, checked against sqlite3 running opm v1.73's own
// queries on the same file (package list, channels, heads, default channel, bundles of a
// package): the same names in the same order. Also the package.yaml text and the staged tree's
// move into a download folder that already exists.
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteDatabase } from '../../src/sqlite/database.js';
import { exportPlan } from '../../src/sqlite/export-plan.js';
import { commitTree, packageYaml } from '../../src/action/index-export-tree.js';
import { haveSqlite3, schemaSql, sqlite3 } from './index-db.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'opm-export-plan-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Rows in an order that is not the names' order: channels, packages and bundles. */
const ROWS = `
INSERT INTO operatorbundle(name, bundlepath, version) VALUES
  ('zeta.v1', 'r/zeta:1', '1.0.0'), ('zeta.v2', 'r/zeta:2', '2.0.0'),
  ('alpha.v1', 'r/alpha:1', ''), ('Beta.v1', 'r/Beta:1', '0.1.0'), ('stranded.v1', 'r/s:1', '9.9.9');
INSERT INTO package(name, default_channel) VALUES ('zeta', 'stable'), ('alpha', 'fast'), ('Beta', 'x');
INSERT INTO channel(name, package_name, head_operatorbundle_name) VALUES
  ('stable', 'zeta', 'zeta.v2'), ('Candidate', 'zeta', 'zeta.v1'), ('beta', 'zeta', 'zeta.v2'),
  ('fast', 'alpha', 'alpha.v1'), ('x', 'Beta', 'Beta.v1');
INSERT INTO channel_entry(channel_name, package_name, operatorbundle_name, depth) VALUES
  ('stable', 'zeta', 'zeta.v2', 0), ('stable', 'zeta', 'zeta.v1', 1), ('Candidate', 'zeta', 'zeta.v1', 0),
  ('beta', 'zeta', 'zeta.v2', 0), ('fast', 'alpha', 'alpha.v1', 0), ('x', 'Beta', 'Beta.v1', 0);
`;

function query(db: string, sql: string): string[] {
  const r = spawnSync('sqlite3', [db, sql], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout.split('\n').filter((l) => l !== '');
}

describe.runIf(haveSqlite3)('exportPlan', () => {
  const file = path.join(tmp, 'index.db');
  sqlite3(file, `${schemaSql(13)}\n${ROWS}`);
  const db = SqliteDatabase.open(file);
  const plan = exportPlan(db, []);
  db.close();

  it("lists packages and channels in the order opm's queries give them", () => {
    expect(plan.packages.map((p) => p.name)).toEqual(query(file, 'SELECT DISTINCT name FROM package'));
    for (const p of plan.packages) {
      const q = (sql: string): string[] => query(file, sql.replaceAll('?', `'${p.name}'`));
      expect(p.channels.map((c) => c.name)).toEqual(
        q('SELECT DISTINCT name FROM channel WHERE channel.package_name=?'),
      );
      for (const c of p.channels)
        expect([c.currentCSV]).toEqual(
          q(
            `SELECT DISTINCT head_operatorbundle_name FROM channel WHERE channel.package_name=? AND channel.name='${c.name}'`,
          ),
        );
      expect([p.defaultChannel]).toEqual(
        q('SELECT DISTINCT default_channel FROM package WHERE name=? LIMIT 1'),
      );
      const bundles = q(
        'SELECT DISTINCT bundlepath FROM operatorbundle INNER JOIN channel_entry ON operatorbundle.name=channel_entry.operatorbundle_name WHERE channel_entry.package_name=?',
      );
      expect(plan.bundles.filter((b) => b.pkg === p.name).map((b) => b.image)).toEqual(bundles.sort());
    }
  });

  it('leaves out stranded bundles; names a versionless bundle by its CSV', () => {
    expect(plan.bundles.map((b) => `${b.image} ${b.pkg}/${b.dir}`)).toEqual([
      'r/Beta:1 Beta/0.1.0',
      'r/alpha:1 alpha/alpha.v1',
      'r/zeta:1 zeta/1.0.0',
      'r/zeta:2 zeta/2.0.0',
    ]);
    expect(plan.unknown).toEqual([]);
  });

  it('names packages asked for that are not there, keeps the order asked', () => {
    const d = SqliteDatabase.open(file);
    const p = exportPlan(d, ['zeta', 'nosuch', 'Beta', 'zeta']);
    d.close();
    expect(p.unknown).toEqual(['nosuch']);
    expect(p.packages.map((x) => x.name)).toEqual(['zeta', 'Beta']);
  });
});

describe('packageYaml', () => {
  it('writes go-yaml v3 text', () => {
    expect(
      packageYaml({
        name: 'p',
        defaultChannel: '1.0',
        channels: [
          { name: '1.0', currentCSV: 'p.v1' },
          { name: 'a b', currentCSV: '' },
        ],
      }),
    ).toBe(
      'packageName: p\nchannels:\n    - name: "1.0"\n      currentCSV: p.v1\n    - name: a b\n      currentCSV: ""\ndefaultChannel: "1.0"\n',
    );
    expect(packageYaml({ name: 'n', defaultChannel: '', channels: [] })).toBe(
      // go-yaml v3 quotes YAML 1.1's booleans (`n`, `on`, `yes`…).
      'packageName: "n"\nchannels: []\ndefaultChannel: ""\n',
    );
  });
});

describe('commitTree', () => {
  it('moves a staged tree into an existing folder, replacing files and keeping others', () => {
    const staged = path.join(tmp, 'staged');
    const dest = path.join(tmp, 'dest');
    mkdirSync(path.join(staged, 'p', '1.0.0'), { recursive: true });
    writeFileSync(path.join(staged, 'p', 'package.yaml'), 'new\n');
    writeFileSync(path.join(staged, 'p', '1.0.0', 'csv.yaml'), 'csv\n');
    mkdirSync(path.join(dest, 'p'), { recursive: true, mode: 0o755 });
    writeFileSync(path.join(dest, 'p', 'package.yaml'), 'old\n');
    writeFileSync(path.join(dest, 'keep'), 'k\n');
    commitTree(staged, dest);
    expect(readFileSync(path.join(dest, 'p', 'package.yaml'), 'utf8')).toBe('new\n');
    expect(readFileSync(path.join(dest, 'p', '1.0.0', 'csv.yaml'), 'utf8')).toBe('csv\n');
    expect(readFileSync(path.join(dest, 'keep'), 'utf8')).toBe('k\n');
    expect(lstatSync(path.join(dest, 'p')).mode & 0o777).toBe(0o755);
  });
});
