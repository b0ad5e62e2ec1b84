/**
 * opm's cache digest (operator-registry `pkg/cache`): FNV-1a 64 over the catalog's blobs and then
 * over the cache's own content, written as 16 lowercase hex digits.
 *
 * The blobs are what opm's WalkMetasFS hands on, one at a time: the files of the catalog in walk
 * order (`.indexignore` honoured), the blobs of each file in file order, each blob as the JSON
 * text opm's Meta keeps for it: the blob decoded into a Go map and encoded again, keys sorted,
 * numbers as float64, no HTML escaping, a newline at the end. For YAML that is the JSON of each
 * document. So comments, layout and key order of the files do not count; values do.
 */
import { compareBytes } from './bytes.js';
import { Fnv1a64 } from './hash.js';
import { OpmError } from '../errors.js';
import type { JsonObject } from '../go/json-value.js';
import { walkCatalog } from '../declcfg/load.js';
import { maxBlobBytes, readFileParts, readsInParts } from '../declcfg/load-large.js';
import { IN_THREAD_BYTES, mapFilesInWorkers, threadCount, type Environment } from '../declcfg/load-pool.js';
import type { WalkedFile } from '../declcfg/load-walk.js';
import { parseCatalogBytes, type ParsedText } from '../declcfg/parse.js';
import { readWhole } from '../declcfg/read-whole.js';
import { Checkpoint, throwIfAborted } from '../util/abort.js';
import { canStartWorker, workerModule } from '../util/worker-pool.js';
import { fileDigestPart, metaBlobText, type FileDigestPart } from './digest-file.js';

export { metaBlobText };

export interface MetaBlob {
  /** The catalog file, relative to the catalog root. */
  file: string;
  line: number;
  value: JsonObject;
  /** metaBlobText(value) as UTF-8. */
  bytes: Uint8Array;
}

/**
 * Every blob of a catalog directory in opm's walk order. A file that cannot be read or parsed
 * fails the walk with one line naming it (opm fails there too, in its own words).
 */
export async function* walkMetaBlobs(
  catalogDir: string,
  options: {
    signal?: AbortSignal;
    maxBlobBytes?: number;
    /**
     * Told each file before its blobs, with the very bytes that are parsed (valid only during the
     * call), or undefined for a file read in parts.
     */
    onFile?: (file: WalkedFile, bytes: Uint8Array | undefined) => void;
  } = {},
): AsyncGenerator<MetaBlob> {
  const { signal } = options;
  const walk = await walkCatalog(catalogDir, signal);
  const problem = walk.problems[0];
  if (problem !== undefined) throw new OpmError(problem.message, { at: { file: problem.file } });
  const maxBlob = options.maxBlobBytes ?? maxBlobBytes();
  for (const f of walk.files) {
    throwIfAborted(signal);
    let parts:
      AsyncIterable<{ bytes: Uint8Array; firstLine: number }> | { bytes: Uint8Array; firstLine: number }[];
    if (readsInParts(f.size, maxBlob)) {
      options.onFile?.(f, undefined);
      parts = readFileParts(f.abs, maxBlob);
    } else {
      const bytes = readWhole(f.abs, f.size);
      options.onFile?.(f, bytes);
      parts = [{ bytes, firstLine: 1 }];
    }
    for await (const part of parts) {
      const parsed: ParsedText = parseCatalogBytes(part.bytes, part.firstLine);
      const error = parsed.issues.find((i) => i.severity === 'error');
      if (error !== undefined) throw new OpmError(error.message, { at: { file: f.rel, line: error.line } });
      for (const b of parsed.blobs) {
        yield {
          file: f.rel,
          line: b.line,
          value: b.value,
          bytes: Buffer.from(metaBlobText(b.value), 'utf8'),
        };
      }
    }
  }
}

/** What the digest covers besides the catalog: the cache's keys with their values. */
export type KeyValues = Iterable<readonly [Uint8Array, Uint8Array]>;

/**
 * The pogreb backend's digest: the blobs (`blobs`, or those of `catalogDir` walked here), then
 * every key of the database in byte order, each followed by its value. `entries` must already be
 * in byte order of keys (PogrebReader.entries is); sortEntries sorts a list that is not. `h` may
 * have been fed already (blobs hashed as they were read).
 */
export async function pogrebDigest(
  blobs: Iterable<Uint8Array> | AsyncIterable<Uint8Array>,
  entries: KeyValues,
  h: Fnv1a64 = new Fnv1a64(),
): Promise<string> {
  for await (const b of blobs) h.update(b);
  for (const [k, v] of entries) {
    h.update(k);
    h.update(v);
  }
  return h.hex();
}

