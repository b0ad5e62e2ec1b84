/**
 * `opm serve DIR`: load a File-Based Catalog, check it package by package as opm's cache build
 * does, and serve it over gRPC until the signal fires (then stop gracefully: running calls finish).
 * The served index comes from a `ServeCache`; without a cache directory it is built in memory.
 */
import path from 'node:path';
import { OpmError, positionText } from '../errors.js';
import { CatalogDirError, loadCatalogDir } from '../declcfg/load.js';
import { emptyConfig, type DeclarativeConfig } from '../declcfg/types.js';
import { convertToModel } from '../model/convert.js';
import type { Model } from '../model/model.js';
import { memoryRegistry } from '../api/memory.js';
import { metaKeyError, type Registry } from '../api/registry.js';
import { TYPE_CSV_METADATA } from '../property/property.js';
import { compareUtf8 } from '../go/utf8.js';
import { goQuote } from '../go/fmt.js';
import { startServer, type ServerLog } from '../server/server.js';
import { throwIfAborted } from '../util/abort.js';

/** What a cache gives the server. */
export interface ServedIndex {
  registry: Registry;
  /** Release what the index holds open (files, a database). */
  close?(): Promise<void>;
}

export interface ServeCacheOptions {
  cacheDir: string;
  /** Fail when the cache is missing or stale instead of rebuilding it. */
  enforceIntegrity: boolean;
  log: ServerLog;
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
  /** Told the port once the server listens (tests, and callers that asked for port 0). */
  onListening?: (port: number) => void;
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** Fires to stop serving (SIGTERM): the promise resolves once the server has stopped. */
  signal?: AbortSignal;
}

/** The fatal texts of opm's rebuild path. */
const REBUILD = 'failed to load or rebuild cache: failed to rebuild cache';

/** Split a catalog by package as opm's cache build does (olm.package by name, the rest by `package`). */
function byPackage(cfg: DeclarativeConfig): Map<string, DeclarativeConfig> {
  const out = new Map<string, DeclarativeConfig>();
  const of = (name: string): DeclarativeConfig => {
    let c = out.get(name);
    if (c === undefined) out.set(name, (c = emptyConfig()));
    return c;
  };
  for (const p of cfg.packages) of(p.name).packages.push(p);
  for (const c of cfg.channels) of(c.package).channels.push(c);
  for (const b of cfg.bundles) of(b.package).bundles.push(b);
  for (const d of cfg.deprecations) of(d.package).deprecations.push(d);
  return out;
}

/**
 * Load and check a catalog for serving: every file parsed, custom-schema names checked, each
 * package converted to the model with its checks. Throws OpmError with opm's fatal text.
 */
export async function loadServedCatalog(
  dir: string,
  opts: { env?: Record<string, string | undefined>; signal?: AbortSignal; label?: string } = {},
): Promise<{ cfg: DeclarativeConfig; model: Model }> {
  let loaded;
  try {
    loaded = await loadCatalogDir(dir, {
      deferPayloads: true,
      ...(opts.env === undefined ? {} : { env: opts.env }),
      ...(opts.signal === undefined ? {} : { signal: opts.signal }),
    });
  } catch (err) {
    if (err instanceof CatalogDirError) {
      // Named as the user gave it.
      const message =
        opts.label === undefined ? err.message : err.message.replace(`"${dir}"`, `"${opts.label}"`);
      throw new OpmError(`${REBUILD}: ${message}`, { cause: err });
    }
    throw err;
  }
  const { cfg, findings } = loaded;
  const error = findings.find((f) => f.severity === 'error');
  if (error !== undefined) {
    const at =
      error.file === undefined
        ? ''
        : `${positionText({ file: path.join(dir, error.file), ...(error.line === undefined ? {} : { line: error.line }) })}: `;
    throw new OpmError(`${REBUILD}: ${at}${error.message}`);
  }
  for (const m of cfg.others) {
    const invalid = metaKeyError(m.schema, m.package);
    if (invalid !== undefined) throw new OpmError(`${REBUILD}: invalid custom schema meta: ${invalid}`);
  }
  const model: Model = new Map();
  const packages = byPackage(cfg);
  for (const name of [...packages.keys()].sort(compareUtf8)) {
    throwIfAborted(opts.signal);
    const r = convertToModel(packages.get(name) as DeclarativeConfig);
    const fail = (msg: string): OpmError =>
      new OpmError(`${REBUILD}: build package index: process package ${goQuote(name)}: ${msg}`);
    if (r.opmMessage !== undefined) throw fail(r.opmMessage);
    for (const [pkgName, pkg] of r.model) {
      for (const ch of pkg.channels.values()) {
        for (const b of ch.bundles.values()) {
          const metas = b.properties.filter((p) => p.type === TYPE_CSV_METADATA).length;
          if (metas > 1) {
            throw fail(
              `parse properties: expected at most 1 property of type "${TYPE_CSV_METADATA}", found ${metas}`,
            );
          }
        }
      }
      model.set(pkgName, pkg);
    }
  }
  return { cfg, model };
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
  const fields = { configs: configDir };
  let index: ServedIndex;
  if (cacheDir !== '') {
    if (opts.cache === undefined) {
      throw new OpmError('--cache-dir is not supported yet', {
        hint: 'serve without --cache-dir: the catalog is then loaded into memory at start-up',
      });
    }
    index = await opts.cache.load(dir, {
      cacheDir: path.resolve(opts.cwd ?? '', cacheDir),
      enforceIntegrity: enforce,
      log: opts.log,
      ...(opts.env === undefined ? {} : { env: opts.env }),
      ...(opts.signal === undefined ? {} : { signal: opts.signal }),
    });
  } else {
    const { cfg, model } = await loadServedCatalog(dir, { ...opts, label: configDir });
    const restore = cfg.payloads === undefined ? undefined : cfg.payloads.restore.bind(cfg.payloads);
    index = { registry: memoryRegistry(model, cfg.others, restore) };
  }
  try {
    if (cacheOnly) return;
    throwIfAborted(opts.signal);
    const port = opts.port ?? '50051';
    let server;
    try {
      server = await startServer({ registry: index.registry, port, log: opts.log });
    } catch (err) {
      throw new OpmError(err instanceof Error ? err.message : String(err), { cause: err });
    }
    opts.log('info', 'serving registry', { ...fields, port });
    opts.onListening?.(server.port);
    await new Promise<void>((resolve) => {
      if (opts.signal === undefined) return;
      if (opts.signal.aborted) resolve();
      else opts.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    opts.log('info', 'shutting down server', { ...fields, port });
    await server.stop();
  } finally {
    await index.close?.();
  }
}
