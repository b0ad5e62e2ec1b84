/**
 * The garbage a catalog's loading leaves behind. Loading a large catalog (its files parsed, its
 * payloads read and let go) leaves the old generation several times larger than what stays live,
 * and V8 collects it only when it next needs old space, or when its memory reducer sees the process
 * idle, seconds later. A server that is about to idle between calls would hold that memory for the
 * first stretch of its life, which is when a catalog pod's memory is watched. One full collection
 * once the server listens returns it at once. The collection compacts the old generation: the live
 * objects of a load are spread over every page it filled, so a collection that only frees leaves
 * the pages (and the resident memory) where they were.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

/** Below this heap size, what a collection would return is not worth its pause. */
const COLLECT_ABOVE_BYTES = 64 * 1024 * 1024;

let collect: (() => void) | undefined;

/** V8's full collection, made callable for this once and the flag set back. */
function fullCollection(): () => void {
  if (collect !== undefined) return collect;
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === 'function') return (collect = exposed);
  // The flag is put back at once: V8's code caches are stamped with its flags.
  v8.setFlagsFromString('--expose-gc');
  try {
    collect = vm.runInNewContext('gc') as () => void;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
  return collect;
}

/**
 * Collect and compact the old generation when the heap is large enough for it to matter, or
 * whatever its size when `leftGarbage` (the load let go of most of what it read: its payloads were
 * left on disk). Returns whether it did.
 */
export function releaseLoadGarbage(leftGarbage = false): boolean {
  if (!leftGarbage && v8.getHeapStatistics().total_heap_size < COLLECT_ABOVE_BYTES) return false;
  // Set back at once, as above.
  v8.setFlagsFromString('--compact-on-every-full-gc');
  try {
    fullCollection()();
  } finally {
    v8.setFlagsFromString('--no-compact-on-every-full-gc');
  }
  return true;
}
