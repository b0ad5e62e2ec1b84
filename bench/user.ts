// opm-ts against the reference opm as a user measures them (docs/performance.md): whole processes
// from their command lines (`bin/opm.js` run as a program, as npm's `opm` link runs it), alternated
// pair by pair (which one starts a pair alternates too), output to /dev/null; each figure is the
// median of the pairwise ratios opm-ts / reference with their range (min–max), at one core
// (`taskset -c 0`, GOMAXPROCS=1) and at all cores, with the peak memory of both (GNU time's %M, the
// child's maxrss). Catalogs: the corpus catalog, the corpus's bundle directories, and the generated
// certified and community shapes (bench/generate-shapes.ts), each also as JSON files (one
// `catalog.json` per package, as `opm render -o json` writes them, which is how published catalogs
// are often stored); and `opm version`, the shortest command, which is Node.js's start and the
// launcher's and nothing else. With both core settings, each catalog and command also gets its gain
// from one core to all against the reference's, and what matching it would take (bench/user-gains.ts).
//
//   BENCH_QUICK=1     3 pairs per figure, one bundle directory per package (development)
//   BENCH_RUNS=N      pairs per figure (default 5, quick 3)
//   BENCH_ONLY=a,b    only catalogs whose label contains one of these words, case aside (json: the catalogs of
//                     JSON files; bundle: the bundle directories; version: `opm version`)
//   BENCH_CORES=1|all only that setting
//   BENCH_CPU=N       the core of the one-core figures (default 0), on a machine shared with other work
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { generateShape, type Shape } from './generate-shapes.js';
import { median, pairedRatios } from './stats.js';
import { gainOf, type Gain, type GainInputs } from './user-gains.js';
import { workloadSpeedup } from './reference.js';
import { machine } from './machine.js';

const GNU_TIME = '/usr/bin/time';
/** Bumped when the generator's output changes, so that catalogs made before are made again. */
const GENERATOR_VERSION = 2;

export interface Sample {
  ms: number;
  /** User + system CPU time of the process and its threads (GNU time). */
  cpuMs: number | undefined;
  /** Peak resident memory in MiB (GNU time), when GNU time is there. */
  mb: number | undefined;
  code: number;
}

export interface Cell {
  /** Median, min and max of the pairwise ratios opm-ts / reference (wall time). */
  median: number;
  min: number;
  max: number;
  pairs: number;
  /**
   * Median of the pairwise ratios of CPU time (user + system): what the wall ratio at one core is on
   * a quiet machine, and far less moved by other load than wall time.
   */
  cpu: number | undefined;
  /** What best-of-runs would say from the same samples: fastest opm-ts over fastest reference. */
  bestOf: number;
  oursMs: number;
  refMs: number;
  oursMB: number | undefined;
  refMB: number | undefined;
  failed: string | undefined;
}

export interface UserRow {
  catalog: string;
  cores: string;
  validate: Cell | undefined;
  json: Cell | undefined;
  yaml: Cell | undefined;
  /** `opm version` (the row without a catalog). */
  version?: Cell;
}

/** One command's gain from one core to all of them on one catalog (user-gains.ts). */
export interface GainRow {
  catalog: string;
  command: string;
  inputs: GainInputs;
  gain: Gain;
}

export interface UserBench {
  rows: UserRow[];
  gains: GainRow[];
  environment: Record<string, string>;
  seconds: number;
}

function haveGnuTime(): boolean {
  if (!existsSync(GNU_TIME)) return false;
  return spawnSync(GNU_TIME, ['-f', '%e', 'true']).status === 0;
}

/**
 * Times the command from inside a bash between it and GNU time: $EPOCHREALTIME around it (wall time
 * without the start of GNU time and bash) and `times` after it (its CPU time to the millisecond; GNU
 * time gives hundredths of a second, a third of a short command's whole). Bash 5; without it, GNU
 * time alone.
 */
const TIMED =
  'f=$1; shift; t0=$EPOCHREALTIME; "$@"; s=$?; t1=$EPOCHREALTIME; { echo "$t0 $t1"; times; } >"$f"; exit $s';

