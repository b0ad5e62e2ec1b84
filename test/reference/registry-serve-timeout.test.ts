// needs-build: it starts `bin/opm.js` beside the reference, each serving until its timeout.
// `opm registry serve --timeout-seconds N`: both say how long they stay open, serve, and stop on
// their own after N seconds with `Timeout expired. Gracefully stopping.`, exit 0; a value that is
// not a whole number of seconds up to 65535 fails in both with Go's ParseUint words, exit 1.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { reference } from './reference-opm.js';
import { freePort, OPM } from '../serve/client.js';
import { haveSqlite3, rowsSql, schemaSql, sqlite3, type DbBundle } from '../sqlite/index-db.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'opm-serve-timeout-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const BUNDLES: DbBundle[] = [
  { name: 'foo.v1.0.0', pkg: 'foo', version: '1.0.0', image: 'example.com/foo:1.0.0', channels: ['stable'] },
];

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run to its own end (a guard kills it after two minutes, which fails the comparison). */
function run(argv: string[]): Promise<Exit> {
  return new Promise((resolve) => {
    const child = spawn(argv[0] as string, argv.slice(1), { cwd: tmp });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const guard = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Log lines without their time, and the port each was given. */
const lines = (s: string, port: number): string[] =>
  s
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.replace(/^time="[^"]*" /, '').replace(` port=${port}`, ' port=P'));

async function both(timeout: string): Promise<{ theirs: Exit; ours: Exit; tp: number; op: number }> {
  const db = path.join(tmp, 'index.db');
  sqlite3(db, `${schemaSql(13)}\n${rowsSql('foo', 'stable', BUNDLES, 13)}`);
  const refDb = path.join(tmp, `ref-${timeout}.db`);
  copyFileSync(db, refDb);
  const [tp, op] = [await freePort(), await freePort()];
  const common = ['registry', 'serve', '--timeout-seconds', timeout, '-t', path.join(tmp, 'tl')];
  const [theirs, ours] = await Promise.all([
    run([reference, ...common, '-d', 'ref-' + timeout + '.db', '-p', String(tp)]),
    run([process.execPath, OPM, ...common, '-d', 'index.db', '-p', String(op)]),
  ]);
  rmSync(db);
  return { theirs, ours, tp, op };
}

describe.runIf(haveSqlite3)('registry serve --timeout-seconds', () => {
  it('stops on its own after the seconds given, as the reference does', async () => {
    const { theirs, ours, tp, op } = await both('1');
    expect(theirs.code).toBe(0);
    expect(ours.code).toBe(0);
    // The reference may also log `shutting down server`: its context is cancelled as the command
    // returns, racing the process's exit (seen under load, not otherwise).
    const want = lines(theirs.stdout, tp)
      .map((l) => l.replace('ref-1.db', 'index.db'))
      .filter((l) => !l.includes('shutting down server'));
    expect(want).toEqual([
      'level=info msg="Keeping server open for 1 seconds" database=index.db port=P',
      'level=info msg="serving registry" database=index.db port=P',
      'level=info msg="Timeout expired. Gracefully stopping." database=index.db port=P',
    ]);
    expect(lines(ours.stdout, op)).toEqual(want);
  });

  it.each([
    ['abc', 'invalid syntax'],
    ['70000', 'value out of range'],
    ['-1', 'invalid syntax'],
  ])('--timeout-seconds %s fails in both: %s', async (value, why) => {
    const { theirs, ours } = await both(value);
    const words = `strconv.ParseUint: parsing "${value}": ${why}`;
    expect(theirs.code).toBe(1);
    expect(theirs.stderr).toContain(`Error: ${words}`);
    expect(ours.code).toBe(1);
    expect(ours.stdout).toBe('');
    expect(ours.stderr).toContain(words);
    expect(ours.stderr.split('\n').filter((l) => l.includes(words))).toHaveLength(1);
  });
});
