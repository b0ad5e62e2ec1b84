/**
 * `opm serve --http-addr`: OLM v1's catalog API (catalogd's `/catalogs/<name>/api/v1/all` and
 * `…/metas`) beside the gRPC server, for the same catalog directory. The catalog's lines are written
 * once, after the servers listen, to a file in a temporary folder of this process (removed when the
 * server stops); requests that come before they are ready wait for them. Only listening happens
 * before the gRPC server is up.
 */
import { tmpdir } from 'node:os';
import path from 'node:path';
import { rm } from 'node:fs/promises';
import { OpmError } from '../errors.js';
import { writeCatalogLines, type CatalogBlob, type CatalogLines } from '../server/catalog-lines.js';
import { HttpListenError, startHttpCatalog } from '../server/http-catalog.js';
import type { ServeLog } from '../util/log.js';
import { walkMetaBlobs } from '../serve-cache/digest.js';
import { makeOwnedDir, releaseOwned, removeStale } from '../util/owned-temp.js';
import type { CatalogApiConfig } from './serve-http-address.js';

export { catalogApiConfig, type CatalogApiConfig } from './serve-http-address.js';

const TEMP_PREFIX = 'opm-serve-http-';

/** A running catalog API. */
export interface CatalogApi {
  port: number;
  /** The path every endpoint starts with: `/catalogs/<name>/api/v1`. */
  base: string;
  /**
   * Start writing the lines (the caller does once the gRPC server is up, so that the walk does not
   * delay it); requests wait until they are written.
   */
  fill(): void;
  /** Stop the server (running answers finish), stop writing the lines, remove them. */
  stop(): Promise<void>;
}

async function* blobsOf(catalogDir: string, signal: AbortSignal): AsyncGenerator<CatalogBlob> {
  for await (const b of walkMetaBlobs(catalogDir, { signal })) yield { bytes: b.bytes, value: b.value };
}

/**
 * Listen on the configured address; fill() writes the catalog's lines in the background. A failure to
 * listen throws OpmError (nothing is left listening); a failure to write the lines is logged and
 * answered with 500.
 */
export async function startCatalogApi(
  config: CatalogApiConfig,
  catalogDir: string,
  log: ServeLog,
): Promise<CatalogApi> {
  const building = new AbortController();
  // The folder of the lines, made by the first fill() (not before: start-up does not wait for it).
  let folder: string | undefined;
  // Settled by fill(), or by stop() when the lines were never asked for.
  let begin: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (begin = resolve));
  const lines: Promise<CatalogLines> = started.then(async () => {
    building.signal.throwIfAborted();
    const parent = tmpdir();
    await removeStale(parent, TEMP_PREFIX);
    folder = await makeOwnedDir(parent, TEMP_PREFIX);
    return writeCatalogLines(
      blobsOf(catalogDir, building.signal),
      path.join(folder, 'catalog.jsonl'),
      building.signal,
    );
  });
  lines.then(
    (l) => log('debug', 'catalog API content ready', { blobs: l.blobs, bytes: l.size }),
    (err: unknown) => {
      if (!building.signal.aborted)
        log('error', 'catalog API has no content', {
          error: err instanceof Error ? err.message : String(err),
        });
    },
  );
  const removeFolder = async (): Promise<void> => {
    if (folder === undefined) return;
    await rm(folder, { recursive: true, force: true });
    releaseOwned(folder);
  };
  let server;
  try {
    server = await startHttpCatalog({ host: config.host, port: config.port, name: config.name, lines, log });
  } catch (err) {
    building.abort();
    begin();
    await lines.catch(() => undefined);
    await removeFolder();
    if (err instanceof HttpListenError) throw new OpmError(err.message, { cause: err });
    throw err;
  }
  return {
    port: server.port,
    fill: begin,
    base: `/catalogs/${encodeURIComponent(config.name)}/api/v1`,
    stop: async () => {
      await server.stop();
      building.abort();
      begin();
      await lines.catch(() => undefined);
      await removeFolder();
    },
  };
}