function haveBash5(): boolean {
  const r = spawnSync('bash', ['-c', 'echo "$EPOCHREALTIME"'], { encoding: 'utf8' });
  return r.status === 0 && /^\d+[.,]\d+$/.test(r.stdout.trim());
}

/** Seconds of a bash `times` figure such as `0m0.052s`. */
function timesSeconds(t: string | undefined): number {
  const m = /^(\d+)m([\d.,]+)s$/.exec(t ?? '');
  return m === null ? Number.NaN : Number(m[1]) * 60 + Number((m[2] ?? '').replace(',', '.'));
}

/** The core one-core figures run on (BENCH_CPU, default 0). */
const ONE_CORE = /^[0-9]+$/.test(process.env.BENCH_CPU ?? '') ? (process.env.BENCH_CPU ?? '0') : '0';

/** One run of `argv` with stdout to /dev/null, as a child process, optionally on one core alone (ONE_CORE). */
export function runProcess(
  argv: string[],
  oneCore: boolean,
  env: NodeJS.ProcessEnv,
  gnuTime: boolean,
  bash5 = false,
): Sample {
  const cmd = oneCore ? ['taskset', '-c', ONE_CORE, ...argv] : argv;
  const tmp = mkdtempSync(path.join(tmpdir(), 'opm-user-bench-'));
  const timeFile = path.join(tmp, 'time');
  const timesFile = path.join(tmp, 'times');
  const timed = bash5 ? ['bash', '-c', TIMED, 'bash', timesFile, ...cmd] : cmd;
  try {
    const full = gnuTime ? [GNU_TIME, '-o', timeFile, '-f', '%U %S %M', ...timed] : timed;
    const t0 = process.hrtime.bigint();
    const r = spawnSync(full[0] ?? '', full.slice(1), {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
      maxBuffer: 1 << 24,
    });
    let ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const code = r.status ?? 1;
    if (code !== 0)
      process.stderr.write(`  exit ${code}: ${argv.join(' ')}\n${r.stderr.toString().slice(0, 500)}\n`);
    let cpuMs: number | undefined;
    if (bash5 && existsSync(timesFile)) {
      // "<t0> <t1>", bash's own times, then its children's: the command's.
      const [wall, , children] = readFileSync(timesFile, 'utf8').trim().split('\n');
      const [a, b] = (wall ?? '').split(' ').map((x) => Number(x.replace(',', '.')));
      if (a !== undefined && b !== undefined && Number.isFinite(b - a)) ms = (b - a) * 1000;
      const [user, sys] = (children ?? '').split(' ').map(timesSeconds);
      if (user !== undefined && sys !== undefined && Number.isFinite(user + sys)) cpuMs = (user + sys) * 1000;
    }
    if (!gnuTime) return { ms, cpuMs, mb: undefined, code };
    // GNU time writes "Command exited with non-zero status N" first when the command fails.
    const [user, sys, kb] = (readFileSync(timeFile, 'utf8').trim().split('\n').pop() ?? '')
      .split(' ')
      .map(Number);
    return { ms, cpuMs: cpuMs ?? ((user ?? 0) + (sys ?? 0)) * 1000, mb: (kb ?? 0) / 1024, code };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** A cell from pairs of samples (opm-ts, reference). */
export function cellOf(pairs: readonly [Sample, Sample][]): Cell {
  const paired = pairedRatios(
    pairs.map(([o]) => o.ms),
    pairs.map(([, r]) => r.ms),
  );
  const mbs = (xs: (number | undefined)[]): number | undefined => {
    const ok = xs.filter((x): x is number => x !== undefined);
    return ok.length === 0 ? undefined : median(ok);
  };
  const cpus = pairs.flatMap(([o, r]) => (o.cpuMs !== undefined && r.cpuMs ? [o.cpuMs / r.cpuMs] : []));
  const bad = pairs.find(([o, r]) => o.code !== 0 || r.code !== 0);
  return {
    median: paired.ratio,
    min: paired.min,
    max: paired.max,
    pairs: pairs.length,
    cpu: cpus.length === 0 ? undefined : median(cpus),
    bestOf: Math.min(...pairs.map(([o]) => o.ms)) / Math.min(...pairs.map(([, r]) => r.ms)),
    oursMs: median(pairs.map(([o]) => o.ms)),
    refMs: median(pairs.map(([, r]) => r.ms)),
    oursMB: mbs(pairs.map(([o]) => o.mb)),
    refMB: mbs(pairs.map(([, r]) => r.mb)),
    failed: bad === undefined ? undefined : `exit ${bad[0].code}/${bad[1].code}`,
  };
}

function dirBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    n += e.isDirectory() ? dirBytes(p) : statSync(p).size;
  }
  return n;
}

