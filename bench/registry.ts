// Image-pull benchmark: `opm render <bundle image>` against a local registry, in the same run as its floors.
//   cold: `skopeo copy docker://REF dir:DIR` vs `opm --use-http render REF` with an empty cache (ratio, target <= 1)
//   runtime: a bare `node -e 0` against the same skopeo copies, the part of the cold ratio that is
//         Node.js starting (informational);
//   warm: `opm render REF` with a filled cache, by tag and by digest, wall time of the whole process
//         (start-up included) against 150 ms; the floor shown is a bare `node -e 0` of the same run.
// Runs standalone (`node bench/out/registry.mjs`, from bench/registry-main.ts) or from bench/run.ts
// via registryBench().
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { corpusDir, projectRoot } from '../test/corpus.js';
import { startFixture, type Fixture } from '../test/registry/fixture.js';
import { BUNDLE_LABELS, buildImage, pushImage } from '../test/registry/image-builder.js';
import { have } from '../test/registry/tools.js';
import type { Row } from './row.js';

/** Rows of the shared benchmark table. */
export type RegistryRow = Row;

export interface RegistryBenchOptions {
  /** Rounds of the cold comparison (each pulls the whole image twice); default $BENCH_RUNS or 5. */
  coldRuns?: number;
  /** Rounds of the warm renders; default three times the cold rounds. */
  warmRuns?: number;
  /** Progress lines; default stderr. */
  log?: (line: string) => void;
}

const WARM_TARGET_MS = 150;
const COLD_TARGET_RATIO = 1;

interface Sample {
  ms: number;
  rssMB: number;
  code: number;
  stderr: string;
}

const TIME = '/usr/bin/time';

/**
 * Run a command to completion with stdout thrown away, timing the wall clock around the whole
 * process. Peak memory comes from GNU time when it is installed (its own start costs both sides alike).
 */
function timed(cmd: string, args: string[], env: NodeJS.ProcessEnv, cwd: string, scratch: string): Sample {
  const rssFile = path.join(scratch, 'rss');
  const withTime = existsSync(TIME);
  const [file, argv] = withTime ? [TIME, ['-f', '%M', '-o', rssFile, cmd, ...args]] : [cmd, args];
  const t0 = process.hrtime.bigint();
  const r = spawnSync(file, argv, { env, cwd, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  let rssMB = 0;
  if (withTime) {
    const kb = Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop());
    if (Number.isFinite(kb)) rssMB = kb / 1024;
  }
  return { ms, rssMB, code: r.status ?? -1, stderr: r.stderr };
}

function best(xs: Sample[]): Sample {
  const ok = xs.filter((x) => x.code === 0);
  const pool = ok.length > 0 ? ok : xs;
  const first = pool[0];
  if (first === undefined) throw new Error('no samples');
  return pool.reduce((a, b) => (b.ms < a.ms ? b : a), first);
}

function row(
  name: string,
  floor: Sample[],
  opm: Sample[],
  target: string,
  pass: (o: Sample, f: Sample) => boolean,
): RegistryRow {
  const f = best(floor);
  const o = best(opm);
  const failed = opm.some((s) => s.code !== 0) || floor.some((s) => s.code !== 0);
  return {
    name,
    floorMs: Math.round(f.ms),
    opmMs: Math.round(o.ms),
    ratio: Math.round((o.ms / f.ms) * 100) / 100,
    floorRssMB: Math.round(f.rssMB),
    opmRssMB: Math.round(o.rssMB),
    target: failed ? 'FAILED (non-zero exit)' : target,
    ok: failed ? false : pass(o, f),
  };
}

function notRun(why: string, log: (line: string) => void): RegistryRow[] {
  log(`\n*** REGISTRY BENCHMARK NOT RUN: ${why} ***\n`);
  return [
    {
      name: 'registry: render bundle image',
      floorMs: 0,
      opmMs: 0,
      ratio: 0,
      floorRssMB: 0,
      opmRssMB: 0,
      target: `NOT RUN (${why})`,
      ok: undefined,
    },
  ];
}

/** Newest version folder of a corpus bundle, by numeric comparison of its dotted parts. */
function newestVersion(dir: string): string | undefined {
  const parts = (v: string): number[] => v.split('.').map((x) => Number.parseInt(x, 10));
  const versions = readdirSync(dir).filter((v) => /^\d+(\.\d+)*$/.test(v));
  versions.sort((a, b) => {
    const pa = parts(a);
    const pb = parts(b);
    for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
      const d = (pa[i] ?? 0) - (pb[i] ?? 0);
      if (d !== 0) return d;
    }
    return 0;
  });
  return versions.pop();
}

/**
 * Start a local registry, push a corpus bundle image and time, interleaved and best of N: skopeo
 * copy vs a cold `opm render`, and warm renders (by tag, by digest) in fresh processes. Missing
 * tools or corpus give one row saying the benchmark did not run, never an exception.
 */
