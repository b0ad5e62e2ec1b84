/**
 * Parallel loading: catalog files are read, parsed and decoded by the calling thread and by
 * `threads - 1` worker threads at once. Every thread claims the next file from one shared counter
 * (largest files first, so the last file to finish is a short one), so no thread waits for another
 * to hand it work. Results come back as plain data and are put in walk order, so the outcome never
 * depends on timing.
 *
 * A worker costs a thread start and loading its code (dist/load-worker.cjs) before it parses
 * anything, and its parser warms up again. Small catalogs are loaded in the calling
 * thread alone, where a worker would cost more than it saves.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import type { DecodeOptions } from './decode.js';
import { loadFile, type LoadResult } from './load-file.js';
import type { WalkedFile } from './load-walk.js';
import { claim, replyError, stopClaims, type ClaimReply, type ClaimWork } from '../util/claim.js';

/**
 * Catalogs with fewer bytes than this are loaded in the calling thread. A worker's start, its parser
 * warming up again and the copy of its results back cost more than they save on small catalogs, and
 * less than they save on large ones (`npm run bench` shows both; docs/performance.md).
 */
export const IN_THREAD_BYTES = 32 * 1024 * 1024;

/** Environment variable that sets the number of loading threads (1 = no workers). */
const THREADS_ENV = 'OPM_THREADS';

/**
 * Threads used when none are asked for, at most. Each thread holds its own heap, so the default
 * stays where memory stays moderate.
 */
export const DEFAULT_MAX_THREADS = 4;
/**
 * Catalogs of this many bytes and more are loaded on at most DEFAULT_MAX_THREADS_LARGE threads when
 * none are asked for. On such catalogs (payloads, nearly all of their size) each thread adds its own
 * copy of a share of them to the peak memory, while most of the gain in time comes with the second
 * thread (docs/performance.md).
 */
export const LARGE_CATALOG_BYTES = 128 * 1024 * 1024;
const DEFAULT_MAX_THREADS_LARGE = 2;
/** The most threads OPM_THREADS can ask for. */
const MAX_THREADS = 64;

/**
 * The number of threads to load a catalog of `catalogBytes` with: `requested` when given, else
 * OPM_THREADS when it is a positive integer, else the available parallelism (which honours CPU
 * affinity such as `taskset`), at most DEFAULT_MAX_THREADS (DEFAULT_MAX_THREADS_LARGE from
 * LARGE_CATALOG_BYTES on).
 */
export function threadCount(
  requested?: number,
  env: NodeJS.ProcessEnv = process.env,
  catalogBytes = 0,
): number {
  if (requested !== undefined && Number.isInteger(requested) && requested >= 1) return requested;
  const fromEnv = env[THREADS_ENV]?.trim();
  // Clamped: a typo such as 1000 must not start a thousand heaps.
  if (fromEnv !== undefined && /^[1-9][0-9]{0,3}$/.test(fromEnv))
    return Math.min(Number(fromEnv), MAX_THREADS);
  const most = catalogBytes >= LARGE_CATALOG_BYTES ? DEFAULT_MAX_THREADS_LARGE : DEFAULT_MAX_THREADS;
  return Math.min(availableParallelism(), most);
}

const scriptsFound = new Map<string, string | null>();

/**
 * A bundled worker script (`load-worker.cjs` by default), found from this module wherever it runs:
 * in the bundle (dist/opm.cjs), compiled (dist/declcfg/) or from sources (src/declcfg/, in tests
 * after a build). Null when there is none: the work then stays in the calling thread.
 */
export function workerScript(name = 'load-worker.cjs'): string | null {
  const known = scriptsFound.get(name);
  if (known !== undefined) return known;
  let found: string | null = null;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 3 && found === null; up++) {
    for (const candidate of [path.join(dir, name), path.join(dir, 'dist', name)]) {
      if (found === null && existsSync(candidate)) found = candidate;
    }
    dir = path.dirname(dir);
  }
  scriptsFound.set(name, found);
  return found;
}

/** Options a worker can receive: functions stay behind (they cannot cross threads). */
function plainOptions(opts: DecodeOptions): DecodeOptions {
  return Object.fromEntries(Object.entries(opts).filter(([, v]) => typeof v !== 'function')) as DecodeOptions;
}

/**
 * Run `run` over `files` on this thread and `threads - 1` workers of `script` (which serves claims
 * with the same function, util/claim.ts); results are in the order of `files`. Largest files are
 * claimed first, so the last file to finish is a short one. Rejects when `run` throws for a file,
 * here or in a worker: no thread then claims another file.
 */
export async function mapFilesInWorkers<D, R extends object>(
  files: readonly WalkedFile[],
  threads: number,
  script: string,
  data: D,
  run: (f: WalkedFile, data: D) => Promise<R>,
): Promise<R[]> {
  const order = [...files].sort((a, b) => b.size - a.size);
  const indexOf = new Map(files.map((f, i) => [f, i]));
  const results = new Array<R | undefined>(files.length);
  const shared = new SharedArrayBuffer(4);
  const work: ClaimWork<WalkedFile, D> = { items: order, next: shared, data };
  const workers: Worker[] = [];
  let failure: Error | undefined;
  const put = (i: number, r: R): void => {
    const f = order[i];
    const at = f === undefined ? undefined : indexOf.get(f);
    if (at === undefined) return;
    results[at] = r;
  };
  const finished: Promise<void>[] = [];
  const workerCount = Math.min(threads, files.length) - 1;
  // Loaded only when workers start: most commands never do, and the module costs a few ms to load.
  const { Worker } = workerCount > 0 ? await import('node:worker_threads') : { Worker: undefined };
  for (let n = 0; Worker !== undefined && n < workerCount; n++) {
    const w = new Worker(script, { workerData: work });
    workers.push(w);
    finished.push(
      new Promise<void>((resolve) => {
        w.on('message', (reply: ClaimReply<R>) => {
          if (reply.ok) put(reply.index, reply.result);
          else failure ??= replyError('a worker failed', reply);
        });
        w.on('messageerror', (err) => {
          failure ??= err;
        });
        w.on('error', (err) => {
          failure ??= err;
        });
        w.on('exit', () => resolve());
      }),
    );
  }
  try {
    // This thread takes its share too; a worker's results are received between two of its files.
    const next = new Int32Array(shared);
    for (
      let i = claim(next, order.length);
      i !== -1 && failure === undefined;
      i = claim(next, order.length)
    ) {
      const f = order[i];
      if (f === undefined) continue;
      try {
        put(i, await run(f, data));
      } catch (err) {
        // As in a worker (serveClaims): a failing file ends every thread's claims.
        stopClaims(next, order.length);
        failure ??= err instanceof Error ? err : new Error(String(err));
      }
    }
    // After a failure here the workers are stopped at once (below), not waited for.
    if (failure === undefined) await Promise.all(finished);
  } finally {
    if (failure !== undefined) await Promise.all(workers.map((w) => w.terminate()));
  }
  if (failure !== undefined) throw failure;
  const missing = results.findIndex((r) => r === undefined);
  if (missing !== -1) throw new Error(`no result for ${files[missing]?.rel ?? missing}`);
  return results as R[];
}

/** Load `files` on this thread and `threads - 1` workers; results are in the order of `files`. */
export function loadFilesInWorkers(
  files: readonly WalkedFile[],
  opts: DecodeOptions,
  threads: number,
  script: string,
): Promise<LoadResult[]> {
  return mapFilesInWorkers(files, threads, script, plainOptions(opts), (f) => loadFile(f, opts));
}
