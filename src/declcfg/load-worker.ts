/**
 * The worker side of parallel loading (load-pool.ts): it claims files from the shared counter, loads
 * each and posts the result, until none is left. Bundled on its own as dist/load-worker.cjs
 * (scripts/bundle.js), so a worker starts without the code of the command line.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { DecodeOptions } from './decode.js';
import { loadFile } from './load-file.js';
import type { WalkedFile } from './load-walk.js';
import { serveClaims, type ClaimWork } from '../util/claim.js';

if (parentPort !== null) {
  void serveClaims(parentPort, workerData as ClaimWork<WalkedFile, DecodeOptions>, loadFile);
}