export async function registryBench(opts: RegistryBenchOptions = {}): Promise<RegistryRow[]> {
  const log = opts.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const coldRuns = opts.coldRuns ?? Number(process.env.BENCH_RUNS ?? 5);
  const warmRuns = opts.warmRuns ?? coldRuns * 3;
  const missing = ['skopeo', 'docker-registry', 'htpasswd', 'openssl', 'zstd'].filter((t) => !have(t));
  if (missing.length > 0) return notRun(`missing ${missing.join(', ')}`, log);
  if (corpusDir === undefined) return notRun('corpus not found', log);
  const root = projectRoot();
  const opm = path.join(root, 'bin', 'opm.js');
  if (!existsSync(path.join(root, 'dist', 'cli', 'main.js'))) return notRun('dist/ not built', log);
  const bundles = path.join(corpusDir, 'community-bundles', 'kube-green');
  const version = existsSync(bundles) ? newestVersion(bundles) : undefined;
  if (version === undefined) return notRun(`no kube-green bundle in ${bundles}`, log);

  const scratch = mkdtempSync(path.join(os.tmpdir(), 'opm-registry-bench-'));
  let fx: Fixture | undefined;
  try {
    fx = await startFixture();
    const img = await buildImage({
      layers: [{ dir: path.join(bundles, version) }],
      labels: BUNDLE_LABELS('kube-green'),
    });
    await pushImage(img, { url: fx.plain.url, repo: 'bench/kube-green', tag: `v${version}` });
    const byTag = `${fx.plain.host}/bench/kube-green:v${version}`;
    const byDigest = `${fx.plain.host}/bench/kube-green@${img.top.digest}`;
    log(
      `registry bench: ${byTag} (${img.blobs.size - 1} blobs), ${coldRuns} cold and ${warmRuns} warm rounds`,
    );

    // Nothing from the machine's own config may change what is measured: own HOME, no proxies.
    const home = path.join(scratch, 'home');
    mkdirSync(home);
    const baseEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, TMPDIR: scratch };
    const node = process.execPath;
    const warmCache = path.join(scratch, 'warm-cache');
    const warmEnv = { ...baseEnv, OLM_CACHE_DIR: warmCache };

    // Fill the warm cache, and check once that a render really prints the bundle.
    const check = spawnSync(node, [opm, '--use-http', 'render', byTag], { env: warmEnv, encoding: 'utf8' });
    if (check.status !== 0 || !check.stdout.includes(`"kube-green.v${version}"`)) {
      throw new Error(`opm render ${byTag} failed: ${check.stderr.slice(0, 2000)}`);
    }

    const skopeo: Sample[] = [];
    const cold: Sample[] = [];
    for (let i = 0; i < coldRuns; i++) {
      const dest = path.join(scratch, `skopeo-${i}`);
      skopeo.push(
        timed(
          'skopeo',
          ['copy', '-q', '--src-tls-verify=false', `docker://${byTag}`, `dir:${dest}`],
          baseEnv,
          scratch,
          scratch,
        ),
      );
      const cache = path.join(scratch, `cold-cache-${i}`);
      cold.push(
        timed(
          node,
          [opm, '--use-http', 'render', byTag],
          { ...baseEnv, OLM_CACHE_DIR: cache },
          scratch,
          scratch,
        ),
      );
      rmSync(dest, { recursive: true, force: true });
      rmSync(cache, { recursive: true, force: true });
    }

    const bare: Sample[] = [];
    const warmTag: Sample[] = [];
    const warmDigest: Sample[] = [];
    for (let i = 0; i < warmRuns; i++) {
      bare.push(timed(node, ['-e', '0'], baseEnv, scratch, scratch));
      warmTag.push(timed(node, [opm, '--use-http', 'render', byTag], warmEnv, scratch, scratch));
      warmDigest.push(timed(node, [opm, '--use-http', 'render', byDigest], warmEnv, scratch, scratch));
    }
    for (const s of [...cold, ...warmTag, ...warmDigest].filter((x) => x.code !== 0)) {
      log(`opm failed: ${s.stderr.slice(0, 500)}`);
    }
    const under = (o: Sample): boolean => o.ms < WARM_TARGET_MS;
    return [
      row(
        `registry: cold render vs skopeo copy (kube-green)`,
        skopeo,
        cold,
        `<= ${COLD_TARGET_RATIO}x`,
        (o, f) => o.ms / f.ms <= COLD_TARGET_RATIO,
      ),
      // What Node.js itself costs: a process that runs nothing, against the same skopeo copies.
      {
        ...row(`registry: bare node -e 0 vs skopeo copy (runtime)`, skopeo, bare, '-', () => true),
        ok: undefined,
      },
      row(`registry: warm render by tag (floor: node -e 0)`, bare, warmTag, `< ${WARM_TARGET_MS} ms`, under),
      row(
        `registry: warm render by digest (floor: node -e 0)`,
        bare,
        warmDigest,
        `< ${WARM_TARGET_MS} ms`,
        under,
      ),
    ];
  } catch (err) {
    return notRun(`failed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`, log);
  } finally {
    await fx?.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The table of bench/run.ts, for these rows alone. */
export function printRows(rows: RegistryRow[]): void {
  console.log(
    '\nbenchmark                                              floor ms   opm ms   ratio  target     floor MB  opm MB',
  );
  for (const r of rows) {
    console.log(
      `${r.name.padEnd(54)} ${String(r.floorMs).padStart(8)} ${String(r.opmMs).padStart(8)} ${r.ratio.toFixed(2).padStart(7)}  ${r.target.padEnd(10)} ${String(r.floorRssMB).padStart(8)} ${String(r.opmRssMB).padStart(7)}`,
    );
  }
}
