/**
 * Worker threads, started in one place. A use case registers its worker module (`workerModule`,
 * by URL beside its own module) and runs it in a `WorkerPool`; this module alone knows where a
 * worker's code is:
 * - built (the bundle dist/opm.cjs, or the compiled dist/util/worker-pool.js of the library), a
 *   worker runs its own bundle, dist/<name>.cjs (scripts/bundle.js writes one per worker), so it
 *   starts without the code of the command line;
 * - from sources (vitest, tsx: this module's URL ends in `.ts`), a worker's `.ts` module and what it
 *   imports are bundled in memory by esbuild, as the build bundles them, once per process, and each
 *   worker evaluates that code: a worker then starts as fast as from dist/, and the threaded paths
 *   are tested from the sources as they run from the build.
 * When neither is there (a build without its worker bundles), `canStartWorker` says so and the use
 * case does the work in the calling thread.
 *
 * A pool runs at most `size` workers at once; a worker's failure reaches the caller as the error
 * the same code throws in the calling thread (util/claim.ts sends it as data); `terminate` stops
 * every worker of the pool at once.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { TransferListItem, Worker } from 'node:worker_threads';
import { InternalError, OpmError, UsageError, type OpmErrorCode } from '../errors.js';
import { Checkpoint } from './abort.js';
import {
  claim,
  isFailureReply,
  stopClaims,
  type ClaimReply,
  type ClaimWork,
  type SentError,
} from './claim.js';

/** A worker thread's module, as the use case that runs it registers it. */
export interface WorkerModule {
  /** Its name: the module's file name without extension, and its bundle's (dist/<name>.cjs). */
  readonly name: string;
  /** Its module's URL beside the module registering it (`.js`; the `.ts` file from sources). */
  readonly url: string;
}

/**
 * Register a worker module by its URL relative to the registering module, e.g.
 * `workerModule(new URL('./render-worker.js', import.meta.url))`: the name its bundle has in dist/
 * is taken from it, and from sources the `.ts` file beside it runs.
 */
export function workerModule(url: URL): WorkerModule {
  const name = path.posix.basename(url.pathname).replace(/\.[cm]?[jt]s$/, '');
  return { name, url: url.href };
}

/** How a worker starts: its bundle in dist/, or (from sources) its source, bundled when first started. */
type WorkerStart = { script: string } | { source: string; esbuild: string };

const here = fileURLToPath(import.meta.url);
const fromSources = here.endsWith('.ts');
const starts = new Map<string, WorkerStart | null>();

function findStart(m: WorkerModule): WorkerStart | null {
  if (fromSources) {
    const source = fileURLToPath(m.url).replace(/\.js$/, '.ts');
    if (!existsSync(source)) return null;
    try {
      return { source, esbuild: pathToFileURL(createRequire(here).resolve('esbuild')).href };
    } catch {
      return null; // esbuild is a development dependency: absent where only dist/ is installed
    }
  }
  // The bundle is dist/opm.cjs; the compiled module dist/util/worker-pool.js.
  const dir = path.dirname(here);
  for (const candidate of [path.join(dir, `${m.name}.cjs`), path.join(path.dirname(dir), `${m.name}.cjs`)]) {
    if (existsSync(candidate)) return { script: candidate };
  }
  return null;
}

function startOf(m: WorkerModule): WorkerStart | null {
  let start = starts.get(m.url);
  if (start === undefined) {
    start = findStart(m);
    starts.set(m.url, start);
  }
  return start;
}

/** Worker code bundled from sources, by source file: once per process. */
const sourceBundles = new Map<string, Promise<string>>();

interface Esbuild {
  build(options: Record<string, unknown>): Promise<{ outputFiles: { text: string }[] }>;
}

/**
 * A worker's source and what it imports bundled as scripts/bundle.js bundles it for dist/, in
 * memory: CommonJS, evaluated by the new thread. Its modules see the source's URL as theirs (as the
 * bundle's modules see the bundle's), which is where they look for the package's files from.
 */
function bundleSource(start: { source: string; esbuild: string }): Promise<string> {
  let code = sourceBundles.get(start.source);
  if (code === undefined) {
    code = (import(start.esbuild) as Promise<Esbuild>)
      .then((esbuild) =>
        esbuild.build({
          entryPoints: [start.source],
          bundle: true,
          write: false,
          format: 'cjs',
          platform: 'node',
          target: 'node20',
          external: ['ajv', 'ajv/*'],
          define: { 'import.meta.url': JSON.stringify(pathToFileURL(start.source).href) },
          logLevel: 'silent',
        }),
      )
      .then((out) => out.outputFiles.map((f) => f.text).join(''));
    sourceBundles.set(start.source, code);
  }
  return code;
}

