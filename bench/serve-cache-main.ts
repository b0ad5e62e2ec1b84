// One measured serve-cache operation of opm-ts, as a process of its own (bench/serve-cache.ts runs
// it under GNU time beside the reference opm):
//   check CACHE CATALOG      what `opm serve CATALOG --cache-dir CACHE --cache-only` does with a cache
//                            that is up to date: detect the layout, recompute and compare the digest,
//                            load packages.json
//   read CACHE               read every key and value of the pogreb database, bundles decoded
//   write FROM CATALOG OUT   write the content of the cache FROM (packages.json, bundles) and the
//                            catalog's blobs as a new cache OUT, digest included
import { rmSync } from 'node:fs';
import path from 'node:path';
import {
  catalogBlobs,
  openServeCache,
  writePogrebCache,
  type CacheBundle,
} from '../src/serve-cache/cache.js';
import { PogrebReader } from '../src/serve-cache/pogreb.js';
import { decodeBundle } from '../src/api-contract/messages.js';

async function main(): Promise<void> {
  const [mode, a = '', b = '', c = ''] = process.argv.slice(2);
  if (mode === 'check') {
    const cache = openServeCache(a);
    await cache.checkIntegrity(b);
    cache.packageIndex();
    cache.close();
  } else if (mode === 'read') {
    const db = PogrebReader.open(path.join(a, 'pogreb.v1', 'db'));
    for (const [k, v] of db.entries()) if (k.toString('latin1').startsWith('bundles/')) decodeBundle(v);
    db.close();
  } else if (mode === 'write') {
    const from = openServeCache(a);
    const index = from.packageIndex();
    // Read one bundle at a time, as a build converting bundles one by one hands them over.
    const bundles = function* (): Generator<CacheBundle> {
      for (const p of index.values())
        for (const ch of p.channels.values())
          for (const name of ch.bundles.keys()) {
            const bundle = from.bundle(p.name, ch.name, name);
            if (bundle !== undefined)
              yield { packageName: p.name, channelName: ch.name, bundleName: name, bundle };
          }
    };
    rmSync(c, { recursive: true, force: true });
    await writePogrebCache(c, { packageIndex: index, bundles: bundles(), blobs: catalogBlobs(b) });
    from.close();
  } else throw new Error(`unknown mode ${mode ?? ''}`);
}

await main();
