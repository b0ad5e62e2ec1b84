// The serve cache beside the reference opm, on a real catalog: checking a cache that is up to date
// (the work of `opm serve --cache-dir` before it listens: layout, digest over every catalog blob
// and every stored value, packages.json), reading every value back, and writing a cache. The
// reference builds its cache first; both sides then read that same cache. Processes measured by
// GNU time, interleaved, best of `runs`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ReferenceRow } from './reference.js';

interface Run {
  ms: number;
  cpuMs: number;
  mb: number;
  code: number;
}

function timed(argv: string[]): Run {
  const tmp = mkdtempSync(path.join(tmpdir(), 'opm-bench-cache-'));
  const timeFile = path.join(tmp, 'time');
  try {
    const t0 = process.hrtime.bigint();
    const r = spawnSync('/usr/bin/time', ['-o', timeFile, '-f', '%e %U %S %M', ...argv], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const [, user = 0, sys = 0, kb = 0] = (readFileSync(timeFile, 'utf8').trim().split('\n').pop() ?? '')
      .split(' ')
      .map(Number);
    return { ms, cpuMs: (user + sys) * 1000, mb: kb / 1024, code: r.status ?? 1 };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function bestOf(runs: Run[]): Run {
  return {
    ms: Math.min(...runs.map((r) => r.ms)),
    cpuMs: Math.min(...runs.map((r) => r.cpuMs)),
    mb: Math.min(...runs.map((r) => r.mb)),
    code: Math.max(...runs.map((r) => r.code)),
  };
}

function row(name: string, ref: Run, ours: Run): ReferenceRow {
  const r2 = (x: number): number => Math.round(x * 100) / 100;
  return {
    name,
    cores: 'all',
    refMs: Math.round(ref.ms),
    opmMs: Math.round(ours.ms),
    refCpuMs: Math.round(ref.cpuMs),
    opmCpuMs: Math.round(ours.cpuMs),
    refMB: Math.round(ref.mb),
    opmMB: Math.round(ours.mb),
    ratio: r2(ours.ms / ref.ms),
    cpuRatio: r2(ours.cpuMs / ref.cpuMs),
    target: ours.code === 0 && ref.code === 0 ? '-' : 'FAILED (non-zero exit)',
    ok: ours.code === 0 && ref.code === 0 ? undefined : false,
  };
}

export function serveCacheBench(opts: {
  reference: string;
  catalog: string | undefined;
  /** bench/out/serve-cache.mjs */
  script: string;
  runs: number;
}): ReferenceRow[] {
  if (opts.catalog === undefined || !existsSync('/usr/bin/time')) {
    process.stderr.write('*** serve cache rows need the corpus and /usr/bin/time: not run ***\n');
    return [];
  }
  const work = mkdtempSync(path.join(tmpdir(), 'opm-bench-serve-cache-'));
  try {
    const cache = path.join(work, 'cache');
    const serve = (dir: string): string[] => [
      opts.reference,
      'serve',
      opts.catalog ?? '',
      '--cache-dir',
      dir,
      '--cache-only',
      '--pprof-addr',
      '',
      '-t',
      path.join(work, 'termination-log'),
    ];
    const built = timed(serve(cache));
    if (built.code !== 0) throw new Error('the reference opm could not build the cache');
    const node = [process.execPath, opts.script];
    const check: [Run[], Run[]] = [[], []];
    const read: Run[] = [];
    const write: [Run[], Run[]] = [[], []];
    for (let i = 0; i < opts.runs; i++) {
      // Up to date: the reference checks the digest and loads packages.json, as ours does.
      check[0].push(timed(serve(cache)));
      check[1].push(timed([...node, 'check', cache, opts.catalog]));
      read.push(timed([...node, 'read', cache]));
      // A build from scratch by the reference (bundle conversion included) against writing the
      // same content here (the conversion is not this module's: the bundles come from its cache).
      const fresh = path.join(work, `fresh-${i}`);
      write[0].push(timed(serve(fresh)));
      rmSync(fresh, { recursive: true, force: true });
      write[1].push(timed([...node, 'write', cache, opts.catalog, fresh]));
      rmSync(fresh, { recursive: true, force: true });
    }
    return [
      row('serve cache: check up-to-date cache, load', bestOf(check[0]), bestOf(check[1])),
      { ...row('serve cache: read every value (ref: check)', bestOf(check[0]), bestOf(read)) },
      row('serve cache: build (ref) / write (ours)', bestOf(write[0]), bestOf(write[1])),
    ];
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
