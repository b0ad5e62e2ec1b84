/**
 * The garbage a catalog's loading leaves behind. Loading a large catalog (its files parsed, its
 * payloads read and let go) leaves the old generation several times larger than what stays live,
 * and V8 collects it only when it next needs old space. A server that is about to idle between
 * calls would hold that memory for the first stretch of its life, which is when a catalog pod's
 * memory is watched. One full collection once the server listens returns it at once.
 *
 * Node.js offers that collection to JavaScript only when started with `--expose-gc`, a flag of its
 * command line (or NODE_OPTIONS) that opm does not set, so that every start of `opm` is the same
 * (bin/opm.js): a catalog pod serving a catalog of hundreds of megabytes can set
 * `NODE_OPTIONS=--expose-gc` (docs/performance.md, "Start-up"). Otherwise nothing is collected here.
 */
import v8 from 'node:v8';

/** Below this heap size, what a collection would return is not worth its pause. */
const COLLECT_ABOVE_BYTES = 64 * 1024 * 1024;

/**
 * Collect when Node.js exposes the collection and the heap is large enough for it to matter, or
 * whatever its size when `leftGarbage` (the load let go of most of what it read: its payloads were
 * left on disk). Returns whether it did.
 */
export function releaseLoadGarbage(leftGarbage = false): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== 'function') return false;
  if (!leftGarbage && v8.getHeapStatistics().total_heap_size < COLLECT_ABOVE_BYTES) return false;
  gc();
  return true;
}
