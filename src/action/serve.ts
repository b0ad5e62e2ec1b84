/**
 * `opm serve DIR`: load a File-Based Catalog, check it package by package as opm's cache build
 * does, and serve it over gRPC until the signal fires (then stop gracefully: running calls finish).
 * The served index comes from the on-disk cache (serve-cache/load-cache.ts); without a cache
 * directory it is built in memory.
 */
import path from 'node:path';
import { OpmError } from '../errors.js';
import type { ServedIndex } from '../catalog-queries/queries.js';
import { loadMemoryIndex } from '../served-catalog/load.js';
import type { ServeLog } from '../util/log.js';
import { throwIfAborted } from '../util/abort.js';
import { catalogApiConfig } from './serve-http-address.js';

export interface ServeOptions {
  /** The catalog directory, as given (logged as `configs`). */
  configDir: string;
  /** Default `50051`; listened on at every interface. */
  port?: string;
  cacheDir?: string;
  cacheOnly?: boolean;
  /**
   * true: a missing or stale cache is fatal (opm's `integrity check failed: …`); false: it is
   * rebuilt. Not given (the command line's flag not given): opm's default, true when `cacheDir` is
   * set and `cacheOnly` is not, but a missing or stale cache is then served from the catalog's
   * files with one warning (and rebuilt where it can be written) instead of being fatal, so that a
   * catalog pod whose `/configs` was changed after its cache was built does not crash-loop
   * (docs/compatibility.md, row S17).
   */
  cacheEnforceIntegrity?: boolean;
  log: ServeLog;
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
  index?: {
    load: () => Promise<ServedIndex>;
    fields: Record<string, string>;
    /** Log each call (default true). */
    logCalls?: boolean;
    /** Lines logged once listening, before `serving registry`. */
    beforeServing?: () => void;
    /**
     * Stop gracefully this long after listening (`registry serve --timeout-seconds`), logging
     * `Timeout expired. Gracefully stopping.` in place of `shutting down server`.
     */
    stopAfterMs?: number;
  };
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
  // opm's default enforcement, not asked for: a stale cache is not worth a crash loop.
  const tolerateStale = opts.cacheEnforceIntegrity === undefined && enforce;
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
    // The cache's modules are loaded only when there is a cache.
    const { loadDiskCache } = await import('../serve-cache/load-cache.js');
    index = await loadDiskCache(dir, {
      cacheDir: path.resolve(opts.cwd ?? '', cacheDir),
      // Fatal only when asked for on the command line; opm's default enforcement is tolerated.
      enforceIntegrity: opts.cacheEnforceIntegrity === true,
      tolerateStale,
      log: opts.log,
      fields,
      cacheLabel: cacheDir,
      configLabel: configDir,
      ...(opts.env === undefined ? {} : { env: opts.env }),
      ...(opts.signal === undefined ? {} : { signal: opts.signal }),
    });
  } else {
    index = await loadMemoryIndex(dir, { ...opts, label: configDir });
  }
  try {
    if (cacheOnly) return;
    throwIfAborted(opts.signal);
    const port = opts.port ?? '50051';
    // The HTTP server's modules are loaded only when the catalog API is asked for.
    const api =
      httpApi === undefined
        ? undefined
        : await (await import('./serve-http.js')).startCatalogApi(httpApi, dir, opts.log);
    // The gRPC library is loaded only to serve: `--cache-only` (the image build step) never needs it.
    const { startServer } = await import('../server/server.js');
    let server;
    try {
      server = await startServer({
        registry: index.queries,
        port,
        log: opts.log,
        loadLeftGarbage: index.leftGarbage === true,
        ...(opts.index?.logCalls === false ? { logCalls: false } : {}),
      });
    } catch (err) {
      await api?.stop();
      throw new OpmError(err instanceof Error ? err.message : String(err), { cause: err });
    }
    if (api !== undefined && httpApi !== undefined) {
      opts.log('info', 'serving catalog API', { ...fields, 'http-addr': httpApi.addr, path: api.base });
      api.fill();
    }
    opts.index?.beforeServing?.();
    opts.log('info', 'serving registry', { ...fields, port });
    opts.onListening?.(server.port);
    const stopAfter = opts.index?.stopAfterMs;
    let timer: NodeJS.Timeout | undefined;
    const why = await new Promise<'signal' | 'timeout'>((resolve) => {
      if (stopAfter !== undefined) timer = setTimeout(() => resolve('timeout'), stopAfter);
      if (opts.signal === undefined) return;
      if (opts.signal.aborted) resolve('signal');
      else opts.signal.addEventListener('abort', () => resolve('signal'), { once: true });
    });
    clearTimeout(timer);
    if (why === 'timeout') opts.log('info', 'Timeout expired. Gracefully stopping.', { ...fields, port });
    else opts.log('info', 'shutting down server', { ...fields, port });
    await Promise.all([server.stop(), api?.stop()]);
  } finally {
    await index.close();
  }
}
