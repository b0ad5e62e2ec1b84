// Index database files rendered and migrated: schema versions 9 to 13 give the same catalog, and
// bad input (not SQLite, truncated, corrupt, a newer schema, a write in progress, rows naming
// missing bundles) gives one line and exit 1 with the file's bytes unchanged.
import { chmodSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { haveSqlite3, rowsSql, schemaSql, sqlite3, type DbBundle } from './index-db.js';

let tmp: string;
const sha = (f: string): string => createHash('sha256').update(readFileSync(f)).digest('hex');

const BUNDLES: DbBundle[] = [
  { name: 'foo.v1.0.0', pkg: 'foo', version: '1.0.0', image: 'example.com/foo:1.0.0', channels: ['stable'] },
  {
    name: 'foo.v1.1.0',
    pkg: 'foo',
    version: '1.1.0',
    image: 'example.com/foo:1.1.0',
    channels: ['stable', 'fast'],
    skipRange: '<1.1.0',
  },
];

function makeDb(name: string, version: number, rows = rowsSql('foo', 'stable', BUNDLES, version)): string {
  const file = path.join(tmp, `${name}.db`);
  sqlite3(file, `${schemaSql(version)}\n${rows}`);
  return file;
}

beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'opm-sqlite-db-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe.runIf(haveSqlite3)('index database files', () => {
  it('renders a database: packages, channels with replaces and skipRange, bundles', async () => {
    const db = makeDb('v13', 13);
    const r = await runOpm(['render', db, '-o', 'yaml']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('defaultChannel: stable');
    expect(r.stdout).toContain('replaces: foo.v1.0.0');
    expect(r.stdout).toContain('skipRange: <1.1.0');
    expect(r.stdout).toContain('image: example.com/foo:1.1.0');
    expect(r.stderr).toContain('DEPRECATION NOTICE');
  });

  it.each([9, 10, 11, 12])('schema version %i renders as 13 does', async (v) => {
    const want = await runOpm(['render', makeDb(`same-${v}-13`, 13), '-o', 'json']);
    const db = makeDb(`v${v}`, v);
    const before = sha(db);
    const got = await runOpm(['render', db, '-o', 'json']);
    expect(got.code).toBe(0);
    expect(got.stdout).toBe(want.stdout);
    expect(sha(db)).toBe(before);
  });

  it('migrate writes one folder per package and leaves the database as it was', async () => {
    const db = makeDb('migrate', 13);
    const before = sha(db);
    const out = path.join(tmp, 'migrated');
    const r = await runOpm(['migrate', db, out, '-o', 'json']);
    expect(r.code).toBe(0);
    expect(readFileSync(path.join(out, 'foo', 'catalog.json'), 'utf8')).toContain('"name": "foo.v1.1.0"');
    expect(sha(db)).toBe(before);
  });

  it('a read-only database is read (opm-ts never writes to it)', async () => {
    const db = makeDb('readonly', 13);
    chmodSync(db, 0o444);
    const r = await runOpm(['render', db]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('"foo.v1.1.0"');
  });

  /** One line on stderr besides the notice, exit 1, nothing on stdout, the file unchanged. */
  async function refused(file: string, text: string): Promise<void> {
    const before = sha(file);
    const r = await runOpm(['render', file]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const lines = r.stderr.split('\n').filter((l) => l !== '' && !l.includes('DEPRECATION NOTICE'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(text);
    expect(sha(file)).toBe(before);
  }

  it('a file that is not SQLite', async () => {
    const f = path.join(tmp, 'notes.txt');
    writeFileSync(f, 'hello\n');
    await refused(f, 'has unsupported file type');
  });

  it('a truncated database', async () => {
    const db = makeDb('truncated', 13);
    truncateSync(db, statSync(db).size - 4096);
    await refused(db, 'database disk image is malformed');
  });

  it('a corrupt database', async () => {
    const db = makeDb('corrupt', 13);
    const bytes = readFileSync(db);
    // Every page after the first overwritten: the b-tree pages no longer read as b-tree pages.
    bytes.fill(0xa5, 4096);
    writeFileSync(db, bytes);
    await refused(db, 'database disk image is malformed');
  });

  it('a schema older than 5 (opm v1.73 fails to migrate it too)', async () => {
    await refused(makeDb('v4', 4), 'database schema version 4 is older than 5');
  });

  it('a schema newer than 13', async () => {
    await refused(makeDb('v14', 14), 'database schema version 14 is newer than 13');
  });

  it('a database with a write in progress (its journal beside it)', async () => {
    const db = makeDb('locked', 13);
    writeFileSync(`${db}-journal`, Buffer.alloc(512, 1));
    await refused(db, 'database is locked');
  });

  it('a channel whose head names a missing bundle', async () => {
    const rows = `${rowsSql('foo', 'stable', BUNDLES)}\nUPDATE channel SET head_operatorbundle_name = 'gone.v9' WHERE name = 'stable';`;
    await refused(makeDb('missing-head', 13, rows), 'no entry found for foo stable');
  });

  it('a channel whose entries name only missing bundles', async () => {
    const rows = `${rowsSql('foo', 'stable', BUNDLES)}\nUPDATE channel_entry SET operatorbundle_name = 'gone.v9' WHERE channel_name = 'fast';`;
    await refused(makeDb('missing-entries', 13, rows), 'channel must contain at least one bundle');
  });
});