/** A generated catalog under `outDir`, made once per generator version (a marker beside it). */
export function shapeCatalog(outDir: string, shape: Shape): string {
  const dir = path.join(outDir, `shape-${shape}`);
  const marker = `${dir}.complete`;
  const stamp = JSON.stringify({ version: GENERATOR_VERSION });
  if (!existsSync(marker) || !readFileSync(marker, 'utf8').startsWith(stamp)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const info = generateShape(dir, shape);
    writeFileSync(marker, stamp + '\n' + JSON.stringify(info) + '\n');
    process.stderr.write(
      `generated ${shape} shape: ${info.packages} packages, ${info.bundles} bundles, ${(info.bytes / 1e6).toFixed(1)} MB in ${dir}\n`,
    );
  }
  return dir;
}

/** Bumped when the conversion to JSON files changes. */
const JSON_VERSION = 1;

/**
 * `src` (one folder per package) as JSON files under `outDir`/`name`: each package folder rendered
 * by this build's `opm render <folder> -o json` into `<package>/catalog.json`, as opm writes a
 * catalog; made once per source and conversion (a marker beside it).
 */
export function jsonCatalog(opm: string[], src: string, outDir: string, name: string): string {
  const dir = path.join(outDir, name);
  const marker = `${dir}.complete`;
  const stamp = JSON.stringify({ version: JSON_VERSION, src, bytes: dirBytes(src) });
  if (existsSync(marker) && readFileSync(marker, 'utf8').startsWith(stamp)) return dir;
  rmSync(dir, { recursive: true, force: true });
  for (const pkg of readdirSync(src, { withFileTypes: true })) {
    if (!pkg.isDirectory()) continue;
    const r = spawnSync(opm[0] ?? '', [...opm.slice(1), 'render', path.join(src, pkg.name), '-o', 'json'], {
      maxBuffer: 1 << 30,
    });
    if (r.status !== 0) throw new Error(`render ${pkg.name} -o json: ${r.stderr.toString().slice(0, 500)}`);
    mkdirSync(path.join(dir, pkg.name), { recursive: true });
    writeFileSync(path.join(dir, pkg.name, 'catalog.json'), r.stdout);
  }
  writeFileSync(marker, stamp + '\n');
  process.stderr.write(`converted ${src} to JSON files in ${dir}\n`);
  return dir;
}

/** Bundle directories of the corpus (`community-bundles/<package>/<version>`), by package. */
function bundleDirs(corpus: string): string[][] {
  const root = path.join(corpus, 'community-bundles');
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .sort()
    .map((pkg) =>
      readdirSync(path.join(root, pkg))
        .sort()
        .map((v) => path.join(root, pkg, v))
        .filter((d) => existsSync(path.join(d, 'manifests'))),
    )
    .filter((ds) => ds.length > 0);
}

const MB = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;

