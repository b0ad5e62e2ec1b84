/**
 * Progress of long work, reported as data. The core (use cases, the registry client) calls an
 * optional `onProgress` with these events and never prints; the command line turns them into a live
 * display on a terminal or into start and end lines in a log.
 */

/** One event of progress. `id` tells apart images (or phases) that run at the same time. */
export type ProgressEvent =
  /** The work is about to pull `total` images (its count of `image-start` events to come). */
  | { type: 'images'; total: number }
  /** A pull began. */
  | { type: 'image-start'; id: number; ref: string }
  /**
   * Bytes of a pull's blobs now in hand, of `total` (the image's config and layers); blobs found in
   * the cache count as soon as they are found.
   */
  | { type: 'image-bytes'; id: number; ref: string; done: number; total: number }
  /** A pull ended: `bytes` in the image, `fetched` of them over the network, in `ms`. */
  | { type: 'image-done'; id: number; ref: string; bytes: number; fetched: number; ms: number }
  /** A pull failed (its error is the caller's to report). */
  | { type: 'image-failed'; id: number; ref: string; ms: number }
  /** A phase of work began: `name` says what it does (`loading catalog ./dir`). */
  | { type: 'phase-start'; id: number; name: string }
  /** A phase ended after `ms`; `ok` is false when it failed. */
  | { type: 'phase-end'; id: number; name: string; ms: number; ok: boolean };

export type ProgressSink = (event: ProgressEvent) => void;

let nextId = 1;

/** A fresh id for an image or phase of this process. */
export function progressId(): number {
  return nextId++;
}

/** Run `work` as a phase named `name`: a start event, then an end event however it ends. */
export async function phase<T>(
  onProgress: ProgressSink | undefined,
  name: string,
  work: () => Promise<T>,
): Promise<T> {
  if (onProgress === undefined) return work();
  const id = progressId();
  const started = Date.now();
  onProgress({ type: 'phase-start', id, name });
  let ok = false;
  try {
    const result = await work();
    ok = true;
    return result;
  } finally {
    onProgress({ type: 'phase-end', id, name, ms: Date.now() - started, ok });
  }
}
