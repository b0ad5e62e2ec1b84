/**
 * `opm render` to its output bytes. One local catalog directory large enough to pay for worker
 * threads is rendered file by file on several threads (render-encode-file.ts): each thread loads
 * its files and encodes their blobs, and only bytes and what orders them come back, so no thread
 * clones a catalog for another or encodes what another loaded. The pieces are then put in opm's
 * order (orderBlobs), which depends only on the blobs, never on which thread was first.
 *
 * Anything else, and any catalog with something to say (a finding of any severity, a blob that
 * does not encode, a blob without a package), is rendered the ordinary way (render.ts and the
 * writers), which reports it exactly as it always has: the output never depends on the thread count.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { isBundleDir } from '../bundle/parse.js';
import { walkCatalog } from '../declcfg/load.js';
import { jsonStart } from '../declcfg/parse.js';
import type { WalkedFile } from '../declcfg/load-walk.js';
import { LARGE_FILE_BYTES } from '../declcfg/load-large.js';
import { mapFilesInWorkers, threadCount, workerScript } from '../declcfg/load-pool.js';
import { DEFER_PAYLOADS_BYTES } from '../declcfg/payloads.js';
import {
  orderBlobs,
  writeJsonBytes,
  writeYaml,
  type PlacedBlob,
  type WriteOptions,
} from '../declcfg/write.js';
import { migrationsUpTo } from './migrations.js';
import { encodeCatalogFile, type EncodedFile, type RenderFormat } from './render-encode-file.js';
import { render, type RenderOptions } from './render.js';

export type { RenderFormat } from './render-encode-file.js';

/**
 * Catalogs with fewer bytes of YAML are rendered in the calling thread; JSON files do not count.
 * Workers pay for themselves where parsing is the work: on 2 cores a 54 MB YAML catalog (the
 * corpus catalog four times) rendered 1.2x (JSON) and 1.4x (YAML) faster on two threads, the 14 MB
 * corpus catalog alone 1.07x faster to JSON and 12% slower to YAML, and JSON catalogs of 45 and
 * 58 MB no faster at all (`npm run bench`: the "render ... threads vs 1" rows).
 */
export const RENDER_IN_THREAD_BYTES = 32 * 1024 * 1024;

export interface RenderOutputOptions extends RenderOptions {
  /** Threads to render with (default: OPM_THREADS, else the available parallelism; see load-pool.ts). */
  threads?: number;
  /** Catalogs with fewer bytes of YAML are rendered in this thread (default RENDER_IN_THREAD_BYTES). */
  parallelMinBytes?: number;
}

/** Bytes gathered before a chunk of output is handed out. */
const CHUNK_BYTES = 1 << 20;

/**
 * Render `opts.refs` in `format`: the output as chunks, in the order to write them. Chunks may
 * share a buffer: each is only valid until the next is asked for (as with writeJsonBytes).
 */
export async function renderOutput(
  opts: RenderOutputOptions,
  format: RenderFormat,
  options: WriteOptions = {},
): Promise<Iterable<Uint8Array | string>> {
  const files = await renderOnThreads(opts, format);
  if (files !== null) {
    const chunks = orderedChunks(files);
    if (chunks !== null) return chunks;
  }
  const cfg = await render(opts);
  return format === 'json' ? writeJsonBytes(cfg, options) : writeYaml(cfg, options);
}

/**
 * The one ref's files encoded on several threads, in walk order, or null when that is not the way to
 * render it (exported for tests: the output is the same either way).
 */
export async function renderOnThreads(
  opts: RenderOutputOptions,
  format: RenderFormat,
): Promise<EncodedFile[] | null> {
  const [ref] = opts.refs;
  if (opts.refs.length !== 1 || ref === undefined) return null;
  if (opts.allow !== undefined || opts.loadCatalogDir !== undefined) return null;
  if (migrationsUpTo(opts.migrateLevel ?? '').length > 0) return null;
  // An image reference template is checked by render() even where no bundle directory uses it.
  if (opts.imageRefTemplate !== undefined && opts.imageRefTemplate !== '') return null;
  const threads = threadCount(opts.threads);
  if (threads < 2) return null;
  const dir = path.resolve(opts.cwd ?? process.cwd(), ref);
  try {
    if (!statSync(dir).isDirectory() || (await isBundleDir(dir))) return null;
  } catch {
    return null; // an image reference, or a path render() will report on
  }
  const walked = await walkCatalog(dir).catch(() => null);
  if (walked === null || walked.problems.length > 0 || walked.files.length < 2) return null;
  let bytes = 0;
  for (const f of walked.files) {
    // Files read in parts, and catalogs whose payloads are left on disk, keep the streaming path.
    if (f.size > LARGE_FILE_BYTES) return null;
    bytes += f.size;
  }
  const minBytes = opts.parallelMinBytes ?? RENDER_IN_THREAD_BYTES;
  // The files are only opened to tell YAML from JSON when all of them together would be enough.
  if (bytes >= DEFER_PAYLOADS_BYTES || bytes < minBytes) return null;
  if (minBytes > 0 && yamlBytes(walked.files) < minBytes) return null;
  const script = workerScript('render-worker.cjs');
  if (script === null) return null;
  // A file with findings ends the threads' work (encodeCatalogFile), as does a worker that cannot
  // start or dies (out of memory, a stale build): it costs the time it took, not the output, and
  // the catalog is then rendered in this thread.
  return mapFilesInWorkers(walked.files, threads, script, format, (f) => encodeCatalogFile(f, format)).catch(
    () => null,
  );
}

/** Bytes of the files that are YAML, as the loader tells them from JSON (by their first 256 bytes). */
function yamlBytes(files: readonly WalkedFile[]): number {
  const head = Buffer.alloc(256);
  let total = 0;
  for (const f of files) {
    let fd: number | undefined;
    try {
      fd = openSync(f.abs, 'r');
      const n = readSync(fd, head, 0, head.length, 0);
      if (jsonStart(head.toString('utf8', 0, n)) === -1) total += f.size;
    } catch {
      // Unreadable now: the load will say so.
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
  return total;
}

/** Encoded files (in walk order) as output chunks in opm's order; null when a blob has no package. */
function orderedChunks(files: readonly EncodedFile[]): Uint8Array[] | null {
  const blobs: PlacedBlob<Uint8Array>[] = [];
  for (const f of files) {
    let start = 0;
    for (const b of f.blobs) {
      blobs.push({ ...b, value: f.bytes.subarray(start, b.end) });
      start = b.end;
    }
  }
  // A dropped blob is reported by the ordinary path, with the rest of what the catalog has to say.
  let droppedAny = false;
  const groups = orderBlobs(blobs, { onDropped: () => (droppedAny = true) });
  if (droppedAny) return null;
  // Blobs are gathered into chunks of about a megabyte: a write per blob would cost more.
  const chunks: Uint8Array[] = [];
  let chunk: Uint8Array[] = [];
  let size = 0;
  for (const g of groups) {
    for (const b of g.blobs) {
      chunk.push(b.value);
      size += b.value.length;
      if (size >= CHUNK_BYTES) {
        chunks.push(Buffer.concat(chunk, size));
        chunk = [];
        size = 0;
      }
    }
  }
  if (size > 0) chunks.push(Buffer.concat(chunk, size));
  return chunks;
}