export function userBench(opts: {
  root: string;
  reference: string;
  corpus: string | undefined;
  outDir: string;
}): UserBench {
  const started = Date.now();
  const quick = process.env.BENCH_QUICK === '1';
  const runs = Number(process.env.BENCH_RUNS ?? (quick ? 3 : 5));
  const only = (process.env.BENCH_ONLY ?? '').split(',').filter((w) => w !== '');
  const coreSettings =
    process.env.BENCH_CORES === '1' ? [true] : process.env.BENCH_CORES === 'all' ? [false] : [true, false];
  const gnuTime = haveGnuTime();
  const bash5 = haveBash5();
  if (!bash5) process.stderr.write('*** bash 5 not found: CPU time in hundredths of a second ***\n');
  if (!gnuTime)
    process.stderr.write('*** /usr/bin/time not found (apt-get install time): no peak memory ***\n');
  const opm = [path.join(opts.root, 'bin', 'opm.js')];
  // This Node.js first in PATH, as npm's link finds it; no thread or GOMAXPROCS setting left over
  // from the caller's shell: users run with the defaults.
  const base: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: [path.dirname(process.execPath), process.env.PATH ?? ''].join(path.delimiter),
  };
  delete base.OPM_THREADS;
  delete base.GOMAXPROCS;
  const envFor = (oneCore: boolean): NodeJS.ProcessEnv => (oneCore ? { ...base, GOMAXPROCS: '1' } : base);

  // Case aside (\`json\` selects the catalogs of JSON files).
  const wanted = (label: string): boolean =>
    only.length === 0 || only.some((w) => label.toLowerCase().includes(w.toLowerCase()));
  const catalogs: { label: string; dir: string }[] = [];
  // The JSON forms are made from the YAML ones by this build's render, so they come second.
  const sources: { name: string; corpus: boolean; dir: () => string }[] = [];
  if (opts.corpus !== undefined) {
    const corpus = opts.corpus;
    sources.push({
      name: 'community-catalog-v4.21',
      corpus: true,
      dir: () => path.join(corpus, 'community-catalog-v4.21'),
    });
  }
  for (const shape of ['certified', 'community'] as const)
    sources.push({
      name: `generated ${shape} shape`,
      corpus: false,
      dir: () => shapeCatalog(opts.outDir, shape),
    });
  for (const s of sources) {
    // Labels up to the size, by which BENCH_ONLY chooses before anything is generated.
    const yamlLabel = `${s.name} (${s.corpus ? 'corpus, ' : ''}`;
    const jsonLabel = `${s.name} as JSON files (${s.corpus ? 'corpus, ' : ''}`;
    if (!wanted(yamlLabel) && !wanted(jsonLabel)) continue;
    const dir = s.dir();
    if (wanted(yamlLabel)) catalogs.push({ label: `${yamlLabel}${MB(dirBytes(dir))})`, dir });
    if (wanted(jsonLabel)) {
      const jdir = jsonCatalog(
        opm,
        dir,
        opts.outDir,
        `${s.corpus ? 'corpus-' : ''}${s.name.replaceAll(' ', '-')}-json`,
      );
      catalogs.push({ label: `${jsonLabel}${MB(dirBytes(jdir))})`, dir: jdir });
    }
  }
  const selected = catalogs.filter((c) => wanted(c.label));

  const pairOf = (args: string[], oneCore: boolean, i: number): [Sample, Sample] => {
    const env = envFor(oneCore);
    const runRef = (): Sample => runProcess([opts.reference, ...args], oneCore, env, gnuTime, bash5);
    const runOurs = (): Sample => runProcess([...opm, ...args], oneCore, env, gnuTime, bash5);
    if (i % 2 === 0) {
      const r = runRef();
      return [runOurs(), r];
    }
    const o = runOurs();
    return [o, runRef()];
  };

  const rows: UserRow[] = [];
  for (const c of selected) {
    // One run of each, not counted: the files are in the page cache from here on, for both.
    pairOf(['validate', c.dir], false, 0);
    for (const oneCore of coreSettings) {
      const cell = (args: string[]): Cell =>
        cellOf(Array.from({ length: runs }, (_, i) => pairOf(args, oneCore, i)));
      process.stderr.write(`  ${c.label}, ${oneCore ? '1 core' : 'all cores'} ...\n`);
      rows.push({
        catalog: c.label,
        cores: oneCore ? '1' : String(availableParallelism()),
        validate: cell(['validate', c.dir]),
        json: cell(['render', c.dir, '-o', 'json']),
        yaml: cell(['render', c.dir, '-o', 'yaml']),
      });
    }
  }

  // The gains need both core settings, and a machine with more than one core.
  const gains: GainRow[] = [];
  if (coreSettings.length === 2 && availableParallelism() > 1) {
    const commands: [string, 'validate' | 'json' | 'yaml', (dir: string) => string[]][] = [
      ['validate', 'validate', (d) => ['validate', d]],
      ['render -o json', 'json', (d) => ['render', d, '-o', 'json']],
      ['render -o yaml', 'yaml', (d) => ['render', d, '-o', 'yaml']],
    ];
    // The fixed part: the same command on a catalog of one small package, shipped with the project.
    const small = path.join(opts.root, 'testdata', 'examples', 'catalog');
    for (const c of selected) {
      const one = rows.find((r) => r.catalog === c.label && r.cores === '1');
      const all = rows.find((r) => r.catalog === c.label && r.cores !== '1');
      if (one === undefined || all === undefined) continue;
      process.stderr.write(`  ${c.label}: fixed part and two copies at once ...\n`);
      for (const [command, key, args] of commands) {
        const [cellOne, cellAll] = [one[key], all[key]];
        if (cellOne === undefined || cellAll === undefined || cellOne.failed || cellAll.failed) continue;
        const fixed = Array.from(
          { length: runs },
          () => runProcess([...opm, ...args(small)], true, envFor(true), false, bash5).ms,
        );
        const inputs: GainInputs = {
          oursOne: cellOne.oursMs,
          oursAll: cellAll.oursMs,
          refOne: cellOne.refMs,
          refAll: cellAll.refMs,
          fixedMs: median(fixed),
          // One copy per core, one loading thread each, as the figures at one core have.
          twoCopies: workloadSpeedup([...opm, ...args(c.dir)], runs, base).pairedSpeedup,
        };
        gains.push({ catalog: c.label, command, inputs, gain: gainOf(inputs) });
      }
    }
  }

  if (opts.corpus !== undefined && (only.length === 0 || only.some((w) => 'bundle'.includes(w)))) {
    // Every bundle directory once per setting (one pair each, the ratio's range is across
    // directories); quick: the newest version of each package.
    const byPackage = bundleDirs(opts.corpus);
    const dirs = quick ? byPackage.map((ds) => ds[ds.length - 1] ?? '') : byPackage.flat();
    if (dirs.length > 0) {
      pairOf(['render', dirs[0] ?? '', '-o', 'json'], false, 0);
      for (const oneCore of coreSettings) {
        process.stderr.write(
          `  ${dirs.length} bundle directories, ${oneCore ? '1 core' : 'all cores'} ...\n`,
        );
        rows.push({
          catalog: `bundle directories (corpus, ${dirs.length} of ${byPackage.flat().length})`,
          cores: oneCore ? '1' : String(availableParallelism()),
          validate: undefined,
          json: cellOf(dirs.map((d, i) => pairOf(['render', d, '-o', 'json'], oneCore, i))),
          yaml: undefined,
        });
      }
    }
  }

  if (only.length === 0 || only.some((w) => 'version'.includes(w))) {
    // A command of a few tens of milliseconds: three times the pairs, as cheap as one catalog pair.
    pairOf(['version'], false, 0);
    for (const oneCore of coreSettings) {
      process.stderr.write(`  opm version, ${oneCore ? '1 core' : 'all cores'} ...\n`);
      rows.push({
        catalog: '`opm version` (no catalog)',
        cores: oneCore ? '1' : String(availableParallelism()),
        validate: undefined,
        json: undefined,
        yaml: undefined,
        version: cellOf(Array.from({ length: runs * 3 }, (_, i) => pairOf(['version'], oneCore, i))),
      });
    }
  }

  const version = spawnSync(opts.reference, ['version'], { encoding: 'utf8' }).stdout.trim();
  const goVersion = spawnSync('go', ['version', '-m', opts.reference], { encoding: 'utf8' });
  return {
    rows,
    gains,
    environment: {
      ...machine(),
      reference: opts.reference,
      'reference built with':
        goVersion.status === 0 ? ((goVersion.stdout.split('\n')[0] ?? '').split(': ')[1] ?? '') : 'unknown',
      'reference version': version,
      NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? '(unset)',
      'pairs per figure': quick ? `${runs} (quick)` : String(runs),
      'load average at the end': loadavg()
        .map((x) => x.toFixed(2))
        .join(' '),
    },
    seconds: Math.round((Date.now() - started) / 1000),
  };
}

