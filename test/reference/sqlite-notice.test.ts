// needs-build: runs bin/opm.js on a pseudo-terminal (util-linux's script) beside the reference.
// `render` and `migrate` of an index database say opm's deprecation notice with the bytes its logrus
// gives it: one quoted `level=warning` line off a terminal, four bold-yellow lines on one.
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { OPM } from '../serve/client.js';
import { reference } from './reference-opm.js';
import { haveSqlite3, rowsSql, schemaSql, sqlite3, type DbBundle } from '../sqlite/index-db.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'opm-sqlite-notice-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const BUNDLES: DbBundle[] = [
  { name: 'foo.v1.0.0', pkg: 'foo', version: '1.0.0', image: 'example.com/foo:1.0.0', channels: ['stable'] },
];

/** A fresh copy of a schema-13 database (the reference migrates what it reads, so each run gets its own). */
function database(name: string): string {
  const source = path.join(tmp, 'source.db');
  if (!existsSync(source)) sqlite3(source, `${schemaSql(13)}\n${rowsSql('foo', 'stable', BUNDLES, 13)}`);
  const db = path.join(tmp, name);
  copyFileSync(source, db);
  return db;
}

/** The notice's lines of a stderr: the time and the seconds since start left out. */
function notice(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter(
      (l) =>
        l.includes('DEPRECATION NOTICE') || l.includes('\x1b[1;33m') || /^(Sqlite|them|to the new)/.test(l),
    )
    .map((l) => l.replace(/^time="[^"]*"/, 'time=T').replace(/\[\d{4}\]/, '[N]'));
}

const commands: [string, (db: string) => string[]][] = [
  ['render', (db) => ['render', db]],
  ['migrate', (db) => ['migrate', db, `${db}.out`]],
];

describe.runIf(haveSqlite3).each(commands)('%s of an index database', (name, args) => {
  it('off a terminal: the quoted line opm writes', async () => {
    const theirs = spawnSync(reference, args(database(`${name}-ref.db`)), { encoding: 'utf8' });
    const ours = await runOpm(args(database(`${name}-ours.db`)));
    expect(theirs.status).toBe(0);
    expect(ours.code).toBe(0);
    const want = notice(theirs.stderr);
    expect(want).toEqual([
      'time=T level=warning msg="\\x1b[1;33mDEPRECATION NOTICE:\\nSqlite-based catalogs and their related subcommands are deprecated. Support for\\nthem will be removed in a future release. Please migrate your catalog workflows\\nto the new file-based catalog format.\\x1b[0m"',
    ]);
    expect(notice(ours.stderr)).toEqual(want);
  });

  it.runIf(spawnSync('script', ['--version']).status === 0)(
    'on a terminal: the four coloured lines opm writes',
    () => {
      const onTerminal = (argv: string[]): string =>
        spawnSync('script', ['-qec', `${argv.join(' ')} >/dev/null`, '/dev/null'], {
          encoding: 'utf8',
          cwd: tmp,
        }).stdout;
      const theirs = notice(onTerminal([reference, ...args(database(`${name}-tty-ref.db`))]));
      const ours = notice(onTerminal([process.execPath, OPM, ...args(database(`${name}-tty-ours.db`))]));
      expect(theirs).toHaveLength(4);
      expect(theirs[0]).toBe('\x1b[33mWARN\x1b[0m[N] \x1b[1;33mDEPRECATION NOTICE:\r');
      expect(ours).toEqual(theirs);
    },
  );
});