/**
 * Whether workers of `m` can start here: its bundle is in dist/ (built), or its source and the
 * compiler are there (from sources). When not, the work stays in the calling thread.
 */
export function canStartWorker(m: WorkerModule): boolean {
  return startOf(m) !== null;
}

/**
 * The error a worker's failure stands for, made again in this thread: its family's class (an
 * OpmError is an OpmError here too: the command line says it in one line), name, message, position,
 * hint and code.
 */
function receivedError(sent: SentError): Error {
  const opts = {
    ...(sent.hint === undefined ? {} : { hint: sent.hint }),
    ...(sent.at === undefined ? {} : { at: sent.at }),
    ...(sent.code === undefined ? {} : { code: sent.code as OpmErrorCode }),
  };
  let err: Error;
  if (sent.family === 'UsageError') err = new UsageError(sent.message, opts);
  else if (sent.family === 'OpmError') err = new OpmError(sent.message, opts);
  else if (sent.family === 'InternalError') err = new InternalError(sent.message);
  else {
    err = new Error(sent.message);
    if (sent.code !== undefined) Object.assign(err, { code: sent.code });
  }
  // A subclass of the family (CatalogDirError, say) keeps its name.
  err.name = sent.name;
  if (sent.stack !== undefined) err.stack = sent.stack;
  return err;
}

/** One worker of a pool, seen from the thread that started it. */
export interface PoolWorker<M> {
  /**
   * The worker's next message; undefined once it has ended (exit code 0) with nothing more to
   * say. Rejects with the worker's error when it failed (a failure reply, an uncaught exception,
   * a start that failed, another exit code) or the pool was terminated.
   */
  next(): Promise<M | undefined>;
  /** Send the worker a message. */
  post(msg: unknown, transfer?: readonly TransferListItem[]): void;
}

class StartedWorker<M> implements PoolWorker<M> {
  private readonly queue: M[] = [];
  private readonly waiting: { resolve(m: M | undefined): void; reject(err: Error): void }[] = [];
  private failure: Error | undefined;
  private ended = false;
  readonly exited: Promise<void>;

  readonly worker: Worker;

  constructor(worker: Worker, name: string) {
    this.worker = worker;
    worker.on('message', (msg: unknown) => {
      if (isFailureReply(msg)) this.fail(receivedError(msg.error));
      else {
        const w = this.waiting.shift();
        if (w === undefined) this.queue.push(msg as M);
        else w.resolve(msg as M);
      }
    });
    worker.on('messageerror', (err) => this.fail(err));
    worker.on('error', (err) => this.fail(err));
    this.exited = new Promise((resolve) => {
      worker.once('exit', (code) => {
        if (code !== 0) this.fail(new Error(`the ${name} thread stopped (exit code ${code})`));
        this.ended = true;
        for (const w of this.waiting.splice(0)) {
          if (this.failure === undefined) w.resolve(undefined);
          else w.reject(this.failure);
        }
        resolve();
      });
    });
  }

  fail(err: Error): void {
    this.failure ??= err;
    for (const w of this.waiting.splice(0)) w.reject(this.failure);
  }

  next(): Promise<M | undefined> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const queued = this.queue.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.ended) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  post(msg: unknown, transfer?: readonly TransferListItem[]): void {
    if (!this.ended) this.worker.postMessage(msg, transfer);
  }
}

/**
 * Worker threads of one piece of work: at most `size` run at once (a start waits for a place),
 * and `terminate` stops them all.
 */
export class WorkerPool {
  readonly size: number;
  private readonly live = new Set<StartedWorker<unknown>>();
  private readonly waiting: (() => void)[] = [];
  private stopped: Error | undefined;

  constructor(size: number) {
    this.size = Math.max(1, Math.floor(size));
  }

  /** A method, not an inline check: the pool may stop while start() waits. */
  private throwIfStopped(): void {
    if (this.stopped !== undefined) throw this.stopped;
  }

