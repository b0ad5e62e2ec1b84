// `npm run bench`: each figure is a ratio to a floor measured in the same run on the same data.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCatalog } from './generate-catalog.js';
import { generateChannelCatalog } from './generate-channel-catalog.js';
import { graphBench } from './graph.js';
import { registryBench } from './registry.js';
import type { Row } from './row.js';
import { corpusDir, projectRoot } from '../test/corpus.js';
import { printReferenceRows, referenceBench, referenceBinary, type ReferenceRow } from './reference.js';
import { printUserBench, userBench, type UserBench } from './user.js';
import { serveCacheBench } from './serve-cache.js';
import { composeBench } from './compose.js';
import { imageBench } from './image.js';
import { printServeRows, serveBench, type ServeRow } from './serve-start.js';
import { median } from './stats.js';
import { machineLine } from './machine.js';

const here = path.dirname(fileURLToPath(import.meta.url));
// Bundled to bench/out/ (scripts/build-bench.js), where results and generated data live too.
const child = path.join(here, 'child.mjs');
const outDir = here;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const root = projectRoot();

interface Sample {
  ms: number;
  maxRssMB: number;
  code: number;
}

function runChild(args: string[]): Sample {
  const out = execFileSync(process.execPath, ['--max-old-space-size=8192', child, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const last = out.trim().split('\n').pop() ?? '{}';
  return JSON.parse(last) as Sample;
}

/**
 * RUNS pairs, alternated (which side starts a pair alternates too) so that machine noise hits both
 * alike: the ratio is the median of the pairwise ratios, times and memory are medians (best-of-runs
 * flattered the side with the larger spread, docs/performance.md).
 */
function measure(
  name: string,
  floorArgs: string[],
  opmArgs: string[],
  target: number | undefined,
  oursArgs: string[] = ['opm', ...opmArgs],
): Row {
  const floors: Sample[] = [];
  const opms: Sample[] = [];
  for (let i = 0; i < RUNS; i++) {
    if (i % 2 === 0) floors.push(runChild(floorArgs));
    opms.push(runChild(oursArgs));
    if (i % 2 === 1) floors.push(runChild(floorArgs));
  }
  const opmFailed = opms.some((o) => o.code !== 0);
  const ratio = median(opms.map((o, i) => o.ms / (floors[i]?.ms ?? NaN)));
  return {
    name,
    floorMs: Math.round(median(floors.map((f) => f.ms))),
    opmMs: Math.round(median(opms.map((o) => o.ms))),
    ratio: Math.round(ratio * 100) / 100,
    floorRssMB: Math.round(median(floors.map((f) => f.maxRssMB))),
    opmRssMB: Math.round(median(opms.map((o) => o.maxRssMB))),
    target: opmFailed ? 'FAILED (non-zero exit)' : target === undefined ? '-' : `<= ${target}x`,
    ok: opmFailed ? false : target === undefined ? undefined : ratio <= target,
  };
}

/**
 * A generated catalog under bench/out, made once (a marker beside it, not in it: opm parses every
 * file of a catalog directory).
 */
function generatedCatalog(
  name: string,
  opts: { packages: number; bundlesPerPackage: number; payloadBytes: number },
): string {
  const dir = path.join(outDir, name);
  const marker = `${dir}.complete`;
  if (!existsSync(marker)) {
    process.stderr.write(
      `generating ${opts.packages * opts.bundlesPerPackage} bundles with bundle objects in ${dir} ...\n`,
    );
    mkdirSync(dir, { recursive: true });
    const info = generateCatalog(dir, opts);
    writeFileSync(marker, JSON.stringify(info));
    process.stderr.write(`  ${info.bundles} bundles, ${(info.bytes / 1e9).toFixed(2)} GB\n`);
  }
  return dir;
}

/** The generated 1 GB catalog: 3,000 bundles with payloads. */
const generated = (): string =>
  generatedCatalog('generated-3000', { packages: 300, bundlesPerPackage: 10, payloadBytes: 330_000 });

/** A catalog under the size where render's payloads stay on disk, over its thread threshold. */
const generatedMid = (): string =>
  generatedCatalog('generated-400', { packages: 40, bundlesPerPackage: 10, payloadBytes: 110_000 });

const rows: Row[] = [];
const inputs: [string, string][] = [];
if (corpusDir) inputs.push(['community-catalog-v4.21', path.join(corpusDir, 'community-catalog-v4.21')]);
else process.stderr.write('*** corpus not found: benchmarks on real catalogs are not run ***\n');
inputs.push(['generated-3000 (1 GB, bundle objects)', generated()]);

if (corpusDir) {
  // The YAML reader against its floor: read + js-yaml loadAll of the same files, one thread each.
  const dir = path.join(corpusDir, 'community-catalog-v4.21');
  rows.push(
    measure('YAML load community-catalog-v4.21 (one thread)', ['floor-parse', dir], [], 0.7, [
      'parse-ours',
      dir,
    ]),
  );
}

// The in-thread threshold of parallel loading: each catalog loaded on every thread (workers forced)
// against one thread, in the same run. Ratios below 1 mean the workers pay for themselves.
const threads = String(availableParallelism());
for (const [label, dir] of inputs) {
  rows.push(
    measure(`load on ${threads} threads vs 1: ${label}`, ['load', dir, '1', '0'], [], undefined, [
      'load',
      dir,
      threads,
      '0',
    ]),
  );
}

// Rendering a catalog directory file by file (src/action/render/render-output.ts) against loading it whole
// and then writing it, in one thread.
if (corpusDir) {
  const dir = path.join(corpusDir, 'community-catalog-v4.21');
  for (const format of ['json', 'yaml']) {
    rows.push(
      measure(
        `render -o ${format} file by file vs whole: community-catalog-v4.21`,
        ['render', dir, '1', format, 'whole'],
        [],
        undefined,
        ['render', dir, '1', format],
      ),
    );
  }
}

// What the command line's signal costs (src/util/abort.ts): a look per file, and a turn of the event
// loop every 20 ms, against the same work without a signal, in one thread.
if (corpusDir) {
  const dir = path.join(corpusDir, 'community-catalog-v4.21');
  rows.push(
    measure(
      'load with a signal vs without: community-catalog-v4.21',
      ['load', dir, '1', '0'],
      [],
      undefined,
      ['load', dir, '1', '0', 'signal'],
    ),
    measure(
      'render -o json with a signal vs without: community-catalog-v4.21',
      ['render', dir, '1', 'json', 'byFile'],
      [],
      undefined,
      ['render', dir, '1', 'json', 'byFile', 'signal'],
    ),
  );
}

// The in-thread threshold of rendering on threads (src/action/render/render-output.ts), the same way: a
// real catalog under the threshold, a generated one over it (the 1 GB one streams in one thread).
const renderInputs: [string, string][] = inputs.filter(([, dir]) => dir !== generated());
renderInputs.push(['generated-400 (48 MB)', generatedMid()]);
for (const [label, dir] of renderInputs) {
  for (const format of ['json', 'yaml']) {
    rows.push(
      measure(
        `render -o ${format} on ${threads} threads vs 1: ${label}`,
        ['render', dir, '1', format],
        [],
        undefined,
        ['render', dir, threads, format],
      ),
    );
  }
}

for (const [label, dir] of inputs) {
  rows.push(measure(`validate ${label}`, ['floor-parse', dir], ['validate', dir], 1.5));
  rows.push(measure(`render -o json ${label}`, ['floor-render-json', dir], ['render', dir, '-o', 'json'], 2));
  rows.push(
    measure(`render -o yaml ${label}`, ['floor-render-yaml', dir], ['render', dir, '-o', 'yaml'], undefined),
  );
}

// The curating commands on a real catalog, against loading it once (payloads included). diff loads
// two catalogs (here the same one twice).
if (corpusDir) {
  const dir = path.join(corpusDir, 'community-catalog-v4.21');
  const floor = ['load-catalog', dir];
  const label = 'community-catalog-v4.21';
  rows.push(measure(`filter --heads-only ${label}`, floor, ['filter', dir, '--heads-only'], 3));
  rows.push(measure(`diff ${label} with itself`, floor, ['diff', dir, dir], 4));
  rows.push(measure(`list images ${label}`, floor, ['list', 'images', dir], 2));
}

// The upgrade graph of one channel of 10,000 bundles (src/model/channel-graph.ts): validate (opm's
// chain checks and the upgrade.* rules) and diff (the upgrade impact of removing every other
// bundle), against loading the catalog. Validate and diff do much besides (conversion, schemas,
// the other rules, two loads), so the ceiling is loose; it is there for work that scans every entry
// for every entry, which multiplies the figure many times over at this size.
{
  const channelDir = (name: string, everyOther: boolean): string => {
    const dir = path.join(outDir, name);
    if (!existsSync(`${dir}.complete`)) {
      generateChannelCatalog(dir, 10_000, everyOther);
      writeFileSync(`${dir}.complete`, '');
    }
    return dir;
  };
  const before = channelDir('channel-10000', false);
  const after = channelDir('channel-10000-every-other', true);
  const floor = ['load-catalog', before];
  rows.push(measure('validate one channel of 10,000 bundles', floor, ['validate', before], 15));
  rows.push(
    measure('diff one channel of 10,000 bundles, every other removed', floor, ['diff', before, after], 15),
  );
}

// Side by side with the reference opm, as processes, at one core and at all cores.
const reference = referenceBinary(root);
const referenceRows: ReferenceRow[] = [];
if (reference === undefined) {
  process.stderr.write(
    '*** no reference opm (OPM_REFERENCE or scripts/build-reference-opm.sh): its rows are not run ***\n',
  );
} else {
  const bundles = corpusDir
    ? path.join(corpusDir, 'community-bundles', 'apicurio-registry-3', '3.0.12')
    : undefined;
  referenceRows.push(
    ...referenceBench({
      root,
      reference,
      catalog: corpusDir ? path.join(corpusDir, 'community-catalog-v4.21') : undefined,
      bundleDir: bundles !== undefined && existsSync(bundles) ? bundles : undefined,
      generated: generated(),
      floorJson: [process.execPath, path.join(root, 'bench', 'out', 'floor-json.cjs')],
      runs: Math.max(RUNS, 5),
    }),
  );
  // opm serve's cache: the integrity check every catalog pod runs at start, reading, writing.
  referenceRows.push(
    ...serveCacheBench({
      reference,
      catalog: corpusDir ? path.join(corpusDir, 'community-catalog-v4.21') : undefined,
      script: path.join(here, 'serve-cache.mjs'),
      runs: RUNS,
    }),
  );
  // opm compose against the documentation's script with the reference opm, over a local registry.
  referenceRows.push(
    ...(await composeBench({ root, reference, corpus: corpusDir, runs: Math.max(RUNS, 5) })),
  );
}

// The table users compare with (bench/user.ts): catalogs and bundle directories, paired medians.
let user: UserBench | undefined;
const loadAtStart = loadavg()
  .map((x) => x.toFixed(2))
  .join(' ');
if (reference !== undefined) user = userBench({ root, reference, corpus: corpusDir, outDir });
// opm serve: start-up until it serves, and memory, beside the reference's serve.
const serveRows: ServeRow[] = [];
if (reference !== undefined && corpusDir !== undefined) {
  serveRows.push(
    await serveBench({ root, reference, catalog: path.join(corpusDir, 'community-catalog-v4.21'), runs: 3 }),
  );
}

// Upgrade-graph pictures: the layout library's cost, render-graph -o svg|html, the page in chromium.
rows.push(...graphBench());

// Pulling from a real registry on 127.0.0.1: a cold render against `skopeo copy`, warm renders in ms.
rows.push(...(await registryBench()));

// Building and pushing a catalog image against generate dockerfile + buildah bud + push, and against
// the reference's own cache build; a rebuild's uploads, for both.
rows.push(...(await imageBench({ reference })));

console.log(`\n${machineLine()}`);
console.log(
  '\nbenchmark                                              floor ms   opm ms   ratio  target     floor MB  opm MB',
);
for (const r of rows) {
  console.log(
    `${r.name.padEnd(54)} ${String(r.floorMs).padStart(8)} ${String(r.opmMs).padStart(8)} ${r.ratio.toFixed(2).padStart(7)}  ${r.target.padEnd(10)} ${String(r.floorRssMB).padStart(8)} ${String(r.opmRssMB).padStart(7)}`,
  );
}
printReferenceRows(referenceRows);
if (user !== undefined) printUserBench(user, loadAtStart);
printServeRows(serveRows);
mkdirSync(outDir, { recursive: true });
writeFileSync(
  path.join(outDir, 'results.json'),
  JSON.stringify({ rows, reference: referenceRows, user, serve: serveRows }, null, 2) + '\n',
);
