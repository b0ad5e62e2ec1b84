// `opm serve` beside the reference opm's: the time from the process's start until it logs
// `serving registry` (what catalog pods wait for before probes pass), the resident memory then,
// and the peak after ListBundles streams the whole catalog to a client, read from /proc. Runs are
// interleaved (ours, the reference, ours…) so both see the same load; the median is kept.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';

export interface ServeRow {
  name: string;
  ourStartMs: number;
  refStartMs: number;
  /** ours / the reference. */
  ratio: number;
  ourReadyMB: number;
  refReadyMB: number;
  ourPeakMB: number;
  refPeakMB: number;
}

interface One {
  startMs: number;
  readyMB: number;
  peakMB: number;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a !== null ? a.port : 0));
    });
  });
}

function memMB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Math.round(Number(m?.[1] ?? 0) / 1024);
}

async function listBundles(port: number): Promise<number> {
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
    'grpc.max_receive_message_length': -1,
  });
  const raw = (b: Buffer): Buffer => b;
  const call = client.makeServerStreamRequest('/api.Registry/ListBundles', raw, raw, Buffer.alloc(0));
  let n = 0;
  await new Promise<void>((resolve, reject) => {
    call.on('data', () => n++);
    call.on('end', resolve);
    call.on('error', reject);
  });
  client.close();
  return n;
}

async function once(argv: string[]): Promise<One> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(argv[0] ?? '', [...argv.slice(1), '-p', String(port), '-t', '/dev/null'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (d: string) => {
      err += d;
      if (err.includes('msg="serving registry"')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`${argv.join(' ')} exited ${code}: ${err}`)));
  });
  const startMs = performance.now() - t0;
  const pid = child.pid ?? 0;
  const readyMB = memMB(pid, 'VmRSS');
  for (let i = 0; i < 3; i++) await listBundles(port);
  const peakMB = memMB(pid, 'VmHWM');
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  child.kill('SIGTERM');
  await exited;
  return { startMs, readyMB, peakMB };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** Serve `catalog` `runs` times with each opm. */
export async function serveBench(opts: {
  root: string;
  reference: string;
  catalog: string;
  runs: number;
}): Promise<ServeRow> {
  const ours: One[] = [];
  const theirs: One[] = [];
  const opm = [process.execPath, path.join(opts.root, 'bin', 'opm.js'), 'serve', opts.catalog];
  const ref = [opts.reference, 'serve', opts.catalog, '--pprof-addr='];
  for (let i = 0; i < opts.runs; i++) {
    ours.push(await once(opm));
    theirs.push(await once(ref));
  }
  const ourStartMs = Math.round(median(ours.map((r) => r.startMs)));
  const refStartMs = Math.round(median(theirs.map((r) => r.startMs)));
  return {
    name: `serve ${path.basename(opts.catalog)}`,
    ourStartMs,
    refStartMs,
    ratio: ourStartMs / refStartMs,
    ourReadyMB: median(ours.map((r) => r.readyMB)),
    refReadyMB: median(theirs.map((r) => r.readyMB)),
    ourPeakMB: median(ours.map((r) => r.peakMB)),
    refPeakMB: median(theirs.map((r) => r.peakMB)),
  };
}

export function printServeRows(rows: readonly ServeRow[]): void {
  if (rows.length === 0) return;
  console.log(
    '\nserve (start until "serving registry")       ours ms   ref ms  ratio  ours MB ready/peak  ref MB ready/peak',
  );
  for (const r of rows) {
    console.log(
      `${r.name.padEnd(44)} ${String(r.ourStartMs).padStart(8)} ${String(r.refStartMs).padStart(8)} ${r.ratio.toFixed(2).padStart(6)}  ${`${r.ourReadyMB}/${r.ourPeakMB}`.padStart(18)}  ${`${r.refReadyMB}/${r.refPeakMB}`.padStart(17)}`,
    );
  }
}
