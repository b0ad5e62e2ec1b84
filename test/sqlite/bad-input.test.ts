// needs-build: it starts `bin/opm.js registry serve` on each bad database.
// Bad index databases given to every verb that takes one: `render`, `migrate`, `registry serve` and
// the write verbs on -d (`registry add|rm|prune|prune-stranded|deprecatetruncate`). A file that is
// not SQLite, a truncated or corrupt one, a schema newer than 13, rows naming missing bundles, a
// database another process holds a write lock on (the sqlite3 command line in `BEGIN EXCLUSIVE`),
// a read-only one: one line saying what (no stack trace), exit 1, nothing on stdout, no output
// written, and the file's bytes unchanged. What a reader and a writer each do with a locked or
// read-only database is in docs/compatibility.md.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { freePort, OPM } from '../serve/client.js';
import { haveSqlite3, rowsSql, schemaSql, sqlite3, type DbBundle } from './index-db.js';

let tmp = '';
const sha = (f: string): string => createHash('sha256').update(readFileSync(f)).digest('hex');

const BUNDLES: DbBundle[] = [
  { name: 'foo.v1.0.0', pkg: 'foo', version: '1.0.0', image: 'example.com/foo:1.0.0', channels: ['stable'] },
  {
    name: 'foo.v1.1.0',
    pkg: 'foo',
    version: '1.1.0',
    image: 'example.com/foo:1.1.0',
    channels: ['stable', 'fast'],
  },
];

function makeDb(name: string, version = 13, rows = rowsSql('foo', 'stable', BUNDLES, version)): string {
  const file = path.join(tmp, `${name}.db`);
  rmSync(file, { force: true });
  sqlite3(file, `${schemaSql(version)}\n${rows}`);
  return file;
}

/** The bad files, each made afresh for each verb. */
const CASES: Record<string, { make: () => string; says: string | RegExp }> = {
  'a file that is not SQLite': {
    make: () => {
      const f = path.join(tmp, 'notes.db');
      writeFileSync(f, 'hello\n');
      return f;
    },
    says: /not a (directory or a )?SQLite( 3)? database/,
  },
  'a truncated database': {
    make: () => {
      const db = makeDb('truncated');
      truncateSync(db, statSync(db).size - 4096);
      return db;
    },
    says: 'database disk image is malformed',
  },
  'a corrupt database': {
    make: () => {
      const db = makeDb('corrupt');
      const bytes = readFileSync(db);
      bytes.fill(0xa5, 4096);
      writeFileSync(db, bytes);
      return db;
    },
    says: 'database disk image is malformed',
  },
  'a schema newer than 13': {
    make: () => makeDb('v14', 14),
    says: /schema version 14\b/,
  },
};

/** A database whose channel `stable` names a bundle it does not hold as its head. */
const missingHead = (): string =>
  makeDb(
    'missing-head',
    13,
    `${rowsSql('foo', 'stable', BUNDLES)}\nUPDATE channel SET head_operatorbundle_name = 'gone.v9' WHERE name = 'stable';`,
  );

/** Each reader's command line on the database `db`; `out` is a folder that must not appear. */
const READERS: Record<string, (db: string, out: string) => string[]> = {
  render: (db) => ['render', db],
  migrate: (db, out) => ['migrate', db, out],
};

/** Each writer's command line on the database `db`. */
const WRITERS: Record<string, (db: string) => string[]> = {
  'registry add': (db) => ['registry', 'add', '-b', '127.0.0.1:9/none/bundle:1', '-d', db, '--use-http'],
  'registry rm': (db) => ['registry', 'rm', '-d', db, '-o', 'foo'],
  'registry prune': (db) => ['registry', 'prune', '-d', db, '-p', 'bar'],
  'registry prune-stranded': (db) => ['registry', 'prune-stranded', '-d', db],
  'registry deprecatetruncate': (db) => [
    'registry',
    'deprecatetruncate',
    '-d',
    db,
    '-b',
    'example.com/foo:1.0.0',
  ],
};
const VERBS: Record<string, (db: string, out: string) => string[]> = { ...READERS, ...WRITERS };

beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'opm-sqlite-bad-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** `registry serve` in its own process: it must exit, not serve. */
function serve(db: string, port: number): Outcome {
  const r = spawnSync(
    process.execPath,
    [OPM, 'registry', 'serve', '-d', db, '-p', String(port), '-t', '/dev/null'],
    {
      encoding: 'utf8',
      // Only there to end a server that wrongly started; a refusal comes at once.
      timeout: 300_000,
    },
  );
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

async function run(verb: string, db: string, out: string): Promise<Outcome> {
  if (verb === 'registry serve') return serve(db, await freePort());
  return runOpm((VERBS[verb] as (d: string, o: string) => string[])(db, out), { cwd: tmp });
}

/** stderr but the deprecation notice and the info and warning logs the verbs write as opm does. */
const problems = (stderr: string): string[] =>
  stderr
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.includes('DEPRECATION NOTICE') && !/level=(info|warning) /.test(l));

