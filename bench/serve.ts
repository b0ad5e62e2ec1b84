// `npm run bench:serve`: the catalog server (`opm serve`) side by side with the reference opm, in
// one run, as processes on 127.0.0.1, driven by the real clients (test/serve/harness.ts):
// - ready: from spawn until grpc_health_probe answers SERVING (polled), without a cache (the
//   server builds one) and from a cache built beforehand with --cache-only (integrity enforced);
// - memory (VmRSS, and VmHWM for the peak, of the server's process tree) when ready, 3 s later (what
//   a catalog pod idles at; `BENCH_SERVE_PACKAGES=80` makes the 261 MB catalog of its figure in
//   docs/performance.md) and after 10 ListBundles;
// - ListBundles: the median of 10 whole-stream reads over one connection (opm-serve-client);
// - unary calls per second: GetPackage from 16 goroutines over one connection.
// Runs alternate between the two servers (opm-ts, the reference, the reference, opm-ts, …), each
// run taking every figure of one server (a start without a cache, memory, ListBundles, the unary
// rate after an uncounted warm-up of a tenth as many calls, then a start from a cache that server
// built beforehand with --cache-only), so that both see the same load on a shared machine; each
// figure is the median of the per-pair ratios with their range, beside each side's median
// (bench/stats.ts), and the load average is printed with them, as bench/serve-ready.ts does.
// Catalogs: the corpus community catalog and a generated one (bench/generate-catalog.ts), by default
// the 1 GB catalog of `npm run bench`; BENCH_SERVE_PACKAGES, BENCH_SERVE_BUNDLES (per package) and
// BENCH_SERVE_PAYLOAD (bytes of manifests per bundle) size it, BENCH_SERVE_GENERATED=0 leaves it
// out, BENCH_SERVE_RUNS sets the pairs (3 by default), BENCH_SERVE_UNARY_CALLS the counted unary
// calls per run (20,000). Results also go to bench/out/serve-results.json.
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
import { spawn } from 'node:child_process';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpusDir, projectRoot } from '../test/corpus.js';
import {
  buildCache,
  memoryOf,
  missingTools,
  oursKind,
  oursServes,
  referenceKind,
  startServer,
  tools,
  type ServerKind,
} from '../test/serve/harness.js';
import { generateCatalog } from './generate-catalog.js';
import { referenceBinary } from './reference.js';
import { median, pairedRatios } from './stats.js';
import { machine, machineLine } from './machine.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = projectRoot();
const RUNS = Number(process.env.BENCH_SERVE_RUNS ?? 3);
const CONCURRENCY = 16;
const UNARY_CALLS = Number(process.env.BENCH_SERVE_UNARY_CALLS ?? 20_000);
const UNARY_WARM_UP = Math.ceil(UNARY_CALLS / 10);
const LIST_RUNS = 10;

const size = {
  packages: Number(process.env.BENCH_SERVE_PACKAGES ?? 300),
  bundlesPerPackage: Number(process.env.BENCH_SERVE_BUNDLES ?? 10),
  payloadBytes: Number(process.env.BENCH_SERVE_PAYLOAD ?? 330_000),
};

/** The generated catalog under bench/out, made once per size (a marker beside it, not in it). */
function generated(): { label: string; dir: string } {
  // At the default size it is the very catalog `npm run bench` generates (bench/run.ts), shared.
  const isDefault = size.packages === 300 && size.bundlesPerPackage === 10 && size.payloadBytes === 330_000;
  const name = isDefault
    ? 'generated-3000'
    : `generated-serve-${size.packages}x${size.bundlesPerPackage}x${size.payloadBytes}`;
  const dir = path.join(here, name);
  const marker = `${dir}.complete`;
  let info: { bundles: number; bytes: number };
  if (existsSync(marker)) {
    info = JSON.parse(readFileSync(marker, 'utf8')) as { bundles: number; bytes: number };
  } else {
    process.stderr.write(`generating ${size.packages * size.bundlesPerPackage} bundles in ${dir} ...\n`);
    mkdirSync(dir, { recursive: true });
    info = generateCatalog(dir, size);
    writeFileSync(marker, JSON.stringify(info));
  }
  return { label: `generated (${info.bundles} bundles, ${(info.bytes / 1e6).toFixed(0)} MB)`, dir };
}

function run(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(Buffer.concat(out).toString('utf8'))
        : reject(
            new Error(
              `${path.basename(cmd)} ${args[0] ?? ''} failed: ${Buffer.concat(err).toString('utf8')}`,
            ),
          ),
    );
  });
}

/** How long after ready the idle server's memory is taken again. */
const SETTLE_MS = 3000;

interface Figures {
  readyNoCacheMs: number;
  readyCachedMs: number;
  rssReadyMiB: number;
  rssSettledMiB: number;
  rssAfterListMiB: number;
  peakMiB: number;
  listBundlesMs: number;
  listBundlesMessages: number;
  unaryPerSecond: number;
}

