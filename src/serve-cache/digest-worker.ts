/**
 * The worker side of the integrity check's parallel parse (digest.ts, hashCatalogBlobs): it claims
 * catalog files from the shared counter, turns each into its digest bytes and moves them back,
 * until none is left. Bundled on its own as dist/digest-worker.cjs (scripts/bundle.js).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { WalkedFile } from '../declcfg/load-walk.js';
import { serveClaims, type ClaimWork } from '../util/claim.js';
import { digestPartBuffers, fileDigestPart } from './digest-file.js';

if (parentPort !== null) {
  void serveClaims(parentPort, workerData as ClaimWork<WalkedFile, null>, fileDigestPart, digestPartBuffers);
}