const fmtCell = (c: Cell | undefined): string =>
  c === undefined
    ? '-'
    : c.failed !== undefined
      ? `FAILED ${c.failed}`
      : `${c.median.toFixed(2)} (${c.min.toFixed(2)}–${c.max.toFixed(2)}), CPU ${c.cpu?.toFixed(2) ?? '-'}`;

const fmtMB = (c: Cell | undefined): string | undefined =>
  c === undefined || c.oursMB === undefined || c.refMB === undefined
    ? undefined
    : `${Math.round(c.oursMB)}/${Math.round(c.refMB)}`;

export function printUserBench(b: UserBench, loadAtStart: string): void {
  console.log(
    '\nopm-ts / reference opm as users measure them: medians of paired ratios of wall time (min–max), then of CPU time',
  );
  for (const [k, v] of Object.entries({ ...b.environment, 'load average at the start': loadAtStart }))
    console.log(`  ${k}: ${v}`);
  const head = [
    'catalog',
    'cores',
    'validate',
    'render -o json',
    'render -o yaml',
    'version',
    'peak MiB opm-ts/ref (validate, json, yaml, version)',
  ];
  const lines = b.rows.map((r) => [
    r.catalog,
    r.cores,
    fmtCell(r.validate),
    fmtCell(r.json),
    fmtCell(r.yaml),
    fmtCell(r.version),
    [fmtMB(r.validate), fmtMB(r.json), fmtMB(r.yaml), fmtMB(r.version)].map((x) => x ?? '-').join(', '),
  ]);
  console.log(`| ${head.join(' | ')} |\n|${head.map(() => '---').join('|')}|`);
  for (const l of lines) console.log(`| ${l.join(' | ')} |`);
  const other = (title: string, f: (c: Cell) => number | undefined): void => {
    console.log(`\n${title} (validate / render -o json / render -o yaml / version):`);
    for (const r of b.rows)
      console.log(
        `  ${r.catalog}, ${r.cores} core(s): ${[r.validate, r.json, r.yaml, r.version].map((c) => (c === undefined ? '-' : (f(c)?.toFixed(2) ?? '-'))).join(' / ')}`,
      );
  };
  other('medians of paired CPU-time ratios (user + system)', (c) => c.cpu);
  other('best of runs from the same samples (what the bench reported before)', (c) => c.bestOf);
  printGains(b.gains);
  console.log(`\n(${b.seconds} s)`);
}

function printGains(gains: readonly GainRow[]): void {
  if (gains.length === 0) return;
  console.log(
    '\nthe gain from one core to all (wall time, medians), and the speed-up of the work (time at one core less the' +
      '\nfixed part, the same command on testdata/examples/catalog) that matching the reference takes, against two' +
      '\ncopies started at once (one thread each, two times one alone over both; the most any threading gets):',
  );
  const head = [
    'catalog',
    'command',
    'opm-ts',
    'reference',
    'fixed part ms',
    'work speed-up needed',
    'two copies',
    '',
  ];
  console.log(`| ${head.join(' | ')} |\n|${head.map(() => '---').join('|')}|`);
  for (const g of gains)
    console.log(
      `| ${[
        g.catalog,
        g.command,
        g.gain.ours.toFixed(2),
        g.gain.reference.toFixed(2),
        Math.round(g.inputs.fixedMs),
        Number.isFinite(g.gain.workSpeedupNeeded) ? g.gain.workSpeedupNeeded.toFixed(2) : 'more than any',
        g.gain.twoCopies.toFixed(2),
        g.gain.verdict,
      ].join(' | ')} |`,
    );
}