/** `verb` on `db`: refused in one line naming the file and saying `says`, nothing changed or written. */
async function refused(
  verb: string,
  db: string,
  says: string | RegExp,
  runner: (verb: string, db: string, out: string) => Promise<Outcome> = run,
): Promise<void> {
  const before = sha(db);
  const out = path.join(tmp, 'out');
  rmSync(out, { recursive: true, force: true });
  const r = await runner(verb, db, out);
  expect(r.code, r.stderr).toBe(1);
  expect(r.stdout).toBe('');
  const lines = problems(r.stderr);
  expect(lines, r.stderr).toHaveLength(1);
  if (typeof says === 'string') expect(lines[0]).toContain(says);
  else expect(lines[0]).toMatch(says);
  expect(lines[0]).toContain(path.basename(db));
  expect(r.stderr).not.toMatch(/^\s+at /m);
  expect(existsSync(out)).toBe(false);
  expect(sha(db)).toBe(before);
  // No temporary file left beside it.
  expect(readdirSync(tmp).filter((f) => f.startsWith('.'))).toEqual([]);
}

describe.runIf(haveSqlite3)('a database that cannot be read: every verb refuses it in one line', () => {
  const verbs = [...Object.keys(VERBS), 'registry serve'];
  for (const [name, c] of Object.entries(CASES)) {
    it.each(verbs)(`${name}: %s`, async (verb) => {
      await refused(verb, c.make(), c.says);
    });
  }
});

describe.runIf(haveSqlite3)('rows that name missing bundles', () => {
  it.each(Object.keys(READERS))('%s refuses them in one line', async (verb) => {
    await refused(verb, missingHead(), 'no entry found for foo stable');
  });

  // opm v1.73 edits such a database as rows and serves it, answering from the rows it has: its
  // `registry rm` is how the broken package is taken out, and opm-ts does the same.
  it('registry rm takes the broken package out, as opm v1.73 does', async () => {
    const db = missingHead();
    const r = await runOpm(['registry', 'rm', '-d', db, '-o', 'foo'], { cwd: tmp });
    expect(r.code, r.stderr).toBe(0);
    const after = await runOpm(['render', db], { cwd: tmp });
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toBe('');
  });
});

/** The sqlite3 command line holding `db` in a transaction begun with `sql`, until release(). */
async function holder(db: string, sql: string): Promise<{ release: () => Promise<void> }> {
  const child: ChildProcess = spawn('sqlite3', [db], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (d: string) => {
      out += d;
      if (out.includes('ready')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`sqlite3 exited ${code}`)));
  });
  child.stdin?.write(`${sql}\nSELECT 'ready';\n`);
  await ready;
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    release: async () => {
      child.stdin?.end('ROLLBACK;\n.quit\n');
      await exited;
    },
  };
}

// Linux lists POSIX locks in /proc/locks, where the writers look for SQLite's write lock.
describe.runIf(haveSqlite3 && existsSync('/proc/locks'))(
  'a database another process holds a write lock on',
  () => {
    it('BEGIN EXCLUSIVE, nothing written yet: readers read the last commit; writers refuse in one line', async () => {
      const db = makeDb('locked');
      const before = sha(db);
      const want = await runOpm(['render', db], { cwd: tmp });
      const lock = await holder(db, 'BEGIN EXCLUSIVE;');
      try {
        const r = await runOpm(['render', db], { cwd: tmp });
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toBe(want.stdout);
        const out = path.join(tmp, 'migrated');
        expect((await runOpm(['migrate', db, out], { cwd: tmp })).code).toBe(0);
        rmSync(out, { recursive: true });
        for (const verb of Object.keys(WRITERS)) {
          await refused(verb, db, 'database is locked');
        }
      } finally {
        await lock.release();
      }
      expect(sha(db)).toBe(before);
    });

    it('a write in progress (its journal beside it): every verb refuses in one line', async () => {
      const db = makeDb('writing');
      const lock = await holder(
        db,
        "BEGIN EXCLUSIVE; DELETE FROM channel_entry; INSERT INTO package VALUES ('bar', 'x');",
      );
      try {
        expect(existsSync(`${db}-journal`)).toBe(true);
        for (const verb of [...Object.keys(VERBS), 'registry serve']) {
          await refused(verb, db, 'database is locked');
        }
      } finally {
        await lock.release();
      }
    });
  },
);

// Root writes whatever the mode bits say: run as root, the writers are run as user nobody
// (setpriv, util-linux), the folder opened to them.
const root = process.getuid?.() === 0;
const setpriv = spawnSync('setpriv', ['--version']).status === 0;
if (root && !setpriv)
  console.warn('*** SKIPPED read-only writers in test/sqlite/bad-input.test.ts: root without setpriv ***');

async function asNobody(verb: string, db: string, out: string): Promise<Outcome> {
  if (!root) return run(verb, db, out);
  chmodSync(tmp, 0o755);
  const args = (VERBS[verb] as (d: string, o: string) => string[])(db, out);
  const r = spawnSync(
    'setpriv',
    ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, OPM, ...args],
    {
      cwd: tmp,
      encoding: 'utf8',
      env: { ...process.env, HOME: tmp, NO_COLOR: '1' },
    },
  );
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe.runIf(haveSqlite3)('a read-only database', () => {
  it('readers read it', async () => {
    const db = makeDb('readonly');
    chmodSync(db, 0o444);
    for (const verb of Object.keys(READERS)) {
      const out = path.join(tmp, 'out-ro');
      rmSync(out, { recursive: true, force: true });
      const r = await runOpm((READERS[verb] as (d: string, o: string) => string[])(db, out), { cwd: tmp });
      expect(r.code, r.stderr).toBe(0);
    }
  });

  it.runIf(!root || setpriv).each(Object.keys(WRITERS))('writers refuse it in one line: %s', async (verb) => {
    const db = makeDb('readonly-w');
    chmodSync(db, 0o444);
    await refused(verb, db, 'readonly database', asNobody);
  });
});
