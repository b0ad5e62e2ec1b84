import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { releaseLoadGarbage } from './heap.js';

const MiB = 1024 * 1024;

describe('releaseLoadGarbage', () => {
  it('collects what a load let go of once the heap is large, and leaves gc unexposed', () => {
    // About 100 MB of objects, then let go of, as a catalog's parse lets go of its text.
    let garbage: unknown[] | undefined = [];
    for (let i = 0; i < 400; i++) garbage.push(new Array<number>(32_768).fill(i));
    expect(v8.getHeapStatistics().total_heap_size).toBeGreaterThan(64 * MiB);
    garbage = undefined;
    const before = v8.getHeapStatistics().used_heap_size;
    expect(releaseLoadGarbage()).toBe(true);
    expect(v8.getHeapStatistics().used_heap_size).toBeLessThan(before - 64 * MiB);
    expect(garbage).toBeUndefined();
    // The flags that exposed the collection and made it compact are set back: a new context has
    // no gc.
    expect(vm.runInNewContext('typeof gc')).toBe('undefined');
  });

  it('compacts: pages where a little stayed live among much garbage go back', () => {
    // Small objects, one in eight kept, as a model's values stay among a parse's garbage: every
    // page keeps something live, so only moving the survivors frees pages.
    const kept: { i: number; s: string }[] = [];
    let all: { i: number; s: string }[] | undefined = [];
    for (let i = 0; i < 600_000; i++) {
      const o = { i, s: `value ${i}` };
      all.push(o);
      if (i % 8 === 0) kept.push(o);
    }
    all = undefined;
    expect(releaseLoadGarbage(true)).toBe(true);
    const old = (): number =>
      v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')?.space_size ?? NaN;
    const after = old();
    // What is live in old space now, measured the same way: the compacted space is close to it.
    const used =
      v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')?.space_used_size ?? NaN;
    expect(after).toBeLessThan(used * 1.5 + 4 * MiB);
    expect(kept).toHaveLength(75_000);
    expect(all).toBeUndefined();
  });

  it('collects a small heap only when the load says it let go of most of what it read', () => {
    releaseLoadGarbage(true);
    expect(v8.getHeapStatistics().total_heap_size).toBeLessThan(64 * MiB);
    expect(releaseLoadGarbage()).toBe(false);
    expect(releaseLoadGarbage(true)).toBe(true);
  });
});
