/**
 * Parallel loading: catalog files are read, parsed and decoded by the calling thread and by
 * `threads - 1` worker threads at once. Every thread claims the next file from one shared counter
 * (largest files first, so the last file to finish is a short one), so no thread waits for another
 * to hand it work. Results come back as plain data and are put in walk order, so the outcome never
 * depends on timing.
 *
 * Workers are started by the pool of util/worker-pool.ts, which finds their code (built, the bundle
 * dist/load-worker.cjs). A worker costs a thread start and loading its code before it parses
 * anything, and its parser warms up again. Small catalogs are loaded in the calling
 * thread alone, where a worker would cost more than it saves.
 */
import { availableParallelism } from 'node:os';
import { loadFile, type LoadOptions, type LoadResult } from './load-file.js';
import { maxBlobBytes } from './load-large.js';
import type { WalkedFile } from './load-walk.js';
import { mapClaims, workerModule, type WorkerModule } from '../util/worker-pool.js';
import { throwIfAborted } from '../util/abort.js';

/** The environment as the thread count reads it (OPM_THREADS). */
export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * Catalogs with fewer bytes than this are loaded in the calling thread. A worker's start, its parser
 * warming up again and the copy of its results back cost more than they save on small catalogs, and
 * less than they save on large ones (`npm run bench` shows both; docs/performance.md).
 */
export const IN_THREAD_BYTES = 32 * 1024 * 1024;

/** Environment variable that sets the number of loading threads (1 = no workers). */
export const THREADS_ENV = 'OPM_THREADS';

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
 * OPM_THREADS of `env` when it is a positive integer (the command line passes the process's
 * environment; a library caller passes its own, or none), else the available parallelism (which
 * honours CPU affinity such as `taskset`), at most DEFAULT_MAX_THREADS (DEFAULT_MAX_THREADS_LARGE
 * from LARGE_CATALOG_BYTES on).
 */
export function threadCount(
  requested: number | undefined,
  env: Environment | undefined,
  catalogBytes = 0,
): number {
  if (requested !== undefined && Number.isInteger(requested) && requested >= 1) return requested;
  const fromEnv = env?.[THREADS_ENV]?.trim();
  // Clamped: a typo such as 1000 must not start a thousand heaps.
  if (fromEnv !== undefined && /^[1-9][0-9]{0,3}$/.test(fromEnv))
    return Math.min(Number(fromEnv), MAX_THREADS);
  const most = catalogBytes >= LARGE_CATALOG_BYTES ? DEFAULT_MAX_THREADS_LARGE : DEFAULT_MAX_THREADS;
  return Math.min(availableParallelism(), most);
}

/** The loading worker (load-worker.ts; bundled as dist/load-worker.cjs). */
export const LOAD_WORKER = workerModule(new URL('./load-worker.js', import.meta.url));

/**
 * Options a worker can receive: functions stay behind (they cannot cross threads), and so do the
 * signal (this thread watches it and terminates the workers) and the environment (read here).
 */
function plainOptions(opts: LoadOptions): LoadOptions {
  const plain = Object.fromEntries(
    Object.entries(opts).filter(([k, v]) => typeof v !== 'function' && k !== 'signal' && k !== 'env'),
  ) as LoadOptions;
  // The blob limit the environment sets is decided here, where the environment is known.
  return { ...plain, maxBlobBytes: opts.maxBlobBytes ?? maxBlobBytes(opts.env) };
}

/**
 * Run `run` over `files` on this thread and `threads - 1` workers of `m` (which serve claims with
 * the same function, util/claim.ts); results are in the order of `files`. Largest files are claimed
 * first, so the last file to finish is a short one. Rejects when `run` throws for a file, here or
 * in a worker (with the same error): no thread then claims another file. When `signal` fires, the
 * workers are terminated and the promise rejects with its reason once they are gone.
 */
export async function mapFilesInWorkers<D, R extends object>(
  files: readonly WalkedFile[],
  threads: number,
  m: WorkerModule,
  data: D,
  run: (f: WalkedFile, data: D) => Promise<R>,
  signal?: AbortSignal,
): Promise<R[]> {
  throwIfAborted(signal);
  const order = [...files].sort((a, b) => b.size - a.size);
  const done = await mapClaims(m, order, data, threads, run, signal);
  const byFile = new Map(order.map((f, i) => [f, done[i]]));
  return files.map((f) => byFile.get(f) as R);
}

/**
 * Load `files` on this thread and `threads - 1` workers; results are in the order of `files`. Stops
 * when `opts.signal` fires (mapFilesInWorkers).
 */
export function loadFilesInWorkers(
  files: readonly WalkedFile[],
  opts: LoadOptions,
  threads: number,
): Promise<LoadResult[]> {
  return mapFilesInWorkers(
    files,
    threads,
    LOAD_WORKER,
    plainOptions(opts),
    (f) => loadFile(f, opts),
    opts.signal,
  );
}
