/**
 * `opm serve --cache-dir`: the on-disk cache checked against its catalog, rebuilt when stale (unless
 * integrity is enforced), then served from disk: the package index is read into memory, bundles are
 * read from the database when a call needs them, custom-schema blobs likewise; and the build alone,
 * which `image build` runs. The steps, log lines and failure texts are opm's (operator-registry
 * `cmd/opm/serve`, `pkg/cache`).
 */
import { accessSync, constants, existsSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { OpmError } from '../errors.js';
import { errnoCode } from '../go/errno.js';
import { loadMemoryIndex, loadServedCatalog } from '../served-catalog/load.js';
import { toApiBundle } from '../served-catalog/convert.js';
import { decodeBundle, encodeBundle, type ApiBundle } from '../api-contract/messages.js';
import {
  CatalogQueries,
  type BundleKey,
  type BundleStore,
  type CustomSchemaStore,
  type ServedIndex,
} from '../catalog-queries/queries.js';
import { packageIndexFromModel } from '../catalog-queries/package-index.js';
import type { LogFields, ServeLog } from '../util/log.js';
import type { DeclarativeConfig } from '../declcfg/types.js';
import type { Model } from '../model/model.js';
import {
  DigestMismatchError,
  catalogBlobs,
  openServeCache,
  prepareBlobs,
  writePogrebCache,
  type PreparedBlobs,
  type CacheBundle,
  type CacheBackend,
  type ServeCache,
} from './cache.js';

/** What a cache build needs besides the catalog and the cache directory. */
export interface CacheBuildOptions {
  /** The catalog directory as given (messages about the catalog). */
  configLabel?: string;
  env?: Record<string, string | undefined>;
  signal?: AbortSignal;
}

export interface CacheLoadOptions extends CacheBuildOptions {
  /** The cache directory, absolute. */
  cacheDir: string;
  /** Fail when the cache is missing or stale instead of rebuilding it. */
  enforceIntegrity: boolean;
  /**
   * Integrity was opm's default rather than asked for: a missing or stale cache is not fatal. One
   * warning line says so; the cache is rebuilt when its directory can be written, and the catalog is
   * served from its files (in memory) when it cannot. Ignored when `enforceIntegrity` is true.
   */
  tolerateStale?: boolean;
  log: ServeLog;
  /** Fields on every line (opm's `cache=` and `configs=`, as given). */
  fields?: LogFields;
  /** The cache directory as given: opm's messages name its files through it. */
  cacheLabel?: string;
}

/** Every bundle of a model as the cache stores it, converted one at a time. */
function* modelBundles(model: Model, cfg: DeclarativeConfig): Generator<CacheBundle> {
  const restore = cfg.payloads === undefined ? undefined : cfg.payloads.restore.bind(cfg.payloads);
  for (const pkg of model.values())
    for (const ch of pkg.channels.values())
      for (const b of ch.bundles.values()) {
        yield {
          packageName: pkg.name,
          channelName: ch.name,
          bundleName: b.name,
          bundle: encodeBundle(toApiBundle(b, restore === undefined ? {} : { restore })),
        };
      }
}

class CacheBundleStore implements BundleStore {
  private readonly cache: ServeCache;
  constructor(cache: ServeCache) {
    this.cache = cache;
  }

  bundle(key: BundleKey, withManifests: boolean): Promise<ApiBundle> {
    const bytes = this.cache.bundle(key.package, key.channel, key.name);
    // opm reads the key and fails the call when it is gone: the index and database disagree.
    if (bytes === undefined) return Promise.reject(new Error('get bundle: not found'));
    return Promise.resolve(decodeBundle(bytes, withManifests));
  }

  listedMessage(key: BundleKey): Uint8Array | undefined {
    return this.cache.listedBundle?.(key.package, key.channel, key.name);
  }
}

class CacheCustomSchemas implements CustomSchemaStore {
  private readonly cache: ServeCache;
  constructor(cache: ServeCache) {
    this.cache = cache;
  }

  async *metas(schema: string, packageName: string): AsyncIterable<Uint8Array> {
    for (const m of this.cache.metas(schema, packageName)) yield await Promise.resolve(m);
  }
}

/**
 * Build opm's pogreb cache of the catalog in `configDir` into `dir` (what `serve --cache-only`
 * does to a missing or stale cache). A cache of the older json layout there is replaced. Throws
 * OpmError with opm's fatal text.
 */
export async function buildDiskCache(
  configDir: string,
  dir: string,
  opts: CacheBuildOptions & { replacing?: CacheBackend } = {},
): Promise<void> {
  const { signal } = opts;
  // The blobs are walked for the digest before the catalog is loaded, so that a build does not
  // hold both at once; a walk that fails is reported after the load, whose words name the problem.
  let prepared: PreparedBlobs | undefined;
  let walkFailure: unknown;
  try {
    prepared = await prepareBlobs(catalogBlobs(configDir, signal), signal);
  } catch (err) {
    if (signal?.aborted === true) throw err;
    walkFailure = err;
  }
  const { cfg, model } = await loadServedCatalog(configDir, {
    ...(opts.env === undefined ? {} : { env: opts.env }),
    ...(signal === undefined ? {} : { signal }),
    ...(opts.configLabel === undefined ? {} : { label: opts.configLabel }),
  });
  if (opts.replacing === 'json') {
    // The older layout is rebuilt in the preferred one (see docs/compatibility.md).
    rmSync(path.join(dir, 'cache'), { recursive: true, force: true });
    rmSync(path.join(dir, 'digest'), { force: true });
  }
  try {
    if (prepared === undefined) throw walkFailure;
    await writePogrebCache(
      dir,
      {
        packageIndex: packageIndexFromModel(model),
        bundles: modelBundles(model, cfg),
        blobs: prepared,
      },
      signal === undefined ? {} : { signal },
    );
  } catch (err) {
    if (signal?.aborted === true) throw err;
    const message = err instanceof Error ? err.message : String(err);
    throw new OpmError(`failed to load or rebuild cache: failed to rebuild cache: ${message}`, {
      cause: err,
    });
  }
}

/**
 * Check the cache in `opts.cacheDir` against the catalog in `configDir`; when it is missing or
 * stale, fail (enforcing) or rebuild it in opm's pogreb layout; then open it for serving.
 */
export async function loadDiskCache(
  configDir: string,
  opts: CacheLoadOptions,
): Promise<ServedIndex & { queries: CatalogQueries }> {
  const fields = opts.fields ?? {};
  // opm names the cache's files through the directory as given: use it when it is the same place.
  const label = opts.cacheLabel;
  const dir = label !== undefined && path.resolve(label) === opts.cacheDir ? label : opts.cacheDir;
  const signal = opts.signal;
  let cache = openServeCache(dir);
  const { backend, existing } = cache.detection;
  opts.log(
    'info',
    existing ? 'found existing cache contents' : 'cache directory is empty, using preferred backend',
    { ...fields, backend },
  );
  const tolerate = opts.tolerateStale === true && !opts.enforceIntegrity;
  let problem: unknown;
  try {
    // The environment as the loader reads it: OPM_THREADS, OPM_MAX_BLOB_BYTES.
    const how = await cache.checkIntegrity(configDir, {
      ...(signal === undefined ? {} : { signal }),
      ...(opts.env === undefined ? {} : { env: opts.env }),
    });
    if (how === 'fingerprint') opts.log('debug', 'integrity checked by fingerprint', fields);
  } catch (err) {
    if (signal?.aborted === true) throw err;
    if (!(err instanceof OpmError)) throw err;
    problem = err;
    if (err instanceof DigestMismatchError && !tolerate) {
      opts.log('warning', 'cache requires rebuild', {
        ...fields,
        computedDigest: err.computedDigest,
        existingDigest: err.existingDigest,
      });
    }
  }
  if (problem !== undefined) {
    cache.close();
    if (opts.enforceIntegrity) {
      throw new OpmError(`integrity check failed: ${(problem as Error).message}`, { cause: problem });
    }
    const buildOpts = {
      replacing: backend,
      ...(opts.configLabel === undefined ? {} : { configLabel: opts.configLabel }),
      ...(opts.env === undefined ? {} : { env: opts.env }),
      ...(signal === undefined ? {} : { signal }),
    };
    if (tolerate) {
      const writable = cacheWritable(dir);
      const what = existing ? 'cache does not match the catalog' : 'cache is empty';
      opts.log(
        'warning',
        writable
          ? `${what}: rebuilding it from the catalog`
          : `${what} and cannot be written: serving the catalog from its files`,
        {
          ...fields,
          reason: (problem as Error).message,
          hint: `rebuild the cache whenever the catalog changes (opm serve ${opts.configLabel ?? configDir} --cache-dir ${label ?? dir} --cache-only); --cache-enforce-integrity=true makes this fatal`,
        },
      );
      // Served from its files, as `serve` serves a catalog without a cache.
      const fromFiles = (): ReturnType<typeof loadMemoryIndex> =>
        loadMemoryIndex(configDir, {
          ...(opts.env === undefined ? {} : { env: opts.env }),
          ...(signal === undefined ? {} : { signal }),
          ...(opts.configLabel === undefined ? {} : { label: opts.configLabel }),
        });
      if (!writable) return fromFiles();
      try {
        await buildDiskCache(configDir, dir, buildOpts);
      } catch (err) {
        // A cache that could not be written (a full disk): the catalog is still served.
        if (signal?.aborted === true || !isWriteFailure(err)) throw err;
        opts.log('warning', 'cache not rebuilt: serving the catalog from its files', {
          ...fields,
          reason: (err as Error).message,
        });
        return fromFiles();
      }
    } else {
      opts.log('info', 'building cache', fields);
      await buildDiskCache(configDir, dir, buildOpts);
    }
    cache = openServeCache(dir);
  }
  let index;
  try {
    index = cache.packageIndex();
  } catch (err) {
    cache.close();
    const message = err instanceof Error ? err.message : String(err);
    const prefix = opts.enforceIntegrity
      ? 'failed to load cache'
      : 'failed to load or rebuild cache: failed to load cache';
    throw new OpmError(`${prefix}: ${message}`, { cause: err });
  }
  const opened = cache;
  return {
    queries: new CatalogQueries(index, new CacheBundleStore(opened), new CacheCustomSchemas(opened)),
    close: () => {
      opened.close();
      return Promise.resolve();
    },
  };
}

const WRITE_FAILURES = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT']);

/** A failure of writing the cache's files rather than of reading the catalog. */
function isWriteFailure(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (WRITE_FAILURES.has(errnoCode(e))) return true;
  }
  return false;
}

/**
 * Whether a rebuild can write the cache: the directories it removes entries from and creates
 * entries in (the cache directory, or the nearest one that exists, and the layout's folders).
 * Catalog images build the cache as root and run as user 1001; a read-only root file system
 * writes nothing.
 */
function cacheWritable(dir: string): boolean {
  let existing = path.resolve(dir);
  while (!existsSync(existing)) {
    const parent = path.dirname(existing);
    if (parent === existing) return false;
    existing = parent;
  }
  const dirs = [existing];
  for (const sub of ['pogreb.v1', 'pogreb.v1/db', 'cache']) {
    const d = path.join(dir, sub);
    try {
      if (statSync(d).isDirectory()) dirs.push(d);
    } catch {
      // Not there: created by the rebuild inside a directory already checked.
    }
  }
  try {
    for (const d of dirs) accessSync(d, constants.W_OK | constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
