import v8 from 'node:v8';
import vm from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { releaseLoadGarbage } from './heap.js';

const MiB = 1024 * 1024;

/** V8's full collection, as `node --expose-gc` gives it to the process (set up here for the test). */
function exposeGc(): void {
  v8.setFlagsFromString('--expose-gc');
  (globalThis as { gc?: unknown }).gc = vm.runInNewContext('gc');
  v8.setFlagsFromString('--no-expose-gc');
}

afterEach(() => {
  delete (globalThis as { gc?: unknown }).gc;
});

describe('releaseLoadGarbage', () => {
  it('sets no V8 flag and collects nothing unless Node.js exposes the collection', () => {
    expect(typeof (globalThis as { gc?: unknown }).gc).toBe('undefined');
    expect(releaseLoadGarbage()).toBe(false);
    expect(releaseLoadGarbage(true)).toBe(false);
    // Nothing was exposed on the way: a new context has no gc either.
    expect(vm.runInNewContext('typeof gc')).toBe('undefined');
  });

  it('with the collection exposed, collects what a load let go of once the heap is large', () => {
    exposeGc();
    // About 100 MB of objects, then let go of, as a catalog's parse lets go of its text.
    let garbage: unknown[] | undefined = [];
    for (let i = 0; i < 400; i++) garbage.push(new Array<number>(32_768).fill(i));
    expect(v8.getHeapStatistics().total_heap_size).toBeGreaterThan(64 * MiB);
    garbage = undefined;
    const before = v8.getHeapStatistics().used_heap_size;
    expect(releaseLoadGarbage()).toBe(true);
    expect(v8.getHeapStatistics().used_heap_size).toBeLessThan(before - 64 * MiB);
    expect(garbage).toBeUndefined();
  });

  it('with the collection exposed, collects a small heap only when the load let go of most of what it read', () => {
    exposeGc();
    releaseLoadGarbage(true);
    expect(v8.getHeapStatistics().total_heap_size).toBeLessThan(64 * MiB);
    expect(releaseLoadGarbage()).toBe(false);
    expect(releaseLoadGarbage(true)).toBe(true);
  });
});
