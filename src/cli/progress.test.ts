// Progress off a terminal: which lines the events make, with the clock driven by the test (a line
// depends on whether work lasted a second, so the clock is the test's, not the machine's).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { phase, type ProgressEvent } from '../util/progress.js';
import { SHOW_AFTER_MS, lineProgress } from './progress.js';
import { ProgressModel, humanBytes, rate } from './progress-model.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function lines(): { out: string[]; send: (e: ProgressEvent) => void; end: () => void } {
  const out: string[] = [];
  const p = lineProgress((l) => out.push(l));
  return { out, send: p.onProgress, end: p.end };
}

const KIB = 1024;

describe('lines off a terminal', () => {
  it('an image pulled over a second: a line when a second has passed and one at its end, numbered of the total', () => {
    const { out, send } = lines();
    send({ type: 'images', total: 2 });
    send({ type: 'image-start', id: 7, ref: 'example.com/a:1' });
    send({ type: 'image-bytes', id: 7, ref: 'example.com/a:1', done: 0, total: 300 * KIB });
    expect(out).toEqual([]);
    vi.advanceTimersByTime(SHOW_AFTER_MS);
    expect(out).toEqual(['pulling image 1/2 example.com/a:1']);
    vi.advanceTimersByTime(1500);
    send({
      type: 'image-done',
      id: 7,
      ref: 'example.com/a:1',
      bytes: 300 * KIB,
      fetched: 300 * KIB,
      ms: 2500,
    });
    expect(out).toEqual([
      'pulling image 1/2 example.com/a:1',
      'pulled image 1/2 example.com/a:1: 300.0 KiB in 2.5 s',
    ]);
  });

  it('images within a second: nothing at all', () => {
    const { out, send } = lines();
    send({ type: 'images', total: 1 });
    send({ type: 'image-start', id: 1, ref: 'example.com/a:1' });
    vi.advanceTimersByTime(SHOW_AFTER_MS - 1);
    send({
      type: 'image-done',
      id: 1,
      ref: 'example.com/a:1',
      bytes: 10,
      fetched: 10,
      ms: SHOW_AFTER_MS - 1,
    });
    vi.advanceTimersByTime(10 * SHOW_AFTER_MS);
    expect(out).toEqual([]);
  });

  it('an image from the cache says so; without a total, the number stands alone', () => {
    const { out, send } = lines();
    send({ type: 'image-start', id: 1, ref: 'example.com/a:1' });
    vi.advanceTimersByTime(SHOW_AFTER_MS);
    send({ type: 'image-done', id: 1, ref: 'example.com/a:1', bytes: 2 * KIB * KIB, fetched: 0, ms: 1200 });
    expect(out).toEqual([
      'pulling image 1 example.com/a:1',
      'pulled image 1 example.com/a:1: 2.0 MiB, from the cache in 1.2 s',
    ]);
  });

  it('a failed pull: a line only when its start was said (the error line says the rest)', () => {
    const { out, send } = lines();
    send({ type: 'image-start', id: 1, ref: 'example.com/quick:1' });
    send({ type: 'image-failed', id: 1, ref: 'example.com/quick:1', ms: 20 });
    send({ type: 'image-start', id: 2, ref: 'example.com/slow:1' });
    vi.advanceTimersByTime(SHOW_AFTER_MS);
    send({ type: 'image-failed', id: 2, ref: 'example.com/slow:1', ms: 3000 });
    expect(out).toEqual([
      'pulling image 2 example.com/slow:1',
      'image 2 example.com/slow:1 failed after 3.0 s',
    ]);
  });

  it('a phase: start and end lines past a second; the end alone when the work held the thread', async () => {
    const { out, send } = lines();
    const long = phase(send, 'loading catalog big/', async () => {
      await vi.advanceTimersByTimeAsync(2000);
      return 1;
    });
    await expect(long).resolves.toBe(1);
    expect(out).toEqual(['loading catalog big/...', 'loading catalog big/: done in 2.0 s']);
    out.length = 0;
    // Synchronous work: the start line's timer cannot run before the end.
    send({ type: 'phase-start', id: 900, name: 'comparing catalogs' });
    send({ type: 'phase-end', id: 900, name: 'comparing catalogs', ms: 1500, ok: true });
    send({ type: 'phase-start', id: 901, name: 'filtering catalog' });
    send({ type: 'phase-end', id: 901, name: 'filtering catalog', ms: 10, ok: true });
    vi.advanceTimersByTime(5000);
    expect(out).toEqual(['comparing catalogs: done in 1.5 s']);
  });

  it('a failed phase after its start was said', async () => {
    const { out, send } = lines();
    const failing = phase(send, 'writing out/', async () => {
      await vi.advanceTimersByTimeAsync(1100);
      throw new Error('disk full');
    });
    await expect(failing).rejects.toThrow('disk full');
    expect(out).toEqual(['writing out/...', 'writing out/: failed after 1.1 s']);
  });

  it('end stops the timers of work still under way', () => {
    const { out, send, end } = lines();
    send({ type: 'image-start', id: 1, ref: 'example.com/a:1' });
    end();
    vi.advanceTimersByTime(5000);
    expect(out).toEqual([]);
  });
});

describe('the model the terminal display reads', () => {
  it('counts images begun and finished, and the rate over recent readings', () => {
    const m = new ProgressModel();
    m.apply({ type: 'images', total: 3 }, 0);
    m.apply({ type: 'image-start', id: 1, ref: 'a' }, 0);
    m.apply({ type: 'image-start', id: 2, ref: 'b' }, 0);
    m.apply({ type: 'image-bytes', id: 1, ref: 'a', done: 100 * KIB, total: 400 * KIB }, 1000);
    m.apply({ type: 'image-bytes', id: 1, ref: 'a', done: 200 * KIB, total: 400 * KIB }, 2000);
    const a = m.images.get(1);
    if (a === undefined) throw new Error('image a not under way');
    expect(a.index).toBe(1);
    expect(m.ofTotal(a.index)).toBe('1/3');
    expect(humanBytes(rate(a))).toBe('100.0 KiB');
    // Readings older than a few seconds leave the rate.
    m.apply({ type: 'image-bytes', id: 1, ref: 'a', done: 210 * KIB, total: 400 * KIB }, 6000);
    expect(rate(a)).toBeLessThan(100 * KIB);
    m.apply({ type: 'image-done', id: 2, ref: 'b', bytes: 1, fetched: 1, ms: 1 }, 6000);
    expect([m.began, m.finished, m.images.size]).toEqual([2, 1, 1]);
  });
});
