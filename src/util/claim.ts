/**
 * Work shared out between threads by one counter: each thread takes the next item of a list every
 * thread knows, so none waits for another to hand it work.
 */
import type { TransferListItem } from 'node:worker_threads';
import { InternalError, OpmError, UsageError } from '../errors.js';

/** Claim the next of `count` items from `next` (one Int32 over a SharedArrayBuffer), or -1 when all are taken. */
export function claim(next: Int32Array, count: number): number {
  const i = Atomics.add(next, 0, 1);
  return i < count ? i : -1;
}

/** Let no thread claim anything more (after a failure, which ends the work of every thread). */
export function stopClaims(next: Int32Array, count: number): void {
  Atomics.store(next, 0, count);
}

/**
 * A failure as a worker reports it: what the error was made of (name, message, stack, and an
 * OpmError's hint, position and code), which crosses threads as plain data; worker-pool.ts makes
 * the same error of it on the other side.
 */
export interface FailureReply {
  ok: false;
  error: SentError;
}

/** An error as plain data. */
export interface SentError {
  /** The error family it belongs to (errors.ts), subclasses included; absent for any other error. */
  family?: 'UsageError' | 'OpmError' | 'InternalError';
  name: string;
  message: string;
  stack?: string;
  hint?: string;
  at?: { file: string; line?: number };
  code?: string;
}

export function failureReply(err: unknown): FailureReply {
  if (!(err instanceof Error)) return { ok: false, error: { name: 'Error', message: String(err) } };
  const e = err as Error & { hint?: unknown; at?: unknown; code?: unknown };
  const error: SentError = { name: e.name, message: e.message };
  if (err instanceof UsageError) error.family = 'UsageError';
  else if (err instanceof OpmError) error.family = 'OpmError';
  else if (err instanceof InternalError) error.family = 'InternalError';
  if (e.stack !== undefined) error.stack = e.stack;
  if (typeof e.hint === 'string') error.hint = e.hint;
  if (typeof e.code === 'string') error.code = e.code;
  if (typeof e.at === 'object' && e.at !== null) error.at = { ...(e.at as { file: string; line?: number }) };
  return { ok: false, error };
}

/** Whether a worker's message is a failure reply. */
export function isFailureReply(msg: unknown): msg is FailureReply {
  return typeof msg === 'object' && msg !== null && (msg as { ok?: unknown }).ok === false && 'error' in msg;
}

/** The work a pool's worker is started with: the items in claim order, the counter, and shared data. */
export interface ClaimWork<T, D> {
  items: T[];
  /** One Int32: the next number to claim, shared by every thread of the pool. */
  next: SharedArrayBuffer;
  data: D;
}

/** A worker's answer for one claimed item. */
export type ClaimReply<R> = { index: number; ok: true; result: R } | FailureReply;

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
        reply = failureReply(err);
      }
      port.postMessage(reply, reply.ok ? transfer(reply.result) : []);
    }
  } finally {
    port.close();
  }
}
