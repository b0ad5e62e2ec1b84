// `npm run bench:serve-ready`: how soon `opm serve` answers a catalog pod's probe, and what building
// its cache costs, beside the reference opm, in alternated pairs (opm-ts, the reference, opm-ts, …)
// so that both see the same load on a shared machine; each figure is the median of the per-pair
// ratios with their range, and the load average is printed with them.
// - ready, no cache: from spawn until grpc_health_probe answers SERVING (test/serve/harness.ts polls
//   the port, then probes), the server building its index at start-up;
// - ready, prebuilt cache: the same on a cache each opm built beforehand with --cache-only, integrity
//   enforced (the catalog image's CMD: the whole catalog is parsed and every cached byte hashed
//   before the port opens);
// - the first ListBundles from the prebuilt cache: the whole stream, read by operator-registry's Go
//   client (opm-serve-client) as soon as the probe answers, which is what OLM asks first;
// - --cache-only: the image build step, its wall time and peak resident memory (GNU time's %M);
// - the CPU time of each (every thread, from /proc at the moment the probe answers; GNU time for
//   --cache-only), steadier than wall time on a loaded machine; and the server's CPU time for that
//   first ListBundles (from /proc before and after it: ticks of 10 ms).
// Catalogs: a small one (three packages of the corpus community catalog, 192 KB: most catalogs served
// in development are small) and the whole corpus catalog; BENCH_SERVE_CATALOG names another instead.
// BENCH_SERVE_RUNS sets the pairs (default 5). The figures with a target print `ok` or `MISSED`.
// Results also go to bench/out/serve-ready-results.json.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpusDir, projectRoot } from '../test/corpus.js';
import {
  missingTools,
  oursKind,
  referenceKind,
  startServer,
  tools,
  type ServerKind,
} from '../test/serve/harness.js';
import { machine, machineLine } from './machine.js';
import { referenceBinary } from './reference.js';
import { median, pairedRatios } from './stats.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = projectRoot();
const RUNS = Number(process.env.BENCH_SERVE_RUNS ?? 5);
const GNU_TIME = '/usr/bin/time';

