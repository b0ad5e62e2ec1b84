/**
 * A validating worker thread (validate-shards.ts): loads and checks the shard of the catalog it is
 * given and posts back its findings and bundles; then, given every bundle of the catalog, runs the
 * dependency rules and posts their findings. Bundled on its own as dist/validate-worker.cjs
 * (scripts/bundle.js), so a worker starts without the code of the command line.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { failureReply } from '../../util/claim.js';
import { checkShard, type ShardProviders, type ShardReply, type ShardWork } from './validate-shards.js';

if (parentPort !== null) {
  const port = parentPort;
  checkShard(workerData as ShardWork).then(
    (shard) => {
      port.once('message', (msg: ShardProviders) => {
        try {
          if (msg.providers !== null)
            port.postMessage({
              ok: true,
              dependencies: shard.dependencies(msg.providers),
            } satisfies ShardReply);
        } catch (err) {
          port.postMessage(failureReply(err));
        }
        port.close();
      });
      port.postMessage({ ok: true, result: shard.result } satisfies ShardReply);
    },
    (err: unknown) => {
      port.postMessage(failureReply(err));
      port.close();
    },
  );
}
