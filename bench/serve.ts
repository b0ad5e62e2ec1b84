// `npm run bench:serve`: the catalog server (`opm serve`) side by side with the reference opm, in
// one run, as processes on 127.0.0.1, driven by the real clients (test/serve/harness.ts):
// - ready: from spawn until grpc_health_probe answers SERVING (polled), without a cache (the
//   server builds one) and from a cache built beforehand with --cache-only (integrity enforced);
// - memory (VmRSS, and VmHWM for the peak, of the server's process tree) when ready and after 10
//   ListBundles;
// - ListBundles: the median of 10 whole-stream reads over one connection (opm-serve-client);
// - unary calls per second: GetPackage from 16 goroutines over one connection.
// Catalogs: the corpus community catalog and a generated one (bench/generate-catalog.ts), by default
// the 1 GB catalog of `npm run bench`; BENCH_SERVE_PACKAGES, BENCH_SERVE_BUNDLES (per package) and
// BENCH_SERVE_PAYLOAD (bytes of manifests per bundle) size it, BENCH_SERVE_GENERATED=0 leaves it
// out, BENCH_SERVE_RUNS repeats the start-ups (median of 3 by default); the unary rate is taken
// once per server, after an uncounted warm-up of a tenth as many calls. Results also go to bench/out/serve-results.json.
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
import { tmpdir } from 'node:os';
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
import { median } from './stats.js';

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

interface Figures {
  readyNoCacheMs: number;
  readyCachedMs: number;
  rssReadyMiB: number;
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

async function measure(kind: ServerKind, dir: string): Promise<Figures> {
  const mib = (kib: number): number => Math.round(kib / 1024);
  // Start-ups without a cache; the last server stays up for the other figures.
  const noCache: number[] = [];
  let server = await startServer(kind, dir);
  noCache.push(server.readyMs);
  for (let i = 1; i < RUNS; i++) {
    await server.stop();
    server = await startServer(kind, dir);
    noCache.push(server.readyMs);
  }
  let figures: Omit<Figures, 'readyCachedMs'>;
  try {
    const ready = memoryOf(server.pid);
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
    await run(tools.client, [
      'load',
      '-addr',
      server.address,
      '-package',
      somePackage(dir),
      '-c',
      String(CONCURRENCY),
      '-n',
      String(UNARY_WARM_UP),
    ]);
    const load = JSON.parse(
      await run(tools.client, [
        'load',
        '-addr',
        server.address,
        '-package',
        somePackage(dir),
        '-c',
        String(CONCURRENCY),
        '-n',
        String(UNARY_CALLS),
      ]),
    ) as { perSecond: number; errors: number };
    if (load.errors > 0) throw new Error(`${kind.name}: ${load.errors} GetPackage calls failed`);
    figures = {
      readyNoCacheMs: median(noCache, NaN),
      rssReadyMiB: mib(ready.rssKiB),
      rssAfterListMiB: mib(after.rssKiB),
      peakMiB: mib(after.hwmKiB),
      listBundlesMs: median(list.ms, NaN),
      listBundlesMessages: list.messages,
      unaryPerSecond: Math.round(load.perSecond),
    };
  } finally {
    const exit = await server.stop();
    if (exit.code !== 0)
      process.stderr.write(`*** ${kind.name} exited ${String(exit.code ?? exit.signal)} on SIGTERM ***\n`);
  }
  // Start-ups from a cache the image build step would have written.
  const cache = mkdtempSync(path.join(tmpdir(), 'opm-serve-bench-cache-'));
  const cached: number[] = [];
  try {
    const built = await buildCache(kind, dir, cache);
    if (built.code !== 0) throw new Error(`${kind.name} --cache-only failed: ${built.stderr}`);
    for (let i = 0; i < RUNS; i++) {
      const s = await startServer(kind, dir, { cacheDir: cache });
      cached.push(s.readyMs);
      await s.stop();
    }
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
  return { ...figures, readyCachedMs: median(cached, NaN) };
}

interface Metric {
  key: keyof Figures;
  label: string;
  /** The issue's target for opm-ts / reference, and whether higher is better. */
  target?: number;
  higherIsBetter?: boolean;
}

const metrics: Metric[] = [
  { key: 'readyNoCacheMs', label: 'ready, no cache (ms)', target: 0.2 },
  { key: 'readyCachedMs', label: 'ready, prebuilt cache (ms)', target: 0.2 },
  { key: 'rssReadyMiB', label: 'RSS when ready (MiB)', target: 1 },
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
 * opm-ts as its users start it: bin/opm.js run as a program, so that its launcher gives Node.js
 * the V8 flags it sets (a young generation of 4 MiB per semi-space), as in a catalog image's
 * `opm serve`. `node bin/opm.js` would skip them and measure a process nobody runs.
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

const results: { catalog: string; reference: Figures; ours?: Figures }[] = [];
for (const { label, dir } of catalogs) {
  process.stderr.write(`serving ${label} ...\n`);
  const ref = await measure(referenceKind(reference), dir);
  const ours = withOurs ? await measure(oursAsInstalled(), dir) : undefined;
  results.push({ catalog: label, reference: ref, ...(ours === undefined ? {} : { ours }) });
  console.log(`\nopm serve: ${label}`);
  console.log(`${'figure'.padEnd(40)} ${'reference'.padStart(10)} ${'opm-ts'.padStart(10)}   ratio  target`);
  for (const m of metrics) {
    const r = ref[m.key];
    const o = ours?.[m.key];
    const ratio = o === undefined ? undefined : o / r;
    const verdict =
      ratio === undefined || m.target === undefined
        ? ''
        : (m.higherIsBetter ? ratio >= m.target : ratio <= m.target)
          ? ' ok'
          : ' MISSED';
    console.log(
      `${m.label.padEnd(40)} ${String(Math.round(r)).padStart(10)} ${(o === undefined ? '-' : String(Math.round(o))).padStart(10)}` +
        `   ${(ratio === undefined ? '-' : ratio.toFixed(2)).padStart(5)}  ${m.target === undefined ? '' : `${m.higherIsBetter ? '>=' : '<='} ${m.target}x`}${verdict}`,
    );
  }
}
mkdirSync(here, { recursive: true });
writeFileSync(path.join(here, 'serve-results.json'), JSON.stringify(results, null, 2) + '\n');
