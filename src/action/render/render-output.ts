/**
 * `opm render` to its output bytes. One local catalog directory is rendered file by file
 * (render-encode-file.ts): each YAML blob is encoded as soon as it is read (a JSON file's once the
 * file is parsed), and only bytes and what orders them are kept, so the catalog is never held as
 * objects; large enough catalogs are spread over worker threads this way, which then clone nothing
 * for another thread or encode what another loaded. The pieces are then put in opm's order
 * (orderBlobs), which depends only on the blobs, never on which file or thread was first. Until then
 * the bytes of a large catalog wait in a spill file (util/spill.ts) rather than in memory: opm's
 * order is known only once the last file is read, and the encoded output is the largest thing a
 * render holds (docs/performance.md).
 *
 * Warnings (a nested key written twice, invalid UTF-8 in JSON) are said as the ordinary path says
 * them. Anything else, and any catalog with an error, a blob that does not encode or a blob without
 * a package, is rendered the ordinary way (render.ts and the writers): loaded whole, then written.
 * That path reports it exactly as it always has, and the output never depends on the way taken.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import os from 'node:os';
import { isBundleDir } from '../../bundle/parse.js';
import { jsonStart } from '../../declcfg/parse.js';
import { walkCatalogDirSync, type WalkedFile, type WalkResult } from '../../declcfg/load-walk.js';
import { LARGE_FILE_BYTES } from '../../declcfg/load-large.js';
import { mapFilesInWorkers, threadCount } from '../../declcfg/load-pool.js';
import { DEFER_PAYLOADS_BYTES } from '../../declcfg/payloads.js';
import {
  orderBlobs,
  writeJsonBytes,
  writeYaml,
  type PlacedBlob,
  type WriteOptions,
} from '../../declcfg/write.js';
import { migrationsUpTo } from '../../migrations/migrations.js';
import {
  encodeCatalogFile,
  FileHasErrors,
  type EncodedFile,
  type EncodeWork,
  type RenderFormat,
} from './render-encode-file.js';
import { OpmError } from '../../errors.js';
import { imageRefTemplateOf, loadWarningText, render, resolveIn, type RenderOptions } from './render.js';
import { sortFindings } from '../../findings.js';
import { canStartWorker, workerModule } from '../../util/worker-pool.js';
import { Checkpoint } from '../../util/abort.js';
import { closeSpill, openSpill, readSpill, type Spill } from '../../util/spill.js';

export type { RenderFormat } from './render-encode-file.js';

/** The rendering worker (render-worker.ts; bundled as dist/render-worker.cjs). */
export const RENDER_WORKER = workerModule(new URL('./render-worker.js', import.meta.url));

/**
 * Catalogs with fewer bytes of YAML are rendered in the calling thread; JSON files do not count.
 * Workers pay for themselves where parsing YAML is the work, on large catalogs only; on a catalog of
 * payloads they cost more than they save (`npm run bench`: the "render ... threads vs 1" rows;
 * docs/performance.md).
 */
export const RENDER_IN_THREAD_BYTES = 32 * 1024 * 1024;

/**
 * Catalogs of at least this many bytes keep their encoded output in a spill file until it is put in
 * order; smaller ones in memory, where it costs little.
 */
export const SPILL_MIN_BYTES = 1024 * 1024;

export interface RenderOutputOptions extends RenderOptions {
  /**
   * Threads to render with (default: OPM_THREADS of `env`, else the available parallelism; see
   * load-pool.ts).
   */
  threads?: number;
  /** Catalogs with fewer bytes of YAML are rendered in this thread (default RENDER_IN_THREAD_BYTES). */
  parallelMinBytes?: number;
  /**
   * False: a catalog directory is loaded whole and then written, as every other input is, instead
   * of file by file (for tests and benchmarks: the output is the same).
   */
  byFile?: boolean;
  /**
   * Catalogs of at least this many bytes keep their encoded output in a spill file in `spillDir`
   * until it is written (default SPILL_MIN_BYTES; Infinity: never).
   */
  spillMinBytes?: number;
  /** Where spill files are made (default: the system's temporary folder). */
  spillDir?: string;
}

/**
 * Render `opts.refs` in `format`: the output as chunks, in the order to write them. Chunks may
 * share a buffer: each is only valid until the next is asked for (as with writeJsonBytes).
 */