/** A package of the catalog for GetPackage (the first in name order). */
function somePackage(dir: string): string {
  for (const n of readdirSync(dir).sort()) {
    if (statSync(path.join(dir, n)).isDirectory()) return n;
  }
  throw new Error(`no package directory in ${dir}`);
}

async function stopped(
  server: { stop(): Promise<{ code: number | null; signal: string | null }> },
  name: string,
): Promise<void> {
  const exit = await server.stop();
  if (exit.code !== 0)
    process.stderr.write(`*** ${name} exited ${String(exit.code ?? exit.signal)} on SIGTERM ***\n`);
}

/**
 * One run of one server, every figure: a start without a cache, its memory when ready, 10
 * ListBundles and the memory after them, the unary rate; then a start from `cache` (built
 * beforehand by the same opm with --cache-only).
 */
async function measureOnce(kind: ServerKind, dir: string, cache: string): Promise<Figures> {
  const mib = (kib: number): number => kib / 1024;
  let figures: Omit<Figures, 'readyCachedMs'>;
  const server = await startServer(kind, dir);
  try {
    const ready = memoryOf(server.pid);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const settled = memoryOf(server.pid);
    const list = JSON.parse(
      await run(tools.client, ['listbundles', '-addr', server.address, '-n', String(LIST_RUNS)]),
    ) as {
      ms: number[];
      messages: number;
    };
    const after = memoryOf(server.pid);
    // A warm-up the rate does not count, the same for both servers: a catalog server answers calls
    // for days, and its first thousand calls (Node.js still compiling the call path) would weigh
    // on a rate taken over a few seconds.
    const load = async (calls: number): Promise<{ perSecond: number; errors: number }> =>
      JSON.parse(
        await run(tools.client, [
          'load',
          '-addr',
          server.address,
          '-package',
          somePackage(dir),
          '-c',
          String(CONCURRENCY),
          '-n',
          String(calls),
        ]),
      ) as { perSecond: number; errors: number };
    await load(UNARY_WARM_UP);
    const rate = await load(UNARY_CALLS);
    if (rate.errors > 0) throw new Error(`${kind.name}: ${rate.errors} GetPackage calls failed`);
    figures = {
      readyNoCacheMs: server.readyMs,
      rssReadyMiB: mib(ready.rssKiB),
      rssSettledMiB: mib(settled.rssKiB),
      rssAfterListMiB: mib(after.rssKiB),
      peakMiB: mib(after.hwmKiB),
      listBundlesMs: median(list.ms, NaN),
      listBundlesMessages: list.messages,
      unaryPerSecond: rate.perSecond,
    };
  } finally {
    await stopped(server, kind.name);
  }
  const warm = await startServer(kind, dir, { cacheDir: cache });
  await stopped(warm, kind.name);
  return { ...figures, readyCachedMs: warm.readyMs };
}

interface Metric {
  key: keyof Figures;
  label: string;
  /** The target for opm-ts / reference, and whether higher is better. */
  target?: number;
  higherIsBetter?: boolean;
}

const metrics: Metric[] = [
  { key: 'readyNoCacheMs', label: 'ready, no cache (ms)', target: 0.2 },
  { key: 'readyCachedMs', label: 'ready, prebuilt cache (ms)', target: 0.2 },
  { key: 'rssReadyMiB', label: 'RSS when ready (MiB)', target: 1 },
  { key: 'rssSettledMiB', label: `RSS ${SETTLE_MS / 1000} s after ready (MiB)`, target: 1 },
  { key: 'rssAfterListMiB', label: `RSS after ${LIST_RUNS} ListBundles (MiB)`, target: 1 },
  { key: 'peakMiB', label: 'peak RSS, VmHWM (MiB)', target: 1 },
  { key: 'listBundlesMs', label: `ListBundles, median of ${LIST_RUNS} (ms)`, target: 0.5 },
  { key: 'listBundlesMessages', label: 'ListBundles messages' },
  {
    key: 'unaryPerSecond',
    label: `GetPackage/s, ${CONCURRENCY} concurrent`,
    target: 1,
    higherIsBetter: true,
  },
];

/**
 * opm-ts as its users start it: bin/opm.js run as a program, as in a catalog image's `opm serve`.
 */
function oursAsInstalled(): ServerKind {
  const kind = oursKind();
  const withoutNode = (argv: string[]): string[] => (argv[0] === process.execPath ? argv.slice(1) : argv);
  return {
    name: kind.name,
    argv: (...a) => withoutNode(kind.argv(...a)),
    cacheOnly: (...a) => withoutNode(kind.cacheOnly(...a)),
  };
}

const missing = missingTools();
if (missing.length > 0) throw new Error(`bench:serve needs ${missing.join(', ')}`);
const reference = referenceBinary(root);
if (reference === undefined)
  throw new Error('bench:serve needs the reference opm (OPM_REFERENCE or scripts/build-reference-opm.sh)');
const withOurs = oursServes();
if (!withOurs) process.stderr.write('*** opm-ts has no `serve` yet: only the reference is measured ***\n');

