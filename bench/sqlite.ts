// `npm run bench:sqlite`: opm-ts beside the reference opm on a SQLite index database of the size of
// OpenShift 4.10's default catalogs (bench/generate-index-db.ts: 3,000 bundles with their
// manifests, written by opm-ts's `registry add` steps, cached in bench/out/sqlite-index/):
// - `render <db> -o json`, `render <db> -o yaml`, `migrate <db> <dir>`: wall time, CPU time (user +
//   system) and peak memory by GNU time;
// - `registry serve -d <db>`: from spawn until grpc_health_probe answers SERVING, with the server's
//   CPU time (/proc, ticks of 10 ms) and peak memory (VmHWM) at that moment.
// Both at one core (`taskset -c 0`, GOMAXPROCS=1 for the reference), in alternated pairs (which
// side starts a pair alternates); each figure is the median of the per-pair ratios with their range,
// and the load average is printed with them. Each run gets its own copy of the database (the
// reference migrates its input in place), made before the clock starts. Before timing, the outputs
// of both are compared once: a row measures the same result from both. BENCH_RUNS sets the pairs
// (default 5); BENCH_SQLITE_BUNDLES the database's size (default 3000); BENCH_ONLY=render,serve only
// the rows whose label holds one of the words. Results also go to bench/out/sqlite-results.json.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  closeSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectRoot } from '../test/corpus.js';
import { missingTools, startServer, type ServerKind } from '../test/serve/harness.js';
import { generateIndexDb } from './generate-index-db.js';
import { machine, machineLine } from './machine.js';
import { referenceBinary } from './reference.js';
import { median, pairedRatios } from './stats.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = projectRoot();
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const BUNDLES = Number(process.env.BENCH_SQLITE_BUNDLES ?? 3000);
const GNU_TIME = '/usr/bin/time';
const OPM = path.join(root, 'bin', 'opm.js');
const ONE_CORE = ['taskset', '-c', '0'];

const reference = referenceBinary(root);
if (reference === undefined)
  throw new Error('bench:sqlite needs the reference opm (OPM_REFERENCE or scripts/build-reference-opm.sh)');
const missing = [...missingTools(), ...(existsSync(GNU_TIME) ? [] : [`${GNU_TIME} (apt-get install time)`])];
if (missing.length > 0) throw new Error(`bench:sqlite needs ${missing.join(', ')}`);
// Users run with the defaults; the reference at one core is told so (Go does not read the affinity).
delete process.env.OPM_THREADS;
process.env.GOMAXPROCS = '1';

interface Run {
  ms: number;
  cpuMs: number;
  peakMiB: number;
}

const work = mkdtempSync(path.join(tmpdir(), 'opm-bench-sqlite-'));

/** A fresh copy of the database for one run. */
function copyOf(db: string, side: string): string {
  const f = path.join(work, `${side}.db`);
  copyFileSync(db, f);
  return f;
}

/** One command at one core under GNU time, its standard output into `stdout` (a file or /dev/null). */
function timed(argv: string[], stdout = '/dev/null'): Run {
  const timeFile = path.join(work, 'time');
  const fd = openSync(stdout, 'w');
  try {
    const r = spawnSync(GNU_TIME, ['-o', timeFile, '-f', '%e %U %S %M', ...ONE_CORE, ...argv], {
      stdio: ['ignore', fd, 'pipe'],
      maxBuffer: 1 << 26,
    });
    if (r.status !== 0)
      throw new Error(`${argv.join(' ')} failed (${String(r.status)}): ${String(r.stderr).slice(-2000)}`);
  } finally {
    closeSync(fd);
  }
  const last = readFileSync(timeFile, 'utf8').trim().split('\n').pop() ?? '';
  const [wall, user, sys, kib] = last.split(' ').map(Number);
  return {
    ms: (wall ?? NaN) * 1000,
    cpuMs: ((user ?? NaN) + (sys ?? NaN)) * 1000,
    peakMiB: (kib ?? NaN) / 1024,
  };
}

