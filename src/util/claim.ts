/**
 * Work shared out between threads by one counter: each thread takes the next item of a list every
 * thread knows, so none waits for another to hand it work.
 */

/** Claim the next of `count` items from `next` (one Int32 over a SharedArrayBuffer), or -1 when all are taken. */
export function claim(next: Int32Array, count: number): number {
  const i = Atomics.add(next, 0, 1);
  return i < count ? i : -1;
}