/** The integrity check's parsing worker (digest-worker.ts; bundled as dist/digest-worker.cjs). */
export const DIGEST_WORKER = workerModule(new URL('./digest-worker.js', import.meta.url));

/**
 * Catalogs with fewer bytes than this are parsed for the digest in the calling thread, as the
 * loader's threshold has it: below it a worker's start, its parser warming up and its heap cost more
 * than they save, and more so on a loaded machine where no core is idle (docs/performance.md,
 * serve: on the 14 MB community catalog two threads were slower and peaked 30-50 MiB higher).
 */
export const DIGEST_WORKER_MIN_BYTES = IN_THREAD_BYTES;
/**
 * Files parsed on workers at once, in bytes of catalog: their digest bytes are kept until the files
 * before them in walk order are hashed, so a window bounds what is held (a 1 GB catalog is not
 * held whole).
 */
const DIGEST_WINDOW_BYTES = 64 * 1024 * 1024;

export interface HashBlobsOptions {
  signal?: AbortSignal;
  /** Where OPM_THREADS and OPM_MAX_BLOB_BYTES are read (nothing is read without it). */
  env?: Environment;
  /** Threads to parse with (default: threadCount's). */
  threads?: number;
  /** Catalogs with fewer bytes are parsed in this thread (default DIGEST_WORKER_MIN_BYTES). */
  workerMinBytes?: number;
  /** Bytes of catalog files parsed on workers at once (default DIGEST_WINDOW_BYTES). */
  windowBytes?: number;
}

/**
 * Feed `h` with the blob bytes of a catalog directory in walk order, as walkMetaBlobs yields them:
 * the first part of opm's pogreb digest. Files are parsed on worker threads when the catalog is
 * large enough to pay for them (the hash itself is sequential: each file's bytes wait for those
 * before it); files read in parts are hashed as they are read, in this thread. A file that cannot
 * be read or parsed fails with one line naming it, the first such file in walk order.
 */
export async function hashCatalogBlobs(
  catalogDir: string,
  h: Fnv1a64,
  options: HashBlobsOptions = {},
): Promise<void> {
  const { signal } = options;
  const walk = await walkCatalog(catalogDir, signal);
  const problem = walk.problems[0];
  if (problem !== undefined) throw new OpmError(problem.message, { at: { file: problem.file } });
  const maxBlob = maxBlobBytes(options.env);
  let bytes = 0;
  for (const f of walk.files) bytes += f.size;
  const threads = threadCount(options.threads, options.env, bytes);
  const parallel =
    threads > 1 &&
    bytes >= (options.workerMinBytes ?? DIGEST_WORKER_MIN_BYTES) &&
    canStartWorker(DIGEST_WORKER);
  const checkpoint = new Checkpoint(signal);
  const hashPart = (f: WalkedFile, part: FileDigestPart): void => {
    if ('error' in part)
      throw new OpmError(part.error.message, { at: { file: f.rel, line: part.error.line } });
    for (const piece of part.pieces) h.update(piece);
  };
  let window: WalkedFile[] = [];
  let windowBytes = 0;
  const flush = async (): Promise<void> => {
    const files = window;
    window = [];
    windowBytes = 0;
    if (parallel && files.length > 1) {
      const parts = await mapFilesInWorkers(
        files,
        threads,
        DIGEST_WORKER,
        null,
        (f) => Promise.resolve(fileDigestPart(f)),
        signal,
      );
      files.forEach((f, i) => hashPart(f, parts[i] as FileDigestPart));
      return;
    }
    for (const f of files) {
      await checkpoint.pass();
      hashPart(f, fileDigestPart(f));
    }
  };
  for (const f of walk.files) {
    throwIfAborted(signal);
    if (!readsInParts(f.size, maxBlob)) {
      window.push(f);
      windowBytes += f.size;
      if (windowBytes >= (options.windowBytes ?? DIGEST_WINDOW_BYTES)) await flush();
      continue;
    }
    await flush();
    for await (const part of readFileParts(f.abs, maxBlob)) {
      await checkpoint.pass();
      const parsed: ParsedText = parseCatalogBytes(part.bytes, part.firstLine);
      const error = parsed.issues.find((i) => i.severity === 'error');
      if (error !== undefined) throw new OpmError(error.message, { at: { file: f.rel, line: error.line } });
      for (const b of parsed.blobs) h.update(Buffer.from(metaBlobText(b.value), 'utf8'));
    }
  }
  await flush();
}

/** Entries sorted by key bytes, as the digest takes them. */
export function sortEntries<T extends readonly [Uint8Array, Uint8Array]>(entries: Iterable<T>): T[] {
  return [...entries].sort((a, b) => compareBytes(a[0], b[0]));
}
