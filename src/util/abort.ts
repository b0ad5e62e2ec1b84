/**
 * Cancellation. Every use case that reads files or pulls images takes `signal?: AbortSignal`; when
 * it fires, the use case stops at its next check and its promise rejects with the signal's reason
 * (`signal.reason`: a DOMException named `AbortError` for `controller.abort()`, or whatever was
 * given to `abort(reason)`), never with an error of its own wrapped around it. Files it was writing
 * are removed and worker threads it started are terminated before the promise settles.
 *
 * Loading and encoding are work for the CPU between short synchronous reads, so the event loop would
 * not hear the signal (a client gone, SIGTERM) until the load is over. With a signal, the loops over
 * files therefore also let the event loop run now and then (Checkpoint.pass); without one they never
 * leave the thread, and cost one comparison per file.
 */

/** Throw the signal's reason when it has fired. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw signal.reason;
}

/**
 * The error to throw for `err` met while `signal` may have fired: the signal's reason when it has
 * (Node's own APIs reject with an AbortError of theirs, the reason as its cause), else `err`.
 */
export function abortedOr(signal: AbortSignal | undefined, err: unknown): unknown {
  return signal?.aborted === true ? signal.reason : err;
}

/**
 * The event loop is given a turn at most this often while a signal is given: short enough that an
 * abort is heard at once by a person or a server; long enough not to slow the work, since a turn also
 * runs the garbage collector's pending tasks, which every 20 ms made the file-by-file render of the
 * corpus catalog measurably slower (bench: "render -o json with a signal vs without").
 */
const PASS_EVERY_MS = 50;

/**
 * A point between two files of a long loop where an abort is heard. Times are Date.now()'s: the
 * `performance` global loads nine of Node.js's modules when first used, which under the launcher's
 * V8 flags compile from source (a millisecond or two of every render and validate), and a clock
 * set back or forward only moves one turn of the event loop.
 */
export class Checkpoint {
  readonly signal: AbortSignal | undefined;
  private last = 0;

  constructor(signal: AbortSignal | undefined) {
    this.signal = signal;
    if (signal !== undefined) this.last = Date.now();
  }

  /**
   * Throw the signal's reason when it has fired; with a signal, first let the event loop run
   * (timers, signal handlers, sockets) when PASS_EVERY_MS have passed since it last did.
   */
  async pass(): Promise<void> {
    const signal = this.signal;
    if (signal === undefined) return;
    const now = Date.now();
    if (now - this.last >= PASS_EVERY_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      this.last = Date.now();
    }
    if (signal.aborted) throw signal.reason;
  }
}
