/**
 * node:zlib, loaded when a call is the first to use gzip: most clients never ask for it (OLM and
 * grpc_health_probe do not), and loading the module is start-up time of every server.
 */
import { createRequire } from 'node:module';
import type * as Zlib from 'node:zlib';

let zlib: typeof Zlib | undefined;

export function lazyZlib(): typeof Zlib {
  return (zlib ??= createRequire(import.meta.url)('node:zlib') as typeof Zlib);
}
