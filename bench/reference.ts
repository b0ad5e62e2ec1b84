// Rows side by side with the reference opm (Go), when one is available: $OPM_REFERENCE, else
// .tools/bin/opm-reference (scripts/build-reference-opm.sh builds it). Both are run as a user runs
// them, as separate processes from their command line (bin/opm.js run as a program for opm-ts, as
// npm's `opm` link runs it, with this Node.js first in PATH), alternated pair by pair (which one
// starts a pair alternates too); times and memory are medians of BENCH_RUNS, ratios the medians of
// the pairwise ratios (docs/performance.md: best-of-runs flattered opm-ts); at one core (`taskset -c 0`, and GOMAXPROCS=1 for Go) and at all cores.
// Wall time, CPU time (user + system) and peak memory come from GNU time (`/usr/bin/time`).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';

export interface ReferenceRow {
  name: string;
  cores: string;
  refMs: number;
  opmMs: number;
  refCpuMs: number | undefined;
  opmCpuMs: number | undefined;
  refMB: number | undefined;
  opmMB: number | undefined;
  /** opm-ts wall / reference wall. */
  ratio: number;
  cpuRatio: number | undefined;
  target: string;
  ok: boolean | undefined;
}

interface Run {
  ms: number;
  cpuMs: number | undefined;
  mb: number | undefined;
  code: number;
}

const GNU_TIME = '/usr/bin/time';

export function referenceBinary(root: string): string | undefined {
  const candidates = [process.env.OPM_REFERENCE, path.join(root, '.tools', 'bin', 'opm-reference')];
  return candidates.find((c): c is string => c !== undefined && c !== '' && existsSync(c));
}

function haveGnuTime(): boolean {
  if (!existsSync(GNU_TIME)) return false;
  const r = spawnSync(GNU_TIME, ['-f', '%e', 'true'], { encoding: 'utf8' });
  return r.status === 0;
}