export async function renderOutput(
  opts: RenderOutputOptions,
  format: RenderFormat,
  options: WriteOptions = {},
): Promise<Iterable<Uint8Array | string>> {
  // Parsed first, once: a bad template is an error whichever way the catalog is rendered.
  const parsed: RenderOutputOptions = { ...opts, imageRefTemplate: imageRefTemplateOf(opts) };
  const tried = await byFileOrWalked(parsed, format);
  const done = tried?.done;
  const chunks = done === undefined ? null : orderedChunks(done);
  if (done !== undefined && chunks !== null) {
    sayWarnings(opts, done.files);
    return chunks;
  }
  if (done?.spill !== undefined) closeSpill(done.spill);
  // A walk made to decide is not made again.
  const cfg = await render(tried === null ? parsed : { ...parsed, walked: tried.walked });
  return format === 'json' ? writeJsonBytes(cfg, options) : writeYaml(cfg, options);
}

/** The files' warnings, said as the ordinary path says them: sorted as a whole catalog's, under the ref. */
function sayWarnings(opts: RenderOutputOptions, files: readonly EncodedFile[]): void {
  const warn = opts.onWarning;
  if (warn === undefined) return;
  const display = opts.refs[0] ?? '';
  for (const f of sortFindings(files.flatMap((x) => x.warnings))) warn(loadWarningText(display, f));
}

/** A catalog directory rendered file by file (on worker threads or in this one: the same files). */
interface RenderedByFile {
  files: EncodedFile[];
  /** Where the files' bytes are that are not in memory; closed once they are written. */
  spill?: Spill;
}

/**
 * The walk of the one ref's catalog directory (for render() to load from, when it is not rendered
 * here) and its files encoded one by one, on several threads when that pays; null when the ref is
 * not such a directory or the options call for the ordinary path.
 */
async function byFileOrWalked(
  opts: RenderOutputOptions,
  format: RenderFormat,
): Promise<{ walked: { dir: string; result: WalkResult }; done?: RenderedByFile } | null> {
  const [ref] = opts.refs;
  if (opts.byFile === false || opts.refs.length !== 1 || ref === undefined) return null;
  if (opts.allow !== undefined || opts.loadCatalogDir !== undefined) return null;
  if (migrationsUpTo(opts.migrateLevel ?? '').length > 0) return null;
  const dir = resolveIn(opts.cwd, ref);
  try {
    if (!(await stat(dir)).isDirectory() || (await isBundleDir(dir))) return null;
  } catch {
    return null; // an image reference, or a path render() will report on
  }
  const signal = opts.signal;
  const result = walkCatalogDirSync(dir, signal);
  const declined = { walked: { dir, result } };
  if (result.problems.length > 0) return declined;
  let bytes = 0;
  for (const f of result.files) {
    // Files read in parts, and catalogs whose payloads are left on disk, keep the streaming path.
    if (f.size > LARGE_FILE_BYTES) return declined;
    bytes += f.size;
  }
  if (bytes >= DEFER_PAYLOADS_BYTES) return declined;
  // A file with an error ends the work (encodeCatalogFile), as does a worker that cannot start or
  // dies (out of memory, a stale build): it costs the time it took, not the output, and the catalog
  // is then rendered the ordinary way. An abort is not such a failure: it rejects with its reason.
  const threads = threadCount(opts.threads, opts.env);
  const threaded = onThreads(opts, threads, result.files, bytes) && canStartWorker(RENDER_WORKER);
  const spill =
    bytes >= (opts.spillMinBytes ?? SPILL_MIN_BYTES) ? openSpill(opts.spillDir ?? os.tmpdir()) : undefined;
  const work: EncodeWork = spill === undefined ? { format } : { format, spill };
  let files: EncodedFile[] | null;
  try {
    files = threaded
      ? await mapFilesInWorkers(result.files, threads, RENDER_WORKER, work, encodeCatalogFile, signal).catch(
          () => {
            if (signal?.aborted === true) throw signal.reason;
            return null;
          },
        )
      : await encodeInThisThread(result.files, work, signal);
  } catch (err) {
    if (spill !== undefined) closeSpill(spill);
    throw err;
  }
  if (files === null) {
    if (spill !== undefined) closeSpill(spill);
    return declined;
  }
  return { ...declined, done: spill === undefined ? { files } : { files, spill } };
}

/**
 * Whether a catalog of `bytes` pays for `threads` worker threads (the files are only opened when it
 * might).
 */
