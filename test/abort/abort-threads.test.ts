/**
 * Cancellation on worker threads: a load, a render and a validation of a generated catalog on two
 * threads, aborted once this thread has handled its first files, reject with the signal's reason,
 * and every worker they started has exited by then.
 */
import { rmSync } from 'node:fs';
import type * as WorkerThreads from 'node:worker_threads';
import type { Worker as WorkerType } from 'node:worker_threads';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderOutput, RENDER_WORKER } from '../../src/action/render/render-output.js';
import { validateCatalog } from '../../src/action/validate/validate.js';
import { loadCatalogDir } from '../../src/declcfg/load.js';
import { LOAD_WORKER } from '../../src/declcfg/load-pool.js';
import { VALIDATE_WORKER } from '../../src/action/validate/validate-shards.js';
import { canStartWorker } from '../../src/util/worker-pool.js';
import { generateCatalog, signalFiringAt } from './generated.js';

const workers = vi.hoisted(() => ({ started: [] as WorkerType[], exited: new Set<WorkerType>() }));

// Every worker the code starts is recorded, and its exit.
vi.mock('node:worker_threads', async (importOriginal) => {
  const real = await importOriginal<typeof WorkerThreads>();
  class RecordedWorker extends real.Worker {
    constructor(...args: ConstructorParameters<typeof real.Worker>) {
      super(...args);
      workers.started.push(this);
      this.once('exit', () => workers.exited.add(this));
    }
  }
  return { ...real, Worker: RecordedWorker, default: { ...real, Worker: RecordedWorker } };
});

let root: string;
let catalog: string;

beforeAll(async () => {
  for (const m of [LOAD_WORKER, RENDER_WORKER, VALIDATE_WORKER])
    if (!canStartWorker(m)) throw new Error(`the ${m.name} worker cannot start`);
  ({ root, catalog } = generateCatalog(400, 30));
  // The workers' code is made once per process (from the sources, bundled): made here, so that a
  // worker starts while this thread still has most of the catalog to do.
  await loadCatalogDir(catalog, { threads: 2, workerMinBytes: 0 });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
beforeEach(() => {
  workers.started.length = 0;
  workers.exited.clear();
});

/**
 * `work` aborted at look `fireAt` (a few looks into this thread's share of the files) or, when no
 * worker has started by then, at the first look after one has (workers start while this thread
 * works): it rejects with the reason, having looked only a few times more, and every worker it
 * started is gone.
 */
async function expectAbortedWithWorkersGone(
  fireAt: number,
  work: (signal: AbortSignal) => Promise<unknown>,
): Promise<void> {
  const s = signalFiringAt(fireAt, undefined, () => workers.started.length > 0);
  await expect(work(s.signal)).rejects.toBe(s.reason);
  const firedAt = s.firedAt();
  expect(firedAt).toBeGreaterThanOrEqual(fireAt);
  expect(s.looks() - (firedAt ?? 0)).toBeLessThanOrEqual(4);
  expect(workers.started.length).toBeGreaterThan(0);
  expect(workers.started.filter((w) => !workers.exited.has(w))).toEqual([]);
}

describe('aborting work on worker threads', () => {
  // Looks: the load's own, the walk's (one folder), the pool's, then one per file of this thread.
  it('a catalog load', async () => {
    await expectAbortedWithWorkersGone(5, (signal) =>
      loadCatalogDir(catalog, { threads: 2, workerMinBytes: 0, signal }),
    );
  });

  // Looks: the walk's, the pool's, then one per file of this thread.
  it('a render file by file', async () => {
    await expectAbortedWithWorkersGone(4, (signal) =>
      renderOutput({ refs: [catalog], threads: 2, parallelMinBytes: 0, signal }, 'json'),
    );
  });

  // Looks: the validation's, the walk's, the shards', then one per file of this thread's shard.
  it('a validation in shards', async () => {
    await expectAbortedWithWorkersGone(5, (signal) =>
      validateCatalog(catalog, { threads: 2, shardMinBytes: 0, signal }),
    );
  });

  it('runs to the end with a signal that does not fire, as without one', async () => {
    const plain = await validateCatalog(catalog, { threads: 2, shardMinBytes: 0 });
    const s = signalFiringAt(Number.POSITIVE_INFINITY);
    expect(await validateCatalog(catalog, { threads: 2, shardMinBytes: 0, signal: s.signal })).toStrictEqual(
      plain,
    );
    expect(workers.started.length).toBeGreaterThan(0);
  });
});
