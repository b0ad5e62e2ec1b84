/**
 * A worker for the pool's tests (src/util/worker-pool.test.ts), run from sources. What it does is
 * its workerData's `mode` (in claims, the `mode` of the claims' shared data):
 * - `claims`: serves claims of numbers, doubling each (`double`, which the tests also run in their
 *   own thread);
 * - `fail`: answers with the failure of `double(-1)`;
 * - `fail-subclass`: answers with the failure of a NotAnInteger, a class of OpmError;
 * - `throw`: throws, uncaught;
 * - `echo`: says `ready`, then answers each message with itself until it is sent null.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { failureReply, serveClaims, type ClaimWork } from '../../src/util/claim.js';
import { double, NotAnInteger } from './double.js';

const data = workerData as { mode: string } | ClaimWork<number, { mode: string }>;
const mode = 'items' in data ? data.data.mode : data.mode;
const port = parentPort;
if (port !== null) {
  if ('items' in data && mode === 'claims') void serveClaims(port, data, double);
  else if (mode === 'fail') {
    try {
      double(-1);
    } catch (err) {
      port.postMessage(failureReply(err));
    }
    port.close();
  } else if (mode === 'fail-subclass') {
    port.postMessage(failureReply(new NotAnInteger(1.5)));
    port.close();
  } else if (mode === 'throw') {
    throw new TypeError('a worker that throws');
  } else {
    port.on('message', (msg: unknown) => {
      if (msg === null) port.close();
      else port.postMessage(msg);
    });
    port.postMessage('ready');
  }
}
