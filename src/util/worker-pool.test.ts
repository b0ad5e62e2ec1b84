/**
 * The worker pool run from sources: a worker's module is the `.ts` file itself (test/worker-pool/),
 * started through the source hooks; built, the use cases' workers run their bundles (the `built`
 * project's tests of loading, validating and rendering on threads).
 */
import { describe, expect, it } from 'vitest';
import { double } from '../../test/worker-pool/double.js';
import { workersStartedBy } from '../../test/worker-pool/workers-started.js';
import { OpmError } from '../errors.js';
import { canStartWorker, mapClaims, WorkerPool, workerModule } from './worker-pool.js';

const testWorker = workerModule(new URL('../../test/worker-pool/test-worker.js', import.meta.url));
const missingWorker = workerModule(new URL('../../test/worker-pool/no-such-worker.js', import.meta.url));

/** The error `run` throws, to compare with what a worker's failure becomes. */
function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (err) {
    return err;
  }
  throw new Error('nothing thrown');
}

describe('worker pool', () => {
  it('starts a worker from its TypeScript source, and knows one that is not there', () => {
    expect(testWorker.name).toBe('test-worker');
    expect(canStartWorker(testWorker)).toBe(true);
    expect(canStartWorker(missingWorker)).toBe(false);
  });

  it('maps items over this thread and workers, results in item order', async () => {
    const items = Array.from({ length: 40 }, (_, i) => i);
    const { result, started } = await workersStartedBy(() =>
      mapClaims(testWorker, items, { mode: 'claims' }, 3, (n) => Promise.resolve(double(n))),
    );
    expect(result).toStrictEqual(items.map(double));
    expect(started).toBe(2);
    // One thread: no worker.
    const alone = await workersStartedBy(() =>
      mapClaims(testWorker, items, { mode: 'claims' }, 1, (n) => Promise.resolve(double(n))),
    );
    expect(alone).toStrictEqual({ result: items.map(double), started: 0 });
  });

  it("rejects a map with the error an item's run throws, wherever it ran", async () => {
    const items = [1, 2, 3, -1, 4, 5, 6, 7];
    const inThread = thrownBy(() => items.map(double));
    expect(inThread).toBeInstanceOf(OpmError);
    await expect(
      mapClaims(testWorker, items, { mode: 'claims' }, 3, (n) => Promise.resolve(double(n))),
    ).rejects.toStrictEqual(inThread);
  });

  it("turns a worker's failure into the error thrown in this thread: class, message, position, hint", async () => {
    const pool = new WorkerPool(1);
    const w = await pool.start(testWorker, { mode: 'fail' });
    const err = await w.next().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(OpmError);
    expect(err).toStrictEqual(thrownBy(() => double(-1)));
    expect((err as OpmError).at).toStrictEqual({ file: 'numbers.yaml', line: 3 });
    expect((err as OpmError).hint).toBe('use 0 or more');
  });

  it('keeps the name of an OpmError of a class of its own, and makes it an OpmError', async () => {
    const pool = new WorkerPool(1);
    const w = await pool.start(testWorker, { mode: 'fail-subclass' });
    const err = await w.next().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(OpmError);
    expect(err).toMatchObject({ name: 'NotAnInteger', message: '1.5 is not an integer', hint: 'round it' });
  });

  it('rejects with the uncaught error of a worker, and when a worker cannot start', async () => {
    const pool = new WorkerPool(2);
    const w = await pool.start(testWorker, { mode: 'throw' });
    await expect(w.next()).rejects.toThrow('a worker that throws');
    await expect(pool.start(missingWorker, {})).rejects.toThrow(/no-such-worker worker cannot start/);
  });

  it('runs at most `size` workers at once, the next starting when one ends', async () => {
    const pool = new WorkerPool(1);
    const first = await pool.start<string>(testWorker, { mode: 'echo' });
    expect(await first.next()).toBe('ready');
    let secondStarted = false;
    const second = pool.start<string>(testWorker, { mode: 'echo' }).then((w) => {
      secondStarted = true;
      return w;
    });
    first.post('ping');
    expect(await first.next()).toBe('ping');
    // The first still runs: the second waits for its place.
    expect(secondStarted).toBe(false);
    first.post(null);
    expect(await first.next()).toBeUndefined();
    const w = await second;
    expect(await w.next()).toBe('ready');
    w.post(null);
    expect(await w.next()).toBeUndefined();
  });

  it('terminates every worker at once: what waits for them rejects, with the reason given', async () => {
    const pool = new WorkerPool(2);
    const a = await pool.start<string>(testWorker, { mode: 'echo' });
    const b = await pool.start<string>(testWorker, { mode: 'echo' });
    expect([await a.next(), await b.next()]).toEqual(['ready', 'ready']);
    const waiting = a.next().then(
      () => undefined,
      (e: unknown) => e,
    );
    const reason = new Error('stopped by the caller');
    await pool.terminate(reason);
    expect(await waiting).toBe(reason);
    await expect(b.next()).rejects.toBe(reason);
    await expect(pool.start(testWorker, { mode: 'echo' })).rejects.toBe(reason);
  });
});
