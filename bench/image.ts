// Building and pushing a catalog image without a container engine, against the documentation's way
// where a real builder runs here: `opm generate dockerfile` (the reference opm), `buildah bud` of
// that Dockerfile (its RUN step runs the reference opm's `serve --cache-only` inside the base
// image) and `buildah push`, each pair run as whole processes. The base is a real opm image (the
// reference binary and its C library, bench/opm-base.ts) on a registry on 127.0.0.1. buildah runs
// unprivileged here, so with vfs storage (every container's root a full copy) and chroot isolation:
// that is what a CI job without privileges gets. Beside it, the part of `docker build` that is opm's
// own work: the reference opm building its serve cache (`opm serve --cache-only`); ours does that
// too, and writes both layers, reads the base by reference and pushes everything, so that ratio
// near 1 means the image costs little beyond the cache. Pairs are run alternately (ours, the
// documentation's way, the cache build) and the median of the per-pair ratios is kept with their
// range: the machine is shared. Further rows say how many bytes a rebuild of the same catalog to
// the same tag uploads (counted at the fixture's proxy), for ours (the target is none) and for
// buildah's, without and with its layer cache. Without buildah the base is a stand-in (a `/bin/opm` that is a shell script, enough
// for ours, which never runs it) and the buildah rows say NOT RUN.
// Runs standalone (`node bench/out/image.mjs`, from bench/image-main.ts) or from bench/run.ts.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { corpusDir, projectRoot } from '../test/corpus.js';
import { startFixture } from '../test/registry/fixture.js';
import { buildOpmStandIn, pushImage } from '../test/registry/image-builder.js';
import { have } from '../test/registry/tools.js';
import { buildahEnv, buildOpmBase } from '../test/registry/opm-base.js';
import type { Row } from './row.js';
import { median } from './stats.js';

export interface ImageBenchOptions {
  reference: string | undefined;
  runs?: number;
  log?: (line: string) => void;
}

/** A child run asynchronously (the fixture's proxy answers in this process), timed around it. */
function timed(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd?: string,
): Promise<{ ms: number; code: number; stderr: string }> {
  const t0 = process.hrtime.bigint();
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env, cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => (stderr += d));
    child.on('close', (code) =>
      resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, code: code ?? -1, stderr }),
    );
  });
}

const r2 = (x: number): number => Math.round(x * 100) / 100;

/** `[min–max]` of the per-pair ratios. */
function range(xs: number[]): string {
  return `[${r2(Math.min(...xs)).toFixed(2)}–${r2(Math.max(...xs)).toFixed(2)}]`;
}

/** Several children one after the other, timed as one; stops at the first that fails. */
async function timedSequence(
  steps: Array<{ cmd: string; args: string[]; cwd?: string }>,
  env: NodeJS.ProcessEnv,
): Promise<{ ms: number; code: number; stderr: string }> {
  let ms = 0;
  for (const s of steps) {
    const r = await timed(s.cmd, s.args, env, s.cwd);
    ms += r.ms;
    if (r.code !== 0)
      return { ms, code: r.code, stderr: `${s.cmd} ${s.args[0] ?? ''}: ${lastLine(r.stderr)}` };
  }
  return { ms, code: 0, stderr: '' };
}

function lastLine(text: string): string {
  return text.trim().split('\n').slice(-1)[0] ?? '';
}

const CACHE_ROW = 'image build + push vs reference cache build';
const BUD_ROW = 'image build + push vs gen. dockerfile + buildah';
const BUD_REBUILD_ROW = 'buildah rebuild + push: bytes uploaded';
const BUD_LAYERS_REBUILD_ROW = 'buildah --layers rebuild + push: bytes';

