/**
 * `opm serve DIR`: load a File-Based Catalog, check it package by package as opm's cache build
 * does, and serve it over gRPC until the signal fires (then stop gracefully: running calls finish).
 * The served index comes from a `ServeCache`; without a cache directory it is built in memory.
 */
import path from 'node:path';
import { OpmError } from '../errors.js';
import { memoryRegistry } from '../api/memory.js';
import type { Registry } from '../api/registry.js';
import { loadServedCatalog } from '../api/load.js';
import type { ServerLog } from '../server/server.js';
import { throwIfAborted } from '../util/abort.js';
import { catalogApiConfig, startCatalogApi } from './serve-http.js';

/** What a cache gives the server. */
export interface ServedIndex {
  registry: Registry;
  /** Loading it let go of most of what it read (payloads left on disk): worth a collection. */
  leftGarbage?: boolean;
  /** Release what the index holds open (files, a database). */
  close?(): Promise<void>;
}

export interface ServeCacheOptions {
  cacheDir: string;
  /** Fail when the cache is missing or stale instead of rebuilding it. */
  enforceIntegrity: boolean;
  log: ServerLog;
  /** Fields on every start-up line (opm's `cache=` and `configs=`, as given). */
  fields: Record<string, string>;
  /** The cache directory as given (opm's messages name its files through it). */
  cacheLabel: string;
  /** The catalog directory as given. */
  configLabel: string;
  env?: Record<string, string | undefined>;
  signal?: AbortSignal;
}

/** opm's on-disk cache (src/serve-cache/): checked or rebuilt, then loaded. */
export interface ServeCache {
  load(configDir: string, opts: ServeCacheOptions): Promise<ServedIndex>;
}

export interface ServeOptions {
  /** The catalog directory, as given (logged as `configs`). */
  configDir: string;
  /** Default `50051`; listened on at every interface. */
  port?: string;
  cacheDir?: string;
  cacheOnly?: boolean;
  /** Default: true when `cacheDir` is set and `cacheOnly` is not (opm's rule). */
  cacheEnforceIntegrity?: boolean;
  /** The on-disk cache; without it, `cacheDir` is refused. */
  cache?: ServeCache;
  log: ServerLog;
  /** Also serve OLM v1's catalog API (catalogd's paths) on this `host:port` (action/serve-http.ts). */
  httpAddr?: string;
  /** The `<name>` of the catalog API's paths; default: the catalog directory's base name. */
  catalogName?: string;
  /** Told the port once the server listens (tests, and callers that asked for port 0). */
  onListening?: (port: number) => void;
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** Fires to stop serving (SIGTERM): the promise resolves once the server has stopped. */
  signal?: AbortSignal;
  /**
   * The index to serve, when it is not read from `configDir` (`registry serve` reads a SQLite
   * database), with the fields that name it on the log lines.
   */
  index?: { load: () => Promise<ServedIndex>; fields: Record<string, string> };
}

/**
 * Serve a catalog until `signal` fires. With `cacheOnly`, build or check the cache and return
 * without serving. Failures (a bad catalog, a port in use) throw OpmError with opm's text, before
 * anything listens.
 */
export async function serve(opts: ServeOptions): Promise<void> {
  const cacheDir = opts.cacheDir ?? '';
  const cacheOnly = opts.cacheOnly ?? false;
  const enforce = opts.cacheEnforceIntegrity ?? (cacheDir !== '' && !cacheOnly);
  if (cacheDir === '' && enforce)
    throw new OpmError('--cache-dir must be specified with --cache-enforce-integrity');
  const configDir = opts.configDir;
  const dir = path.resolve(opts.cwd ?? '', configDir);
  const httpApi =
    opts.httpAddr === undefined || opts.httpAddr === ''
      ? undefined
      : catalogApiConfig(opts.httpAddr, opts.catalogName, configDir, opts.cwd);
  const fields: Record<string, string> =
    opts.index !== undefined
      ? opts.index.fields
      : cacheDir === ''
        ? { configs: configDir }
        : { cache: cacheDir, configs: configDir };
  let index: ServedIndex;
  if (opts.index !== undefined) {
    index = await opts.index.load();
  } else if (cacheDir !== '') {
    if (opts.cache === undefined) {
      throw new OpmError('--cache-dir needs an on-disk cache (ServeOptions.cache)', {
        hint: 'pass the cache of serve-cache/ (diskServeCache), or serve without --cache-dir',
      });
    }
    index = await opts.cache.load(dir, {
      cacheDir: path.resolve(opts.cwd ?? '', cacheDir),
      enforceIntegrity: enforce,
      log: opts.log,
      fields,
      cacheLabel: cacheDir,
      configLabel: configDir,
      ...(opts.env === undefined ? {} : { env: opts.env }),
      ...(opts.signal === undefined ? {} : { signal: opts.signal }),
    });
  } else {
    const { cfg, model } = await loadServedCatalog(dir, { ...opts, label: configDir });
    const restore = cfg.payloads === undefined ? undefined : cfg.payloads.restore.bind(cfg.payloads);
    index = { registry: memoryRegistry(model, cfg.others, restore), leftGarbage: restore !== undefined };
  }
  try {
    if (cacheOnly) return;
    throwIfAborted(opts.signal);
    const port = opts.port ?? '50051';
    const api = httpApi === undefined ? undefined : await startCatalogApi(httpApi, dir, opts.log);
    // The gRPC library is loaded only to serve: `--cache-only` (the image build step) never needs it.
    const { startServer } = await import('../server/server.js');
    let server;
    try {
      server = await startServer({
        registry: index.registry,
        port,
        log: opts.log,
        loadLeftGarbage: index.leftGarbage === true,
      });
    } catch (err) {
      await api?.stop();
      throw new OpmError(err instanceof Error ? err.message : String(err), { cause: err });
    }
    if (api !== undefined && httpApi !== undefined) {
      opts.log('info', 'serving catalog API', { ...fields, 'http-addr': httpApi.addr, path: api.base });
      api.fill();
    }
    opts.log('info', 'serving registry', { ...fields, port });
    opts.onListening?.(server.port);
    await new Promise<void>((resolve) => {
      if (opts.signal === undefined) return;
      if (opts.signal.aborted) resolve();
      else opts.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    opts.log('info', 'shutting down server', { ...fields, port });
    await Promise.all([server.stop(), api?.stop()]);
  } finally {
    await index.close?.();
  }
}
