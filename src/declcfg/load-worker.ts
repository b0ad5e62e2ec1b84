/**
 * The worker side of parallel loading (load-pool.ts). A worker gets the whole list of files and a
 * shared counter; it claims the next file from the counter, loads it and posts the result, until
 * none is left. Bundled on its own as dist/load-worker.cjs (scripts/bundle.js), so a worker starts
 * without the code of the command line.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { DecodeOptions } from './decode.js';
import { loadFile, type LoadResult } from './load-file.js';
import type { WalkedFile } from './load-walk.js';
import { claim } from '../util/claim.js';

export interface LoadWork {
  /** Files in the order to load them; a claimed number indexes this list. */
  files: WalkedFile[];
  opts: DecodeOptions;
  /** One Int32: the next number to claim (Atomics.add), shared by every thread of the load. */
  next: SharedArrayBuffer;
}

export type LoadReply =
  | { index: number; ok: true; result: LoadResult }
  | { index: number; ok: false; message: string; stack?: string };

async function work(port: NonNullable<typeof parentPort>, w: LoadWork): Promise<void> {
  const next = new Int32Array(w.next);
  for (let i = claim(next, w.files.length); i !== -1; i = claim(next, w.files.length)) {
    const file = w.files[i];
    if (file === undefined) break;
    try {
      port.postMessage({ index: i, ok: true, result: await loadFile(file, w.opts) } satisfies LoadReply);
    } catch (err) {
      const reply: LoadReply = {
        index: i,
        ok: false,
        message: err instanceof Error ? err.message : String(err),
        ...(err instanceof Error && err.stack !== undefined ? { stack: err.stack } : {}),
      };
      port.postMessage(reply);
    }
  }
}

if (parentPort !== null) {
  const port = parentPort;
  void work(port, workerData as LoadWork).finally(() => port.close());
}
