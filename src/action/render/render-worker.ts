/**
 * A rendering worker thread (render-output.ts): claims catalog files from the shared counter and
 * posts each one encoded, its bytes written to the render's spill file (util/spill.ts), or moved
 * rather than copied when there is none. Bundled on its own as dist/render-worker.cjs
 * (scripts/bundle.js), so a worker starts without the code of the command line.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { WalkedFile } from '../../declcfg/load-walk.js';
import { serveClaims, type ClaimWork } from '../../util/claim.js';
import { encodeCatalogFile, type EncodeWork } from './render-encode-file.js';

if (parentPort !== null) {
  void serveClaims(
    parentPort,
    workerData as ClaimWork<WalkedFile, EncodeWork>,
    encodeCatalogFile,
    (encoded) => (encoded.bytes === undefined ? [] : [encoded.bytes.buffer as ArrayBuffer]),
  );
}