  /**
   * Start a worker of `m` with `data` as its workerData, once fewer than `size` run. Rejects when
   * the pool is terminated or `m` cannot start here (see canStartWorker).
   */
  async start<M>(m: WorkerModule, data: unknown): Promise<PoolWorker<M>> {
    while (this.stopped === undefined && this.live.size >= this.size)
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.throwIfStopped();
    const how = startOf(m);
    if (how === null) throw new Error(`the ${m.name} worker cannot start: its code is missing`);
    // Loaded here, not with this module: most commands never start a worker.
    const { Worker: WorkerClass } = await import('node:worker_threads');
    this.throwIfStopped();
    const code = 'source' in how ? await bundleSource(how) : undefined;
    this.throwIfStopped();
    const worker =
      'script' in how
        ? new WorkerClass(how.script, { workerData: data })
        : new WorkerClass(code ?? '', { eval: true, workerData: data });
    const started = new StartedWorker<M>(worker, m.name);
    this.live.add(started);
    void started.exited.then(() => {
      this.live.delete(started);
      this.waiting.shift()?.();
    });
    return started;
  }

  /**
   * Stop every worker of the pool now; their pending and later `next()` calls, and later starts,
   * reject with `reason` (by default an Error saying the pool was terminated). Resolves once all
   * have exited.
   */
  async terminate(reason?: unknown): Promise<void> {
    this.stopped ??=
      reason instanceof Error
        ? reason
        : new Error(reason === undefined ? 'the worker pool was terminated' : String(reason));
    for (const w of this.waiting.splice(0)) w();
    const live = [...this.live];
    for (const w of live) w.fail(this.stopped);
    await Promise.all(live.map(async (w) => Promise.all([w.worker.terminate(), w.exited])));
  }
}

/**
 * Run `run` over `items` on this thread and `threads - 1` workers of `m` (each serving claims with
 * the same function, serveClaims in util/claim.ts): every thread claims the next item from one
 * shared counter, so none waits for another to hand it work. Results are in the order of `items`.
 * Rejects when `run` throws for an item, here or in a worker (as the same error): no thread then
 * claims another item, and the workers are stopped. When `signal` fires, no thread claims another
 * item, the workers are terminated, and the promise rejects with the signal's reason once they are
 * gone (util/abort.ts).
 */
export async function mapClaims<T, D, R>(
  m: WorkerModule,
  items: readonly T[],
  data: D,
  threads: number,
  run: (item: T, data: D) => Promise<R>,
  signal?: AbortSignal,
): Promise<R[]> {
  const results = new Array<R | undefined>(items.length);
  const shared = new SharedArrayBuffer(4);
  const next = new Int32Array(shared);
  const work: ClaimWork<T, D> = { items: [...items], next: shared, data };
  const workerCount = Math.min(threads, items.length) - 1;
  const pool = new WorkerPool(Math.max(1, workerCount));
  // An Error, or the signal's reason (any value), which is thrown as it is.
  // Set by fail(), which the workers' callbacks call too: not narrowed to its first value.
  let failed = false as boolean;
  let failure: unknown;
  const fail = (err: unknown): void => {
    // A failing item ends every thread's claims, and the workers are not waited for.
    stopClaims(next, items.length);
    if (!failed) {
      failed = true;
      failure =
        signal?.aborted === true ? signal.reason : err instanceof Error ? err : new Error(String(err));
    }
    void pool.terminate(failure);
  };
  const onAbort = (): void => fail(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  const hear = async (w: PoolWorker<ClaimReply<R>>): Promise<void> => {
    for (let r = await w.next(); r !== undefined; r = await w.next()) if (r.ok) results[r.index] = r.result;
  };
  const starting = Array.from({ length: Math.max(0, workerCount) }, () => pool.start<ClaimReply<R>>(m, work));
  const workers = starting.map((started) => started.then(hear).catch(fail));
  const checkpoint = new Checkpoint(signal);
  try {
    // The workers' threads are made before this thread takes its first item: start() makes one
    // after an await, which would otherwise come only once that item, the largest, is done.
    await Promise.allSettled(starting);
    // This thread takes its share too; a worker's results are received between two of its items.
    for (let i = claim(next, items.length); i !== -1 && !failed; i = claim(next, items.length)) {
      try {
        await checkpoint.pass();
        results[i] = await run(items[i] as T, data);
      } catch (err) {
        fail(err);
      }
    }
    await Promise.all(workers);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (failed) await pool.terminate(failure);
  }
  if (failed) throw failure;
  const missing = results.findIndex((r) => r === undefined);
  if (missing !== -1) throw new Error(`no result for item ${missing}`);
  return results as R[];
}