/** `--cache-only` into a fresh `cacheDir`: wall milliseconds and peak RSS in MiB (NaN without GNU time). */
async function build(
  kind: ServerKind,
  catalog: string,
  cacheDir: string,
): Promise<{ ms: number; peakMiB: number; cpuMs: number }> {
  rmSync(cacheDir, { recursive: true, force: true });
  const scratch = mkdtempSync(path.join(tmpdir(), 'opm-serve-ready-'));
  const argv = kind.cacheOnly(catalog, cacheDir, scratch);
  const withTime = existsSync(GNU_TIME);
  const [cmd, ...args] = withTime ? [GNU_TIME, '-f', 'peak-kib=%M cpu-s=%U+%S', ...argv] : argv;
  const started = performance.now();
  try {
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(cmd ?? '', args, { stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (d: string) => (err += d));
      child.on('error', reject);
      child.on('close', (c) => resolve({ code: c, stderr: err }));
    });
    const ms = performance.now() - started;
    if (code !== 0) throw new Error(`${kind.name} --cache-only failed: ${stderr}`);
    const kib = /peak-kib=(\d+)/.exec(stderr)?.[1];
    const cpu = /cpu-s=([0-9.]+)\+([0-9.]+)/.exec(stderr);
    return {
      ms,
      peakMiB: kib === undefined ? NaN : Number(kib) / 1024,
      cpuMs: cpu === null ? NaN : (Number(cpu[1]) + Number(cpu[2])) * 1000,
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** CPU time (user and system, every thread) a process has used, in ms, from /proc (ticks of 10 ms). */
function cpuMs(pid: number): number {
  // The fields after the command name, which is in parentheses and may hold spaces.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

/** The milliseconds of one ListBundles, the whole stream, by operator-registry's Go client. */
function firstListBundles(address: string): number {
  const r = spawnSync(tools.client, ['listbundles', '-addr', address, '-n', '1'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ListBundles on ${address} failed: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { ms: number[] }).ms[0] ?? NaN;
}

async function ready(
  kind: ServerKind,
  catalog: string,
  cacheDir?: string,
): Promise<{ ms: number; rssMiB: number; cpuMs: number; listMs: number; listCpuMs: number }> {
  const s = await startServer(kind, catalog, cacheDir === undefined ? {} : { cacheDir });
  let rssMiB = NaN;
  let cpu = NaN;
  let listMs = NaN;
  let listCpuMs = NaN;
  try {
    cpu = cpuMs(s.pid);
    const status = readFileSync(`/proc/${s.pid}/status`, 'utf8');
    rssMiB = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN) / 1024;
    if (cacheDir !== undefined) {
      const before = cpuMs(s.pid);
      listMs = firstListBundles(s.address);
      listCpuMs = cpuMs(s.pid) - before;
    }
  } finally {
    const exit = await s.stop();
    if (exit.code !== 0)
      process.stderr.write(`*** ${kind.name} exited ${String(exit.code ?? exit.signal)} on SIGTERM ***\n`);
  }
  return { ms: s.readyMs, rssMiB, cpuMs: cpu, listMs, listCpuMs };
}

interface Row {
  label: string;
  /** The target for opm-ts / reference (at most), when the figure has one. */
  target?: number;
  ours: number[];
  reference: number[];
}

const missing = missingTools();
if (missing.length > 0) throw new Error(`bench:serve-ready needs ${missing.join(', ')}`);
const referencePath = referenceBinary(root);
if (referencePath === undefined)
  throw new Error(
    'bench:serve-ready needs the reference opm (OPM_REFERENCE or scripts/build-reference-opm.sh)',
  );
const work = mkdtempSync(path.join(tmpdir(), 'opm-serve-ready-caches-'));

/**
 * Three packages of the corpus catalog (192 KB), copied to a temporary folder (removed at the end):
 * the reference opm does not follow a link to a directory.
 */
function smallCatalog(corpusCatalog: string): string {
  const dir = path.join(work, 'small-catalog');
  mkdirSync(dir);
  for (const pkg of ['cat-facts-operator', 'kairos-operator', 'kube-green'])
    cpSync(path.join(corpusCatalog, pkg), path.join(dir, pkg), { recursive: true });
  return dir;
}

const corpusCatalog = corpusDir === undefined ? undefined : path.join(corpusDir, 'community-catalog-v4.21');
const catalogs: { label: string; dir: string }[] =
  process.env.BENCH_SERVE_CATALOG !== undefined
    ? [{ label: path.basename(process.env.BENCH_SERVE_CATALOG), dir: process.env.BENCH_SERVE_CATALOG }]
    : corpusCatalog === undefined
      ? []
      : [
          {
            label: 'small: 3 packages of community-catalog-v4.21 (192 KB)',
            dir: smallCatalog(corpusCatalog),
          },
          { label: 'community-catalog-v4.21', dir: corpusCatalog },
        ];
if (catalogs.length === 0) throw new Error('bench:serve-ready: no corpus; set BENCH_SERVE_CATALOG');

const kinds = { ours: oursKind(), reference: referenceKind(referencePath) };
const results: unknown[] = [];
try {
  for (const { label, dir: catalog } of catalogs) {
    const rows: Row[] = [
      { label: 'ready, no cache (ms)', target: 1 },
      { label: 'ready, prebuilt cache (ms)', target: 1 },
      { label: 'first ListBundles, prebuilt cache (ms)', target: 1 },
      { label: 'server CPU of that ListBundles (ms)', target: 1 },
      { label: 'CPU until ready, no cache (ms)' },
      { label: 'CPU until ready, prebuilt cache (ms)' },
      { label: 'RSS when ready, no cache (MiB)' },
      { label: 'RSS when ready, prebuilt cache (MiB)' },
      { label: '--cache-only (ms)' },
      { label: '--cache-only CPU (ms)' },
      { label: '--cache-only peak RSS (MiB)' },
    ].map((r) => ({ ...r, ours: [], reference: [] }));
    const loadBefore = loadavg()[0] ?? NaN;
    process.stderr.write(`serve start-up on ${catalog}, ${RUNS} alternated pairs ...\n`);
    for (let i = 0; i < RUNS; i++) {
      // Which side starts a pair alternates, so that neither always meets the other's aftermath.
      const order: ('ours' | 'reference')[] = i % 2 === 0 ? ['ours', 'reference'] : ['reference', 'ours'];
      for (const side of order) {
        const kind = kinds[side];
        const cache = path.join(work, side);
        const cold = await ready(kind, catalog);
        const built = await build(kind, catalog, cache);
        const warm = await ready(kind, catalog, cache);
        const figures = [
          cold.ms,
          warm.ms,
          warm.listMs,
          warm.listCpuMs,
          cold.cpuMs,
          warm.cpuMs,
          cold.rssMiB,
          warm.rssMiB,
          built.ms,
          built.cpuMs,
          built.peakMiB,
        ];
        figures.forEach((v, k) => rows[k]?.[side].push(v));
      }
      process.stderr.write(`  pair ${i + 1}/${RUNS} done\n`);
    }
    const loadAfter = loadavg()[0] ?? NaN;
    console.log(
      `\nopm serve start-up: ${label}, ${RUNS} alternated pairs, load average ${loadBefore.toFixed(1)} -> ${loadAfter.toFixed(1)}\n${machineLine()}`,
    );
    console.log(
      `${'figure'.padEnd(40)} ${'reference'.padStart(10)} ${'opm-ts'.padStart(10)}  ratio (median of pairs) [range]  target`,
    );
    const figures = rows.map((r) => {
      const out = {
        figure: r.label,
        reference: median(r.reference, NaN),
        ours: median(r.ours, NaN),
        ...pairedRatios(r.ours, r.reference, NaN),
        target: r.target,
      };
      const verdict =
        r.target === undefined ? '' : `<= ${r.target}x ${out.ratio <= r.target ? 'ok' : 'MISSED'}`;
      console.log(
        `${r.label.padEnd(40)} ${String(Math.round(out.reference)).padStart(10)} ${String(Math.round(out.ours)).padStart(10)}  ${out.ratio.toFixed(2).padStart(5)} [${out.min.toFixed(2)}-${out.max.toFixed(2)}]  ${verdict}`,
      );
      return out;
    });
    results.push({ catalog: label, dir: catalog, runs: RUNS, loadBefore, loadAfter, results: figures });
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
// Run as bench/out/serve-ready.mjs: the results go beside it.
mkdirSync(here, { recursive: true });
writeFileSync(
  path.join(here, 'serve-ready-results.json'),
  JSON.stringify({ machine: machine(), catalogs: results }, null, 2) + '\n',
);
