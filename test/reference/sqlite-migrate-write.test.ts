// The write verbs on index databases below schema 13 (made with the sqlite3 command line from our
// own SQL of opm's tables at 9 to 12): the reference migrates the database to 13, then edits it;
// opm-ts must leave the same rows (migrations 10 to 13: property paths, `substitutesfor`,
// `deprecated` and its clean-up) and the same render. Below 9 opm-ts refuses, the file unchanged.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { reference } from './reference-opm.js';
import { normalisedDump } from './sqlite-dump.js';
import {
  FOO_BUNDLES,
  haveSqlite3,
  migrationInputsSql,
  rowsSql,
  schemaSql,
  sqlite3,
} from '../sqlite/index-db.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'opm-sqlite-migrate-write-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const sha = (f: string): string => createHash('sha256').update(readFileSync(f)).digest('hex');

const BUNDLES = FOO_BUNDLES;

function database(version: number, name: string): string {
  const db = path.join(tmp, name);
  rmSync(db, { force: true });
  sqlite3(
    db,
    `${schemaSql(version)}\n${rowsSql('foo', 'stable', BUNDLES, version)}\n${migrationInputsSql(version)}`,
  );
  return db;
}

const VERBS: [string, (db: string) => string[]][] = [
  ['prune-stranded', (db) => ['registry', 'prune-stranded', '-d', db]],
  ['deprecatetruncate', (db) => ['registry', 'deprecatetruncate', '-b', 'example.com/foo:1.0.0', '-d', db]],
];

describe.runIf(haveSqlite3).each([9, 10, 11, 12])('a database at schema %i', (version) => {
  it.each(VERBS)('registry %s: migrated to 13 and edited as the reference does', async (verb, args) => {
    const refDb = database(version, `v${version}-${verb}-ref.db`);
    const ourDb = database(version, `v${version}-${verb}-ours.db`);
    const theirs = spawnSync(reference, args(refDb), { encoding: 'utf8' });
    const ours = await runOpm(args(ourDb));
    expect(theirs.status, theirs.stderr).toBe(0);
    expect(ours.code, ours.stderr).toBe(0);
    const mine = normalisedDump(ourDb);
    expect(mine).toEqual(normalisedDump(refDb));
    expect(mine.rows.schema_migrations).toEqual(["13,'<time>'"]);
    const a = spawnSync(reference, ['render', refDb], { encoding: 'utf8' }).stdout;
    const b = (await runOpm(['render', ourDb])).stdout;
    expect(b).toBe(a);
  });
});

describe.runIf(haveSqlite3)('a database at schema 8', () => {
  it('is refused in one line, the file unchanged', async () => {
    const db = database(8, 'v8.db');
    const before = sha(db);
    const r = await runOpm(['registry', 'prune-stranded', '-d', db]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('database schema version 8; opm-ts edits databases at versions 9 to 13');
    expect(sha(db)).toBe(before);
    // A copy for the reference, which migrates in place: it succeeds.
    const copy = path.join(tmp, 'v8-ref.db');
    copyFileSync(db, copy);
    expect(spawnSync(reference, ['registry', 'prune-stranded', '-d', copy]).status).toBe(0);
  });
});
