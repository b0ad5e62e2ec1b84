import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { releaseLoadGarbage } from './heap.js';

describe('releaseLoadGarbage', () => {
  it('collects what a load let go of once the heap is large, and leaves gc unexposed', () => {
    // About 100 MB of objects, then let go of, as a catalog's parse lets go of its text.
    let garbage: unknown[] | undefined = [];
    for (let i = 0; i < 400; i++) garbage.push(new Array<number>(32_768).fill(i));
    expect(v8.getHeapStatistics().total_heap_size).toBeGreaterThan(64 * 1024 * 1024);
    garbage = undefined;
    const before = v8.getHeapStatistics().used_heap_size;
    expect(releaseLoadGarbage()).toBe(true);
    expect(v8.getHeapStatistics().used_heap_size).toBeLessThan(before - 64 * 1024 * 1024);
    expect(garbage).toBeUndefined();
    // The flag that exposed the collection is set back: a new context has no gc.
    expect(vm.runInNewContext('typeof gc')).toBe('undefined');
  });
});
