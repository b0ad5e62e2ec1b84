// Upgrade-graph pictures (`render-graph -o svg|html`), each figure against a floor of the same run:
//   layout: ELK's layered layout against dagre's on the largest package of the corpus (bundles ×
//           channels), the layouts alone: the measurement behind using dagre;
//   render-graph -o svg|html of that package as a process, against loading the catalog;
//   150 bundles × 10 channels: drawing the HTML page and chromium showing it, a hover and a
//           selection answered, against loading the catalog; held to 2 s;
//   lanes of 1,000 and 10,000 bundles in a replaces chain (laneBench): render-graph -o svg|html
//           against -o mermaid of the same catalog (the format opm has), and the layout alone
//           against loading the catalog, with peak memory beside each.
// Runs standalone (`node bench/out/graph.mjs`, from bench/graph-main.ts; BENCH_GRAPH=lanes for
// the lane rows alone) or from bench/run.ts.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpusDir } from '../test/corpus.js';
import { generateGraphCatalog, generateLaneCatalog } from './generate-graph-catalog.js';
import type { Row } from './row.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const child = path.join(here, 'child.mjs');
const PAGE_TARGET_MS = 2000;

interface Sample {
  ms: number;
  maxRssMB: number;
  code: number;
}

function runChild(args: string[]): Sample {
  const out = execFileSync(process.execPath, [child, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out.trim().split('\n').pop() ?? '{}') as Sample;
}

/** Best of `runs` for both sides, interleaved. */
function measure(name: string, floorArgs: string[], oursArgs: string[], runs: number): Row {
  let floor: Sample | undefined;
  let ours: Sample | undefined;
  let failed = false;
  for (let i = 0; i < runs; i++) {
    const f = runChild(floorArgs);
    if (!floor || f.ms < floor.ms) floor = f;
    const o = runChild(oursArgs);
    if (o.code !== 0) failed = true;
    if (!ours || o.ms < ours.ms) ours = o;
  }
  if (!floor || !ours) throw new Error('no samples');
  return {
    name,
    floorMs: Math.round(floor.ms),
    opmMs: Math.round(ours.ms),
    ratio: Math.round((ours.ms / floor.ms) * 100) / 100,
    floorRssMB: Math.round(floor.maxRssMB),
    opmRssMB: Math.round(ours.maxRssMB),
    target: failed ? 'FAILED (non-zero exit)' : '-',
    ok: failed ? false : undefined,
  };
}

/** The package of a catalog with the most bundles × channels. */
export function largestPackage(catalog: string): string {
  let best = { name: '', score: -1 };
  for (const dir of readdirSync(catalog).sort()) {
    const files = readdirSync(path.join(catalog, dir)).filter((f) => /\.(json|ya?ml)$/.test(f));
    const text = files.map((f) => readFileSync(path.join(catalog, dir, f), 'utf8')).join('\n');
    const bundles = (text.match(/(^schema: olm\.bundle$|"schema": "olm\.bundle")/gm) ?? []).length;
    const channels = (text.match(/(^schema: olm\.channel$|"schema": "olm\.channel")/gm) ?? []).length;
    const name = /^name: (\S+)$/m.exec(text)?.[1] ?? /"name": "([^"]+)"/.exec(text)?.[1] ?? dir;
    if (bundles * channels > best.score) best = { name, score: bundles * channels };
  }
  return best.name;
}

function chromiumPresent(): boolean {
  return existsSync(process.env.OPM_CHROMIUM ?? '/usr/bin/chromium');
}

/** A lane of 1,000 and of 10,000 bundles: the drawn formats against Mermaid, the layout against loading. */
export function laneBench(runs = Number(process.env.BENCH_RUNS ?? 3)): Row[] {
  const rows: Row[] = [];
  for (const bundles of [1_000, 10_000]) {
    const dir = path.join(here, `generated-lane-${bundles}`);
    mkdirSync(dir, { recursive: true });
    const pkg = generateLaneCatalog(dir, bundles);
    const mermaid = ['opm', 'alpha', 'render-graph', dir];
    for (const format of ['svg', 'html']) {
      rows.push(
        measure(
          `render-graph -o ${format} lane ${bundles} vs -o mermaid`,
          mermaid,
          [...mermaid, '-o', format],
          runs,
        ),
      );
    }
    rows.push(
      measure(
        `graph layout lane ${bundles} vs load`,
        ['load', dir, '1', '0'],
        ['graph-layout', 'auto', dir, pkg],
        runs,
      ),
    );
  }
  return rows;
}

export function graphBench(runs = Number(process.env.BENCH_RUNS ?? 3)): Row[] {
  const rows: Row[] = [];
  if (corpusDir !== undefined) {
    const catalog = path.join(corpusDir, 'community-catalog-v4.21');
    const pkg = largestPackage(catalog);
    rows.push(
      measure(
        `graph layout ${pkg}: elk vs dagre`,
        ['graph-layout', 'dagre', catalog, pkg],
        ['graph-layout', 'elk', catalog, pkg],
        runs,
      ),
    );
    for (const format of ['svg', 'html']) {
      rows.push(
        measure(
          `render-graph -o ${format} ${pkg} vs load`,
          ['load', catalog, '1', '0'],
          ['opm', 'alpha', 'render-graph', catalog, '-p', pkg, '-o', format],
          runs,
        ),
      );
    }
  } else {
    process.stderr.write('*** corpus not found: the graph layout rows on real catalogs are not run ***\n');
  }

  const generated = path.join(here, 'generated-graph-150x10');
  mkdirSync(generated, { recursive: true });
  const pkg = generateGraphCatalog(generated);
  if (chromiumPresent()) {
    const r = measure(
      'graph page 150x10: render-graph -o html + chromium',
      ['load', generated, '1', '0'],
      ['graph-page', generated, pkg, path.join(here, 'generated-graph-150x10.html')],
      runs,
    );
    const ok = r.ok !== false && r.opmMs < PAGE_TARGET_MS;
    rows.push({ ...r, target: r.ok === false ? r.target : `< ${PAGE_TARGET_MS} ms`, ok });
  } else {
    process.stderr.write('*** no chromium (apt-get install chromium): the page row is not run ***\n');
  }
  rows.push(...laneBench(runs));
  return rows;
}
