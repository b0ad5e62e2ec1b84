// bench: render and migrate of a generated 3,000-bundle index database (bench/generate-index-db.ts:
// 154 packages, 61 MB, manifests included) by opm-ts and the reference opm, alternated, at one core
// (`taskset -c 0`, GOMAXPROCS=1), with GNU time: wall and CPU time, peak memory. Needs OPM_REFERENCE,
// taskset and /usr/bin/time; prints one row per command. `npm run bench:sqlite` gives the full rows.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateIndexDb } from '../../bench/generate-index-db.js';

const reference = process.env.OPM_REFERENCE ?? '';
const ready = reference !== '' && existsSync(reference) && existsSync('/usr/bin/time');
if (!ready) console.warn('*** SKIPPED the SQLite bench: it needs OPM_REFERENCE and /usr/bin/time ***');

const tmp = mkdtempSync(path.join(tmpdir(), 'opm-sqlite-bench-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Run {
  wall: number;
  cpu: number;
  rssMiB: number;
}

function timed(argv: string[], env: NodeJS.ProcessEnv = process.env): Run {
  const out = path.join(tmp, 'time.txt');
  const r = spawnSync('/usr/bin/time', ['-o', out, '-f', '%e %U %S %M', 'taskset', '-c', '0', ...argv], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
    maxBuffer: 1 << 28,
  });
  if (r.status !== 0) throw new Error(`${argv.join(' ')}: ${String(r.stderr)}`);
  const [wall, user, sys, rss] = readFileSync(out, 'utf8').trim().split(/\s+/).map(Number);
  return { wall: wall ?? 0, cpu: (user ?? 0) + (sys ?? 0), rssMiB: (rss ?? 0) / 1024 };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

describe.runIf(ready)('SQLite index database, 3,000 bundles, one core', () => {
  let db = '';
  const opm = path.resolve('bin/opm.js');

  it.each([
    ['render', (f: string) => ['render', f, '-o', 'json']],
    ['migrate', (f: string) => ['migrate', f, path.join(tmp, `out-${Math.random().toString(36).slice(2)}`)]],
  ] as const)('%s: opm-ts within 0.5 of the reference wall time, peak memory within 1', (name, args) => {
    if (db === '') db = generateIndexDb(tmp).file;
    const ours: Run[] = [];
    const theirs: Run[] = [];
    for (let i = 0; i < 3; i++) {
      ours.push(timed([opm, ...args(db)]));
      const copy = path.join(tmp, 'ref.db');
      copyFileSync(db, copy);
      theirs.push(timed([reference, ...args(copy)], { ...process.env, GOMAXPROCS: '1' }));
    }
    const row = (rs: Run[]) =>
      `wall ${median(rs.map((r) => r.wall)).toFixed(2)} s, cpu ${median(rs.map((r) => r.cpu)).toFixed(2)} s, peak ${median(rs.map((r) => r.rssMiB)).toFixed(0)} MiB`;
    console.log(`${name}: opm-ts ${row(ours)} | reference ${row(theirs)}`);
    const ratios = ours.map((o, i) => o.wall / (theirs[i]?.wall ?? Number.NaN));
    expect(median(ratios)).toBeLessThanOrEqual(0.5);
    expect(median(ours.map((r) => r.rssMiB))).toBeLessThanOrEqual(median(theirs.map((r) => r.rssMiB)));
  });
});