function notRun(why: string, name = CACHE_ROW): Row[] {
  return [
    {
      name,
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

export async function imageBench(o: ImageBenchOptions): Promise<Row[]> {
  const log = o.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const runs = o.runs ?? Number(process.env.BENCH_RUNS ?? 3);
  if (o.reference === undefined) return notRun('no OPM_REFERENCE');
  if (corpusDir === undefined) return notRun('corpus not found');
  const missing = ['docker-registry', 'htpasswd', 'openssl', 'zstd'].filter((t) => !have(t));
  if (missing.length > 0) return notRun(`missing ${missing.join(', ')}`);
  const root = projectRoot();
  if (!existsSync(path.join(root, 'dist', 'cli', 'main.js'))) return notRun('dist/ not built');
  const reference = o.reference;
  const withBuildah = have('buildah') && have('ldd');
  if (!withBuildah)
    log(
      '*** image bench: buildah (or ldd) is not installed: the buildah rows are NOT RUN, the base is a stand-in ***',
    );
  const catalog = path.join(corpusDir, 'community-catalog-v4.21');
  const opm = path.join(root, 'bin', 'opm.js');
  const fx = await startFixture();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'opm-bench-image-'));
  try {
    const baseRef = `${fx.plain.host}/base/opm:v1`;
    const bEnv = withBuildah ? buildahEnv(path.join(tmp, 'buildah')) : undefined;
    if (bEnv !== undefined) {
      buildOpmBase(reference, baseRef, tmp, bEnv);
    } else {
      const base = await buildOpmStandIn({
        format: 'docker',
        platforms: [
          { os: 'linux', architecture: 'amd64' },
          { os: 'linux', architecture: 'arm64', variant: 'v8' },
        ],
      });
      await pushImage(base, { url: fx.plain.url, repo: 'base/opm', tag: 'v1' });
    }
    // The documentation's way writes `<dir>.Dockerfile` beside the catalog and takes the folder
    // above as the build context: a copy of the catalog in a folder of ours (made before timing),
    // since the corpus is read in place and never written to.
    const work = path.join(tmp, 'docs-way');
    mkdirSync(work);
    if (bEnv !== undefined) cpSync(catalog, path.join(work, 'catalog'), { recursive: true });
    const docsWay = (
      target: string,
      local: string,
      layers = false,
    ): Array<{ cmd: string; args: string[]; cwd?: string }> => [
      // `-b` as well as `-i`: the builder stage defaults to quay.io's opm, not reachable here.
      {
        cmd: reference,
        args: ['generate', 'dockerfile', 'catalog', '-i', baseRef, '-b', baseRef],
        cwd: work,
      },
      {
        cmd: 'buildah',
        args: [
          'bud',
          ...(layers ? ['--layers'] : []),
          '--isolation',
          'chroot',
          '--tls-verify=false',
          '-f',
          'catalog.Dockerfile',
          '-t',
          local,
          '.',
        ],
        cwd: work,
      },
      { cmd: 'buildah', args: ['push', '--tls-verify=false', local, `docker://${target}`] },
    ];
    const cleanDocsWay = (local: string): void => {
      rmSync(path.join(work, 'catalog.Dockerfile'), { force: true });
      if (bEnv !== undefined) spawnSync('buildah', ['rmi', '--force', local], { env: bEnv, stdio: 'ignore' });
    };
    const env = (name: string): NodeJS.ProcessEnv => {
      const home = path.join(tmp, name);
      mkdirSync(home, { recursive: true });
      return { HOME: home, PATH: process.env.PATH, OLM_CACHE_DIR: path.join(home, 'cache') };
    };
    const ours: number[] = [];
    const refs: number[] = [];
    const buds: number[] = [];
    const ratios: number[] = [];
    const budRatios: number[] = [];
    let failed = '';
    let budFailed = '';
    // `opm image build` of the catalog, pushed to `tag` on `base`.
    const buildArgs = (tag: string, base: string): string[] => [
      opm,
      '--use-http',
      'image',
      'build',
      catalog,
      '-t',
      tag,
      '--push',
      '--base-image',
      base,
    ];
    for (let i = 0; i < runs; i++) {
      // A repository of its own per run: every layer is really uploaded.
      const a = await timed(
        process.execPath,
        buildArgs(`${fx.plain.host}/bench/c${i}:v1`, baseRef),
        env(`ours-${i}`),
      );
      if (bEnv !== undefined) {
        const local = `localhost/bench/d${i}:v1`;
        cleanDocsWay(local);
        const d = await timedSequence(docsWay(`${fx.plain.host}/bench/d${i}:v1`, local), bEnv);
        cleanDocsWay(local);
        if (d.code !== 0) budFailed = d.stderr;
        buds.push(d.ms);
        budRatios.push(a.ms / d.ms);
        log(
          `image build + push ${Math.round(a.ms)} ms, generate dockerfile + buildah bud + push ${Math.round(d.ms)} ms`,
        );
      }
      const cache = path.join(tmp, `ref-cache-${i}`);
      const b = await timed(
        reference,
        ['serve', catalog, '--cache-dir', cache, '--cache-only'],
        env(`ref-${i}`),
      );
      if (a.code !== 0 || b.code !== 0) failed = lastLine(a.code !== 0 ? a.stderr : b.stderr);
      ours.push(a.ms);
      refs.push(b.ms);
      ratios.push(a.ms / b.ms);
      log(`image build + push ${Math.round(a.ms)} ms, reference cache build ${Math.round(b.ms)} ms`);
    }
    // A rebuild of the same catalog to the same tag, through the counting proxy.
    const tag = `${fx.proxy.host}/bench/rebuild:v1`;
    const args = buildArgs(tag, `${fx.proxy.host}/base/opm:v1`);
    const first = await timed(process.execPath, args, env('rebuild-1'));
    fx.proxy.reset();
    const second = await timed(process.execPath, args, env('rebuild-2'));
    const rebuiltBytes = fx.proxy.push.uploadedBytes;
    if (first.code !== 0 || second.code !== 0)
      failed = lastLine(first.code !== 0 ? first.stderr : second.stderr);
    const rows: Row[] = [
      {
        name: CACHE_ROW,
        floorMs: Math.round(median(refs)),
        opmMs: Math.round(median(ours)),
        ratio: r2(median(ratios)),
        floorRssMB: 0,
        opmRssMB: 0,
        target: failed !== '' ? `FAILED (${failed})` : `info ${range(ratios)}`,
        ok: failed !== '' ? false : undefined,
      },
    ];
    if (bEnv !== undefined) {
      rows.push({
        name: BUD_ROW,
        floorMs: Math.round(median(buds)),
        opmMs: Math.round(median(ours)),
        ratio: r2(median(budRatios)),
        floorRssMB: 0,
        opmRssMB: 0,
        target:
          budFailed !== '' || failed !== '' ? `FAILED (${budFailed || failed})` : `info ${range(budRatios)}`,
        ok: budFailed !== '' || failed !== '' ? false : undefined,
      });
    } else rows.push(...notRun('buildah not installed', BUD_ROW));
    rows.push({
      name: `image rebuild: bytes uploaded (${rebuiltBytes})`,
      floorMs: 0,
      opmMs: Math.round(second.ms),
      ratio: 0,
      floorRssMB: 0,
      opmRssMB: 0,
      target: rebuiltBytes === 0 ? '0 bytes' : 'FAILED',
      ok: rebuiltBytes === 0 && failed === '',
    });
    if (bEnv !== undefined) {
      // The documentation's way rebuilt: the same Dockerfile built again and pushed to the same tag,
      // with buildah's default (no layer cache, as on a fresh CI runner) and with `--layers` (the
      // first build's layers kept in the storage and reused by the second).
      for (const layers of [false, true]) {
        const local = `localhost/bench/rebuild-${layers}:v1`;
        const target = `${fx.proxy.host}/bench/bud-rebuild-${layers}:v1`;
        cleanDocsWay(local);
        const d1 = await timedSequence(docsWay(target, local, layers), bEnv);
        rmSync(path.join(work, 'catalog.Dockerfile'), { force: true });
        if (!layers) cleanDocsWay(local);
        fx.proxy.reset();
        const d2 = await timedSequence(docsWay(target, local, layers), bEnv);
        cleanDocsWay(local);
        const budBytes = fx.proxy.push.uploadedBytes;
        const why = d1.code !== 0 ? d1.stderr : d2.stderr;
        log(
          `generate dockerfile + buildah bud${layers ? ' --layers' : ''} + push rebuilt: ${budBytes} bytes uploaded`,
        );
        rows.push({
          name: `${layers ? BUD_LAYERS_REBUILD_ROW : BUD_REBUILD_ROW} (${budBytes})`,
          floorMs: Math.round(d2.ms),
          opmMs: 0,
          ratio: 0,
          floorRssMB: 0,
          opmRssMB: 0,
          target: why !== '' ? `FAILED (${why})` : 'info',
          ok: why !== '' ? false : undefined,
        });
      }
    } else
      rows.push(
        ...notRun('buildah not installed', BUD_REBUILD_ROW),
        ...notRun('buildah not installed', BUD_LAYERS_REBUILD_ROW),
      );
    return rows;
  } finally {
    await fx.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}