/** `registry serve -d` at one core until SERVING: wall, CPU (every thread) and peak memory then. */
async function serveReady(side: 'ours' | 'reference', db: string): Promise<Run> {
  const kind: ServerKind = {
    name: side === 'ours' ? 'opm-ts' : 'reference',
    argv: (_catalog, port, scratch) => [
      ...ONE_CORE,
      ...(side === 'ours' ? [OPM] : [reference as string]),
      'registry',
      'serve',
      '-d',
      db,
      '-p',
      String(port),
      '-t',
      path.join(scratch, 'termination-log'),
    ],
    cacheOnly: () => [],
  };
  const s = await startServer(kind, db);
  let cpu = NaN;
  let peak = NaN;
  try {
    // taskset and GNU-time-less start: the pid is the server's own (taskset replaces itself with it).
    const stat = readFileSync(`/proc/${s.pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    cpu = (Number(f[11]) + Number(f[12])) * 10;
    const status = readFileSync(`/proc/${s.pid}/status`, 'utf8');
    peak = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN) / 1024;
  } finally {
    await s.stop();
  }
  return { ms: s.readyMs, cpuMs: cpu, peakMiB: peak };
}

/** The files under `dir` with their bytes, for comparing two outputs of migrate. */
function tree(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const f of readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort()) {
    const p = path.join(dir, f);
    if (existsSync(p) && !readdirSafe(p)) out.set(f, readFileSync(p));
  }
  return out;
}
const readdirSafe = (p: string): boolean => {
  try {
    readdirSync(p);
    return true;
  } catch {
    return false;
  }
};

/** Both tools' outputs of each command once, compared byte for byte (a row times the same result). */
function checkSameOutputs(db: string): void {
  for (const o of ['json', 'yaml']) {
    const ours = path.join(work, `ours.${o}`);
    const theirs = path.join(work, `reference.${o}`);
    timed([OPM, 'render', copyOf(db, 'ours'), '-o', o], ours);
    timed([reference as string, 'render', copyOf(db, 'reference'), '-o', o], theirs);
    if (!readFileSync(ours).equals(readFileSync(theirs)))
      throw new Error(`render -o ${o}: opm-ts's output differs from the reference's (${ours}, ${theirs})`);
    rmSync(ours);
    rmSync(theirs);
  }
  const a = path.join(work, 'migrated-ours');
  const b = path.join(work, 'migrated-reference');
  timed([OPM, 'migrate', copyOf(db, 'ours'), a]);
  timed([reference as string, 'migrate', copyOf(db, 'reference'), b]);
  const [ta, tb] = [tree(a), tree(b)];
  if (ta.size !== tb.size || [...ta].some(([f, bytes]) => !tb.get(f)?.equals(bytes)))
    throw new Error(`migrate: opm-ts's tree differs from the reference's (${a}, ${b})`);
  rmSync(a, { recursive: true });
  rmSync(b, { recursive: true });
}

interface Row {
  label: string;
  target: number;
  run(side: 'ours' | 'reference', db: string): Run | Promise<Run>;
}

const rows: Row[] = [
  ...(['json', 'yaml'] as const).map((o) => ({
    label: `render <db> -o ${o}`,
    target: 0.5,
    run: (side: 'ours' | 'reference', db: string) =>
      timed([...(side === 'ours' ? [OPM] : [reference]), 'render', db, '-o', o]),
  })),
  {
    label: 'migrate <db> <dir>',
    target: 0.5,
    run: (side, db) => {
      const out = path.join(work, `migrated-${side}`);
      try {
        return timed([...(side === 'ours' ? [OPM] : [reference]), 'migrate', db, out]);
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    },
  },
  { label: 'registry serve -d <db>, ready', target: 0.5, run: serveReady },
];

const results: unknown[] = [];
try {
  const cache = path.join(here, 'sqlite-index');
  process.stderr.write(`index database of ${BUNDLES} bundles in ${cache} ...\n`);
  const gen = generateIndexDb(cache, { bundles: BUNDLES });
  const label = `generated index.db: ${gen.packages} packages, ${gen.bundles} bundles, ${(gen.bytes / 1e6).toFixed(1)} MB`;
  process.stderr.write(`${label}${gen.made ? '' : ' (cached)'}\ncomparing the outputs once ...\n`);
  const checked = process.env.BENCH_ONLY === undefined;
  if (checked) checkSameOutputs(gen.file);
  const loads: number[] = [loadavg()[0] ?? NaN];
  const table: string[] = [];
  const only = (process.env.BENCH_ONLY ?? '').split(',').filter((w) => w !== '');
  for (const row of rows.filter((r) => only.length === 0 || only.some((w) => r.label.includes(w)))) {
    const runs: Record<'ours' | 'reference', Run[]> = { ours: [], reference: [] };
    // One uncounted pair: both read the database from the page cache from then on.
    for (const side of ['ours', 'reference'] as const) await row.run(side, copyOf(gen.file, side));
    for (let i = 0; i < RUNS; i++) {
      const order = i % 2 === 0 ? (['ours', 'reference'] as const) : (['reference', 'ours'] as const);
      for (const side of order) runs[side].push(await row.run(side, copyOf(gen.file, side)));
      loads.push(loadavg()[0] ?? NaN);
    }
    process.stderr.write(`  ${row.label}: ${RUNS} pairs done\n`);
    const of = (k: keyof Run) => ({
      ours: median(
        runs.ours.map((r) => r[k]),
        NaN,
      ),
      reference: median(
        runs.reference.map((r) => r[k]),
        NaN,
      ),
      ...pairedRatios(
        runs.ours.map((r) => r[k]),
        runs.reference.map((r) => r[k]),
        NaN,
      ),
    });
    const wall = of('ms');
    const cpu = of('cpuMs');
    const peak = of('peakMiB');
    const ok = wall.ratio <= row.target && peak.ratio <= 1;
    const range = (x: { ratio: number; min: number; max: number }): string =>
      `${x.ratio.toFixed(2)} [${x.min.toFixed(2)}-${x.max.toFixed(2)}]`;
    table.push(
      [
        row.label.padEnd(32),
        `${Math.round(wall.reference)} / ${Math.round(wall.ours)}`.padStart(14),
        range(wall).padStart(17),
        `${Math.round(cpu.reference)} / ${Math.round(cpu.ours)}`.padStart(14),
        range(cpu).padStart(17),
        `${Math.round(peak.reference)} / ${Math.round(peak.ours)}`.padStart(10),
        `${peak.ratio.toFixed(2)}`.padStart(5),
        `  wall <= ${row.target}x, peak <= 1x ${ok ? 'ok' : 'MISSED'}`,
      ].join(' '),
    );
    results.push({ row: row.label, target: row.target, wall, cpu, peak, ok, runs });
  }
  const finite = loads.filter(Number.isFinite);
  console.log(
    `\nSQLite index database, one core: ${label}; ${RUNS} alternated pairs, load average ${Math.min(...finite).toFixed(1)}-${Math.max(...finite).toFixed(1)}${checked ? "; outputs identical to the reference's" : ''}\n${machineLine()}`,
  );
  console.log(
    `${'command'.padEnd(32)} ${'wall ms ref/ts'.padStart(14)} ${'wall ratio'.padStart(17)} ${'CPU ms ref/ts'.padStart(14)} ${'CPU ratio'.padStart(17)} ${'peak MiB'.padStart(10)} ${'ratio'.padStart(5)}`,
  );
  for (const t of table) console.log(t);
  mkdirSync(here, { recursive: true });
  writeFileSync(
    path.join(here, 'sqlite-results.json'),
    JSON.stringify({ machine: machine(), database: gen, loads, rows: results }, null, 2) + '\n',
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