function onThreads(
  opts: RenderOutputOptions,
  threads: number,
  files: readonly WalkedFile[],
  bytes: number,
): boolean {
  if (threads < 2 || files.length < 2) return false;
  const minBytes = opts.parallelMinBytes ?? RENDER_IN_THREAD_BYTES;
  return bytes >= minBytes && (minBytes <= 0 || yamlBytes(files) >= minBytes);
}

/**
 * Each file encoded in turn in this thread; null when one has an error or a blob that cannot be
 * written (an OpmError), which the ordinary path reports. Keeping bytes instead of a catalog's worth
 * of objects leaves the garbage collector much less to do (docs/performance.md).
 */
async function encodeInThisThread(
  files: readonly WalkedFile[],
  work: EncodeWork,
  signal: AbortSignal | undefined,
): Promise<EncodedFile[] | null> {
  const out: EncodedFile[] = [];
  const checkpoint = new Checkpoint(signal);
  try {
    for (const f of files) {
      await checkpoint.pass();
      out.push(await encodeCatalogFile(f, work));
    }
  } catch (err) {
    if (signal?.aborted === true) throw signal.reason;
    if (err instanceof FileHasErrors || err instanceof OpmError) return null;
    throw err;
  }
  return out;
}

/** Bytes of the files that are YAML, as the loader tells them from JSON (jsonStart, on a file's first 256 bytes). */
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

/** Where a blob's bytes are: a view of memory, or a range of the spill file. */
type BlobBytes = Uint8Array | { at: number; end: number };

/** Spilled bytes go out in chunks of at least this many (the last one aside). */
const READ_BACK_BYTES = 1 << 20;

/**
 * Encoded files (in walk order) as output chunks in opm's order (the writer gathers them into larger
 * writes); null when a blob has no package. Spilled blobs that follow one another in the spill file
 * are read back together; the spill file is closed once the last chunk is taken, or when the
 * caller stops early (the iterator's return).
 */
function orderedChunks(done: RenderedByFile): Iterable<Uint8Array> | null {
  const blobs: PlacedBlob<BlobBytes>[] = [];
  for (const f of done.files) {
    let start = 0;
    const bytes = f.bytes;
    const at = f.spilledAt ?? 0;
    for (const b of f.blobs) {
      const value = bytes === undefined ? { at: at + start, end: at + b.end } : bytes.subarray(start, b.end);
      blobs.push({ ...b, value });
      start = b.end;
    }
  }
  // A dropped blob is reported by the ordinary path, with the rest of what the catalog has to say.
  // Set by the callback: not narrowed to its first value.
  let droppedAny = false as boolean;
  const groups = orderBlobs(blobs, { onDropped: () => (droppedAny = true) });
  if (droppedAny) return null;
  const ordered = groups.flatMap((g) => g.blobs.map((b) => b.value));
  const spill = done.spill;
  return spill === undefined ? (ordered as Uint8Array[]) : readBack(ordered, spill);
}

/**
 * `ordered` as chunks, spilled ranges read from `spill` (which is closed at the end). Ranges are
 * read one after another into one buffer, which goes out whenever it holds a megabyte or more: a
 * chunk that large is written as it is (writeChunks of the command line), not copied again. A
 * chunk shares that buffer with the next: the writer takes each before it asks for the next.
 */
function* readBack(ordered: readonly BlobBytes[], spill: Spill): Generator<Uint8Array> {
  try {
    const buf = Buffer.allocUnsafe(2 * READ_BACK_BYTES);
    let fill = 0;
    let i = 0;
    while (i < ordered.length) {
      const first = ordered[i] as BlobBytes;
      i++;
      if (first instanceof Uint8Array) {
        // A file whose bytes could not be spilled.
        if (fill > 0) yield buf.subarray(0, fill);
        fill = 0;
        yield first;
        continue;
      }
      // The run of ranges that follow one another in the file, read in pieces that fit.
      let from = first.at;
      let end = first.end;
      for (let next = ordered[i]; next !== undefined && !(next instanceof Uint8Array) && next.at === end;) {
        end = next.end;
        next = ordered[++i];
      }
      while (from < end) {
        const n = Math.min(end - from, buf.length - fill);
        readSpill(spill, buf.subarray(fill), n, from);
        fill += n;
        from += n;
        if (fill >= READ_BACK_BYTES) {
          yield buf.subarray(0, fill);
          fill = 0;
        }
      }
    }
    if (fill > 0) yield buf.subarray(0, fill);
  } finally {
    closeSpill(spill);
  }
}