/** One run of `argv` (optionally on core 0 only), measured by GNU time when present. */
function runOnce(argv: string[], oneCore: boolean, env: NodeJS.ProcessEnv, gnuTime: boolean): Run {
  const cmd = oneCore ? ['taskset', '-c', '0', ...argv] : argv;
  const tmp = mkdtempSync(path.join(tmpdir(), 'opm-bench-'));
  const timeFile = path.join(tmp, 'time');
  try {
    const full = gnuTime ? [GNU_TIME, '-o', timeFile, '-f', '%e %U %S %M', ...cmd] : cmd;
    const t0 = process.hrtime.bigint();
    const r = spawnSync(full[0] ?? '', full.slice(1), {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
      maxBuffer: 1 << 24,
    });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const code = r.status ?? 1;
    if (!gnuTime) return { ms, cpuMs: undefined, mb: undefined, code };
    // GNU time writes "Command exited with non-zero status N" first when the command fails.
    const last = readFileSync(timeFile, 'utf8').trim().split('\n').pop() ?? '';
    const [, user, sys, kb] = last.split(' ').map(Number);
    return {
      ms,
      cpuMs: ((user ?? 0) + (sys ?? 0)) * 1000,
      mb: (kb ?? 0) / 1024,
      code,
    };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function median(xs: readonly number[]): number | undefined {
  if (xs.length === 0) return undefined;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m] : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
}

/** The median run of each measure, and the medians of the pairwise ratios of wall and CPU time. */
function paired(
  ours: Run[],
  ref: Run[],
): { ours: Run; ref: Run; ratio: number; cpuRatio: number | undefined } {
  const mid = (runs: Run[]): Run => ({
    ms: median(runs.map((r) => r.ms)) ?? 0,
    cpuMs: median(runs.flatMap((r) => (r.cpuMs === undefined ? [] : [r.cpuMs]))),
    mb: median(runs.flatMap((r) => (r.mb === undefined ? [] : [r.mb]))),
    code: runs.find((r) => r.code !== 0)?.code ?? 0,
  });
  const pairs = ours
    .map((o, i) => [o, ref[i]] as const)
    .filter((p): p is readonly [Run, Run] => p[1] !== undefined);
  return {
    ours: mid(ours),
    ref: mid(ref),
    ratio: median(pairs.map(([o, r]) => o.ms / r.ms)) ?? 0,
    cpuRatio: median(
      pairs.flatMap(([o, r]) => (o.cpuMs !== undefined && r.cpuMs ? [o.cpuMs / r.cpuMs] : [])),
    ),
  };
}

const round = (x: number | undefined, p = 0): number | undefined =>
  x === undefined ? undefined : Math.round(x * 10 ** p) / 10 ** p;

interface Case {
  name: string;
  args: string[];
  /** Wall ratio target; CPU ratio target where the issue sets one. */
  wall?: number;
  cpu?: number;
  runs?: number;
  /** Variables removed from the environment of both commands. */
  unset?: string[];
  /** What runs in opm-ts's column instead of `opm <args>` (a floor, run beside the reference). */
  instead?: string[];
}

/**
 * The reference rows, and derived rows: opm-ts's speed-up from one core to all, next to the speed-up
 * this machine gives a purely parallel job in the same run (other load on a shared machine shows
 * there).
 */
export function referenceBench(opts: {
  root: string;
  reference: string;
  catalog: string | undefined;
  bundleDir: string | undefined;
  generated: string | undefined;
  /** The floor of `render -o json` (bench/floor-json.ts) as a command, given the catalog after it. */
  floorJson?: string[];
  runs: number;
}): ReferenceRow[] {
  const gnuTime = haveGnuTime();
  if (!gnuTime)
    process.stderr.write('*** /usr/bin/time not found (apt-get install time): wall time only ***\n');
  const opm = [path.join(opts.root, 'bin', 'opm.js')];
  const PATH = [path.dirname(process.execPath), process.env.PATH ?? ''].join(path.delimiter);
  const cases: Case[] = [{ name: 'version', args: ['version'], wall: 1.5 }];
  if (opts.bundleDir !== undefined)
    cases.push({ name: 'render <bundle dir>', args: ['render', opts.bundleDir], wall: 1.5 });
  // Node.js 20 loads every root certificate when it starts if NODE_EXTRA_CA_CERTS is set
  // (nodejs/node#40524), before any JavaScript runs: the short commands again without it.
  if ((process.env.NODE_EXTRA_CA_CERTS ?? '') !== '') {
    const unset = ['NODE_EXTRA_CA_CERTS'];
    cases.push({ name: 'version, no NODE_EXTRA_CA_CERTS', args: ['version'], wall: 1.5, unset });
    if (opts.bundleDir !== undefined)
      cases.push({
        name: 'render <bundle dir>, no NODE_EXTRA_CA..',
        args: ['render', opts.bundleDir],
        wall: 1.5,
        unset,
      });
  }
  if (opts.catalog !== undefined) {
    const c = opts.catalog;
    cases.push(
      { name: 'validate <corpus catalog>', args: ['validate', c], wall: 0.4, cpu: 0.5 },
      { name: 'render -o json <corpus catalog>', args: ['render', c, '-o', 'json'], wall: 0.4, cpu: 0.5 },
      { name: 'render -o yaml <corpus catalog>', args: ['render', c, '-o', 'yaml'], wall: 0.4, cpu: 0.5 },
    );
    // Reading, parsing (opm-ts's reader) and V8's JSON.stringify alone, against the reference's
    // render -o json: the least any JavaScript render of this catalog can take.
    if (opts.floorJson !== undefined)
      cases.push({
        name: 'render -o json floor: read+parse+stringify',
        args: ['render', c, '-o', 'json'],
        instead: [...opts.floorJson, c],
      });
  }
  // The reference needs close to a minute and 2 GB here: one run, all cores only.
  if (opts.generated !== undefined && process.env.BENCH_REFERENCE_LARGE !== '0')
    cases.push({
      name: 'validate <generated 1 GB>',
      args: ['validate', opts.generated],
      wall: 0.05,
      runs: 1,
    });

  const rows: ReferenceRow[] = [];
  /** Median wall times by case: opm-ts's and the reference's, at one core and at all cores. */
  const walls = new Map<string, { opm: [number, number]; ref: [number, number] }>();
  for (const c of cases) {
    for (const oneCore of [true, false]) {
      if (c.runs === 1 && oneCore) continue;
      const env: NodeJS.ProcessEnv = { ...process.env, PATH, ...(oneCore ? { GOMAXPROCS: '1' } : {}) };
      // Users run with the defaults: no thread count or GOMAXPROCS left over from the caller's shell.
      if (!oneCore) delete env.GOMAXPROCS;
      for (const v of ['OPM_THREADS', ...(c.unset ?? [])]) delete env[v];
      const refRuns: Run[] = [];
      const opmRuns: Run[] = [];
      for (let i = 0; i < (c.runs ?? opts.runs); i++) {
        const refRun = (): number =>
          refRuns.push(runOnce([opts.reference, ...c.args], oneCore, env, gnuTime));
        const opmRun = (): number =>
          opmRuns.push(runOnce(c.instead ?? [...opm, ...c.args], oneCore, env, gnuTime));
        if (i % 2 === 0) refRun();
        opmRun();
        if (i % 2 === 1) refRun();
      }
      const { ours, ref, ratio, cpuRatio } = paired(opmRuns, refRuns);
      const failed = ours.code !== 0 || ref.code !== 0;
      const wallOk = c.wall === undefined ? undefined : ratio <= c.wall;
      const cpuOk = c.cpu === undefined || cpuRatio === undefined ? undefined : cpuRatio <= c.cpu;
      const targets = [
        c.wall === undefined ? '' : `wall <= ${c.wall}x`,
        c.cpu === undefined ? '' : `cpu <= ${c.cpu}x`,
      ].filter((t) => t !== '');
      rows.push({
        name: c.name,
        cores: oneCore ? '1' : String(availableParallelism()),
        refMs: Math.round(ref.ms),
        opmMs: Math.round(ours.ms),
        refCpuMs: round(ref.cpuMs),
        opmCpuMs: round(ours.cpuMs),
        refMB: round(ref.mb),
        opmMB: round(ours.mb),
        ratio: Math.round(ratio * 100) / 100,
        cpuRatio: round(cpuRatio, 2),
        target: failed ? `FAILED (exit ${ours.code}/${ref.code})` : targets.join(', ') || '-',
        ok: failed
          ? false
          : wallOk === undefined && cpuOk === undefined
            ? undefined
            : wallOk !== false && cpuOk !== false,
      });
      const w = walls.get(c.name) ?? { opm: [0, 0], ref: [0, 0] };
      w.opm[oneCore ? 0 : 1] = ours.ms;
      w.ref[oneCore ? 0 : 1] = ref.ms;
      walls.set(c.name, w);
    }
  }
  // Node.js's own start (`node -e 0`) against the reference's `version`: the floor under every short
  // command of opm-ts, whatever it does.
  const nodeRuns: Run[] = [];
  const refVersion: Run[] = [];
  for (let i = 0; i < opts.runs; i++) {
    refVersion.push(runOnce([opts.reference, 'version'], false, process.env, gnuTime));
    nodeRuns.push(runOnce([process.execPath, '-e', '0'], false, process.env, gnuTime));
  }
  const floor = paired(nodeRuns, refVersion);
  rows.push({
    name: 'node -e 0 (runtime floor) vs version',
    cores: String(availableParallelism()),
    refMs: Math.round(floor.ref.ms),
    opmMs: Math.round(floor.ours.ms),
    refCpuMs: round(floor.ref.cpuMs),
    opmCpuMs: round(floor.ours.cpuMs),
    refMB: round(floor.ref.mb),
    opmMB: round(floor.ours.mb),
    ratio: Math.round(floor.ratio * 100) / 100,
    cpuRatio: round(floor.cpuRatio, 2),
    target: '-',
    ok: undefined,
  });
  const ceiling = machineSpeedup(opts.runs);
  let workSpeedup: number | undefined;
  if (opts.catalog !== undefined) {
    // The same validation as separate one-thread processes, all at once: what this machine gives
    // this work when nothing is shared between the copies, the ceiling for any threading of it.
    const work = workloadSpeedup([...opm, 'validate', opts.catalog], opts.runs);
    workSpeedup = work.speedup;
    rows.push(
      wallRow(
        `validate: ${availableParallelism()} processes at once`,
        String(availableParallelism()),
        work.one,
        work.all,
        work.speedup,
        'speed-up of the work itself',
      ),
    );
  }
  for (const name of ['validate <corpus catalog>', 'render -o json <corpus catalog>']) {
    const w = walls.get(name)?.opm;
    if (w === undefined || w[0] === 0 || w[1] === 0) continue;
    const speedup = w[0] / w[1];
    rows.push(
      wallRow(
        `${name}: speed-up 1 -> ${availableParallelism()} cores`,
        `machine ${ceiling.toFixed(2)}x`,
        w[0],
        w[1],
        speedup,
        '>= 1.7x',
        speedup >= 1.7,
      ),
    );
  }
  // No threading of this work gains more from the other cores than separate processes do (the
  // "processes at once" row), while the reference gains its own speed-up: at all cores opm-ts's ratio
  // can be no better than its one-core ratio times the reference's speed-up over that gain.
  for (const [name, short] of [
    ['validate <corpus catalog>', 'validate'],
    ['render -o json <corpus catalog>', 'render -o json'],
  ] as const) {
    const w = walls.get(name);
    if (workSpeedup === undefined || w === undefined || w.opm[0] === 0 || w.ref[1] === 0) continue;
    const refSpeedup = w.ref[0] / w.ref[1];
    rows.push(
      wallRow(
        `${short}: best all-core ratio possible`,
        String(availableParallelism()),
        w.ref[1],
        w.opm[0] / workSpeedup,
        (w.opm[0] / w.ref[0]) * (refSpeedup / workSpeedup),
        `1-core ratio x ref speed-up ${refSpeedup.toFixed(2)} / ${workSpeedup.toFixed(2)}`,
      ),
    );
  }
  return rows;
}

/** A row of wall times only (derived from other rows, or timed outside GNU time). */
function wallRow(
  name: string,
  cores: string,
  refMs: number,
  opmMs: number,
  ratio: number,
  target: string,
  ok?: boolean,
): ReferenceRow {
  return {
    name,
    cores,
    refMs: Math.round(refMs),
    opmMs: Math.round(opmMs),
    refCpuMs: undefined,
    opmCpuMs: undefined,
    refMB: undefined,
    opmMB: undefined,
    ratio: Math.round(ratio * 100) / 100,
    cpuRatio: undefined,
    target,
    ok,
  };
}

/** What concurrencySpeedup measures. */
export interface ConcurrencySpeedup {
  /** Best wall times of one job alone and of one job per core at once. */
  one: number;
  all: number;
  /** The speed-up of those best times. */
  speedup: number;
  /** The median of each round's speed-up (one alone, then one per core, in turn). */
  pairedSpeedup: number;
}

/**
 * Wall times of one job alone and of one job per core started at once, `runs` rounds of each in
 * turn, with the speed-up they give (n jobs on n cores take as long as one alone when nothing is
 * shared). `start` is a script statement that starts one job and calls `done()` when it ends;
 * `setup` runs before; `env` is the script's environment (default: this process's).
 */
function concurrencySpeedup(
  setup: string,
  start: string,
  runs: number,
  env?: NodeJS.ProcessEnv,
): ConcurrencySpeedup {
  const run = (n: number): number => {
    const script = `
      ${setup}
      const t0 = process.hrtime.bigint();
      let left = ${n};
      const done = () => {
        if (--left === 0) console.log(Number(process.hrtime.bigint() - t0) / 1e6);
      };
      for (let i = 0; i < ${n}; i++) ${start};`;
    return Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', env }).trim());
  };
  const n = availableParallelism();
  let one = Infinity;
  let all = Infinity;
  const rounds: number[] = [];
  for (let i = 0; i < runs; i++) {
    const alone = run(1);
    const atOnce = run(n);
    one = Math.min(one, alone);
    all = Math.min(all, atOnce);
    rounds.push((alone * n) / atOnce);
  }
  const speedup = (one * n) / all;
  return { one, all, speedup, pairedSpeedup: median(rounds) ?? speedup };
}

/**
 * How much faster this machine runs a purely parallel job (one busy loop per core) than one loop
 * alone, best of `runs`: the ceiling of any speed-up measured in this run.
 */
export function machineSpeedup(runs: number): number {
  const code =
    "let x = 0; for (let i = 0; i < 2e8; i++) x += i % 7; require('node:worker_threads').parentPort.postMessage(x);";
  return concurrencySpeedup(
    "const { Worker } = require('node:worker_threads');",
    `new Worker(${JSON.stringify(code)}, { eval: true }).on('message', done)`,
    runs,
  ).speedup;
}

/**
 * How much faster `n` copies of `argv` (one loading thread each, OPM_THREADS=1), one per core,
 * finish when started at once than one copy alone, times n, over `runs` rounds; `one` and `all` are
 * the wall times. `env`: the copies' environment (default: this process's), OPM_THREADS aside.
 */
export function workloadSpeedup(argv: string[], runs: number, env?: NodeJS.ProcessEnv): ConcurrencySpeedup {
  return concurrencySpeedup(
    `const { spawn } = require('node:child_process'); const argv = ${JSON.stringify(argv)};`,
    "spawn(argv[0], argv.slice(1), { stdio: 'ignore', env: { ...process.env, OPM_THREADS: '1' } }).on('exit', done)",
    runs,
    env,
  );
}

export function printReferenceRows(rows: readonly ReferenceRow[]): void {
  if (rows.length === 0) return;
  console.log(
    '\nside by side with the reference opm          cores   ref ms   opm ms  wall x  ref cpu  opm cpu  cpu x  ref MB  opm MB  target',
  );
  const s = (x: number | undefined, w: number, p = 0): string =>
    (x === undefined ? '-' : p === 0 ? String(x) : x.toFixed(p)).padStart(w);
  for (const r of rows) {
    console.log(
      `${r.name.padEnd(44)} ${r.cores.padStart(5)} ${s(r.refMs, 8)} ${s(r.opmMs, 8)} ${s(r.ratio, 7, 2)} ${s(r.refCpuMs, 8)} ${s(r.opmCpuMs, 8)} ${s(r.cpuRatio, 6, 2)} ${s(r.refMB, 7)} ${s(r.opmMB, 7)}  ${r.target}${r.ok === undefined ? '' : r.ok ? '  ok' : '  MISSED'}`,
    );
  }
}
