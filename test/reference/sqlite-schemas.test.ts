// Index databases at schema versions 5 to 13, made with the sqlite3 command line from our own SQL of
// opm's tables: the reference migrates each to 13 in place and renders it; opm-ts reads it as it is
// and must give the same bytes.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { reference } from './reference-opm.js';
import { FOO_BUNDLES, haveSqlite3, rowsSql, schemaSql, sqlite3 } from '../sqlite/index-db.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'opm-sqlite-schemas-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const sha = (f: string): string => createHash('sha256').update(readFileSync(f)).digest('hex');

const BUNDLES = FOO_BUNDLES;

describe.runIf(haveSqlite3).each([5, 6, 7, 8, 9, 10, 11, 12, 13])('schema version %i', (version) => {
  it.each([['json'], ['yaml']])(
    'render -o %s: what the reference gives after migrating it',
    async (format) => {
      const db = path.join(tmp, `v${version}-${format}.db`);
      sqlite3(db, `${schemaSql(version)}\n${rowsSql('foo', 'stable', BUNDLES, version)}`);
      const theirsDb = path.join(tmp, `v${version}-${format}-ref.db`);
      copyFileSync(db, theirsDb);
      const before = sha(db);
      const theirs = spawnSync(reference, ['render', theirsDb, '-o', format], { encoding: 'utf8' });
      const ours = await runOpm(['render', db, '-o', format]);
      expect(theirs.status).toBe(0);
      expect(ours.code).toBe(0);
      expect(ours.stdout).toBe(theirs.stdout);
      expect(ours.stdout).toContain('foo.v1.2.0');
      expect(sha(db)).toBe(before);
    },
  );
});

// Before schema 5 opm v1.73 fails to migrate any database holding a bundle (its migration 5 leaves
// a query open on the table it then writes: "database table is locked"); opm-ts refuses in one line.
describe.runIf(haveSqlite3).each([0, 1, 2, 4])('schema version %i', (version) => {
  it('render fails in both, the database left as it was by opm-ts', async () => {
    const db = path.join(tmp, `v${version}-old.db`);
    sqlite3(db, `${schemaSql(version)}\n${rowsSql('foo', 'stable', BUNDLES, version)}`);
    const theirsDb = path.join(tmp, `v${version}-old-ref.db`);
    copyFileSync(db, theirsDb);
    const before = sha(db);
    const theirs = spawnSync(reference, ['render', theirsDb], { encoding: 'utf8' });
    const ours = await runOpm(['render', db]);
    expect(theirs.status).toBe(1);
    expect(theirs.stderr).toContain('database table is locked');
    expect(ours.code).toBe(1);
    expect(ours.stderr).toContain(`database schema version ${version} is older than 5`);
    expect(sha(db)).toBe(before);
  });
});
