// Building and pushing a catalog image without a container engine, beside the part of
// `docker build` of the generated Dockerfile that is opm's own work: the reference opm building its
// serve cache (`opm serve --cache-only`). Ours does that too, and writes both layers, reads the base
// by reference and pushes everything to a registry on 127.0.0.1, so a ratio near 1 means the image
// costs little beyond the cache. Pairs are run alternately (ours, the reference) and the median of
// the per-pair ratios is kept: the machine is shared. A second row says how many bytes a rebuild of
// the same catalog uploads (counted at the fixture's proxy): the target is none.
// Runs standalone (`node bench/out/image.mjs`, from bench/image-main.ts) or from bench/run.ts.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { corpusDir, projectRoot } from '../test/corpus.js';
import { startFixture } from '../test/registry/fixture.js';
import { buildImage, pushImage } from '../test/registry/image-builder.js';
import { have } from '../test/registry/tools.js';
import type { Row } from './row.js';

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
): Promise<{ ms: number; code: number; stderr: string }> {
  const t0 = process.hrtime.bigint();
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => (stderr += d));
    child.on('close', (code) =>
      resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, code: code ?? -1, stderr }),
    );
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
}

function notRun(why: string): Row[] {
  return [
    {
      name: 'image build + push vs reference cache build',
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
  const catalog = path.join(corpusDir, 'community-catalog-v4.21');
  const opm = path.join(root, 'bin', 'opm.js');
  const fx = await startFixture();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'opm-bench-image-'));
  try {
    const base = await buildImage({
      layers: [
        {
          entries: [
            { name: 'bin', type: 'directory' },
            { name: 'bin/opm', content: '#!/bin/sh\n' },
          ],
        },
      ],
      labels: {},
      format: 'docker',
      platforms: [
        { os: 'linux', architecture: 'amd64' },
        { os: 'linux', architecture: 'arm64', variant: 'v8' },
      ],
    });
    await pushImage(base, { url: fx.plain.url, repo: 'base/opm', tag: 'v1' });
    const env = (name: string): NodeJS.ProcessEnv => {
      const home = path.join(tmp, name);
      mkdirSync(home, { recursive: true });
      return { HOME: home, PATH: process.env.PATH, OLM_CACHE_DIR: path.join(home, 'cache') };
    };
    const ours: number[] = [];
    const refs: number[] = [];
    const ratios: number[] = [];
    let failed = '';
    for (let i = 0; i < runs; i++) {
      // A repository of its own per run: every layer is really uploaded.
      const a = await timed(
        process.execPath,
        [
          opm,
          '--use-http',
          'image',
          'build',
          catalog,
          '-t',
          `${fx.plain.host}/bench/c${i}:v1`,
          '--push',
          '--base-image',
          `${fx.plain.host}/base/opm:v1`,
        ],
        env(`ours-${i}`),
      );
      const cache = path.join(tmp, `ref-cache-${i}`);
      const b = await timed(
        o.reference,
        ['serve', catalog, '--cache-dir', cache, '--cache-only'],
        env(`ref-${i}`),
      );
      if (a.code !== 0 || b.code !== 0) failed = (a.code !== 0 ? a.stderr : b.stderr).split('\n')[0] ?? '';
      ours.push(a.ms);
      refs.push(b.ms);
      ratios.push(a.ms / b.ms);
      log(`image build + push ${Math.round(a.ms)} ms, reference cache build ${Math.round(b.ms)} ms`);
    }
    // A rebuild of the same catalog to the same tag, through the counting proxy.
    const tag = `${fx.proxy.host}/bench/rebuild:v1`;
    const args = [
      opm,
      '--use-http',
      'image',
      'build',
      catalog,
      '-t',
      tag,
      '--push',
      '--base-image',
      `${fx.proxy.host}/base/opm:v1`,
    ];
    const first = await timed(process.execPath, args, env('rebuild-1'));
    fx.proxy.reset();
    const second = await timed(process.execPath, args, env('rebuild-2'));
    const rebuiltBytes = fx.proxy.push.uploadedBytes;
    if (first.code !== 0 || second.code !== 0)
      failed = (first.code !== 0 ? first.stderr : second.stderr).split('\n')[0] ?? '';
    const ratio = Math.round(median(ratios) * 100) / 100;
    return [
      {
        name: 'image build + push vs reference cache build',
        floorMs: Math.round(median(refs)),
        opmMs: Math.round(median(ours)),
        ratio,
        floorRssMB: 0,
        opmRssMB: 0,
        target: failed !== '' ? `FAILED (${failed})` : 'info',
        ok: failed !== '' ? false : undefined,
      },
      {
        name: `image rebuild: bytes uploaded (${rebuiltBytes})`,
        floorMs: 0,
        opmMs: Math.round(second.ms),
        ratio: 0,
        floorRssMB: 0,
        opmRssMB: 0,
        target: rebuiltBytes === 0 ? '0 bytes' : 'FAILED',
        ok: rebuiltBytes === 0 && failed === '',
      },
    ];
  } finally {
    await fx.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}