const catalogs: { label: string; dir: string }[] = [];
if (corpusDir !== undefined) {
  catalogs.push({ label: 'community-catalog-v4.21', dir: path.join(corpusDir, 'community-catalog-v4.21') });
} else {
  process.stderr.write('*** corpus not found: the community catalog row is not run ***\n');
}
if (process.env.BENCH_SERVE_GENERATED !== '0') catalogs.push(generated());

interface Row {
  figure: string;
  reference: number;
  ours?: number;
  /** The median of the per-pair ratios ours / reference, and their range. */
  ratio?: number;
  min?: number;
  max?: number;
  target?: string;
}

/** A cache built by `kind` with --cache-only in a fresh directory (removed by the caller). */
async function cacheOf(kind: ServerKind, dir: string): Promise<string> {
  const cache = mkdtempSync(path.join(tmpdir(), 'opm-serve-bench-cache-'));
  const built = await buildCache(kind, dir, cache);
  if (built.code !== 0) throw new Error(`${kind.name} --cache-only failed: ${built.stderr}`);
  return cache;
}

const results: { catalog: string; pairs: number; loadBefore: number; loadAfter: number; rows: Row[] }[] = [];
const sides = withOurs
  ? { ours: oursAsInstalled(), reference: referenceKind(reference) }
  : { reference: referenceKind(reference) };
for (const { label, dir } of catalogs) {
  const loadBefore = loadavg()[0] ?? NaN;
  process.stderr.write(`serving ${label}, ${RUNS} alternated pairs ...\n`);
  const caches: Partial<Record<keyof typeof sides, string>> = {};
  const runs: { ours?: Figures; reference: Figures }[] = [];
  try {
    for (const side of Object.keys(sides) as (keyof typeof sides)[]) {
      const kind = sides[side];
      if (kind !== undefined) caches[side] = await cacheOf(kind, dir);
    }
    for (let i = 0; i < RUNS; i++) {
      // ours, reference, reference, ours, …: each side goes first as often as the other, and both
      // see the same load on a shared machine.
      const order = (i % 2 === 0 ? ['ours', 'reference'] : ['reference', 'ours']) as (keyof typeof sides)[];
      const pair: { ours?: Figures; reference?: Figures } = {};
      for (const side of order) {
        const kind = sides[side];
        const cache = caches[side];
        if (kind === undefined || cache === undefined) continue;
        pair[side] = await measureOnce(kind, dir, cache);
      }
      if (pair.reference === undefined) throw new Error('the reference was not measured');
      runs.push({ ...(pair.ours === undefined ? {} : { ours: pair.ours }), reference: pair.reference });
      process.stderr.write(`  pair ${i + 1}/${RUNS} done\n`);
    }
  } finally {
    for (const cache of Object.values(caches)) rmSync(cache, { recursive: true, force: true });
  }
  const loadAfter = loadavg()[0] ?? NaN;
  const rows = metrics.map((m): Row => {
    const refs = runs.map((r) => r.reference[m.key]);
    const row: Row = {
      figure: m.label,
      reference: median(refs, NaN),
      ...(m.target === undefined ? {} : { target: `${m.higherIsBetter ? '>=' : '<='} ${m.target}x` }),
    };
    if (!withOurs) return row;
    const ours = runs.map((r) => r.ours?.[m.key] ?? NaN);
    return { ...row, ours: median(ours, NaN), ...pairedRatios(ours, refs, NaN) };
  });
  results.push({ catalog: label, pairs: RUNS, loadBefore, loadAfter, rows });
  console.log(
    `\nopm serve: ${label}, ${RUNS} alternated pairs, load average ${loadBefore.toFixed(1)} -> ${loadAfter.toFixed(1)}\n${machineLine()}`,
  );
  console.log(
    `${'figure'.padEnd(40)} ${'reference'.padStart(10)} ${'opm-ts'.padStart(10)}   ratio (median of pairs) [range]  target`,
  );
  metrics.forEach((m, k) => {
    const row = rows[k];
    if (row === undefined) return;
    const verdict =
      row.ratio === undefined || m.target === undefined
        ? ''
        : (m.higherIsBetter ? row.ratio >= m.target : row.ratio <= m.target)
          ? ' ok'
          : ' MISSED';
    const range =
      row.ratio === undefined || row.min === undefined || row.max === undefined
        ? '-'
        : `${row.ratio.toFixed(2)} [${row.min.toFixed(2)}-${row.max.toFixed(2)}]`;
    console.log(
      `${m.label.padEnd(40)} ${String(Math.round(row.reference)).padStart(10)} ${(row.ours === undefined ? '-' : String(Math.round(row.ours))).padStart(10)}` +
        `   ${range.padStart(22)}  ${row.target ?? ''}${verdict}`,
    );
  });
}
mkdirSync(here, { recursive: true });
writeFileSync(
  path.join(here, 'serve-results.json'),
  JSON.stringify({ machine: machine(), results }, null, 2) + '\n',
);
