/**
 * Work shared out between threads by one counter: each thread takes the next item of a list every
 * thread knows, so none waits for another to hand it work.
 */
import type { TransferListItem } from 'node:worker_threads';

/** Claim the next of `count` items from `next` (one Int32 over a SharedArrayBuffer), or -1 when all are taken. */
export function claim(next: Int32Array, count: number): number {
  const i = Atomics.add(next, 0, 1);
  return i < count ? i : -1;
}

/** Let no thread claim anything more (after a failure, which ends the work of every thread). */
export function stopClaims(next: Int32Array, count: number): void {
  Atomics.store(next, 0, count);
}

/** A failure as a worker reports it: the error's message and stack, which cross threads as text. */
export interface FailureReply {
  ok: false;
  message: string;
  stack?: string;
}

export function failureReply(err: unknown): FailureReply {
  return {
    ok: false,
    message: err instanceof Error ? err.message : String(err),
    ...(err instanceof Error && err.stack !== undefined ? { stack: err.stack } : {}),
  };
}

/** The error a worker's failure reply stands for, in this thread, its message after `what`. */
export function replyError(what: string, reply: FailureReply): Error {
  const err = new Error(`${what}: ${reply.message}`);
  if (reply.stack !== undefined) err.stack = reply.stack;
  return err;
}

/** The work a pool's worker is started with: the items in claim order, the counter, and shared data. */
export interface ClaimWork<T, D> {
  items: T[];
  /** One Int32: the next number to claim, shared by every thread of the pool. */
  next: SharedArrayBuffer;
  data: D;
}

/** A worker's answer for one claimed item. */
export type ClaimReply<R> =
  { index: number; ok: true; result: R } | { index: number; ok: false; message: string; stack?: string };

/** The side of a port a worker answers on (worker_threads' parentPort). */
export interface ReplyPort {
  postMessage(value: unknown, transfer?: readonly TransferListItem[]): void;
  close(): void;
}

/**
 * Run in a worker: claim items until none is left, post each result (its `transfer` list moved, not
 * copied), then close the port. A failing item is answered with its message, and ends the claims
 * of every thread: the pool fails.
 */
export async function serveClaims<T, D, R>(
  port: ReplyPort,
  work: ClaimWork<T, D>,
  run: (item: T, data: D) => R | Promise<R>,
  transfer: (result: R) => TransferListItem[] = () => [],
): Promise<void> {
  const next = new Int32Array(work.next);
  try {
    for (let i = claim(next, work.items.length); i !== -1; i = claim(next, work.items.length)) {
      const item = work.items[i] as T;
      let reply: ClaimReply<R>;
      try {
        reply = { index: i, ok: true, result: await run(item, work.data) };
      } catch (err) {
        stopClaims(next, work.items.length);
        reply = { index: i, ...failureReply(err) };
      }
      port.postMessage(reply, reply.ok ? transfer(reply.result) : []);
    }
  } finally {
    port.close();
  }
}
