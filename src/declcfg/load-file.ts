/**
 * Loading one catalog file: read it (in parts when it is large), split it into blobs and decode them.
 * The unit of work of a catalog load, run in the loading thread or in a worker (load-pool.ts); what it
 * returns is plain data, so it crosses threads as it is.
 */
import type { Finding } from '../findings.js';
import { decodeBlob, type DecodeIssue, type DecodeOptions } from './decode.js';
import { BlobTooLargeError, maxBlobBytes, readFileParts, readsInParts } from './load-large.js';
import type { WalkedFile } from './load-walk.js';
import { parseCatalogBytes, type ParsedText, type UncheckedBlob } from './parse.js';
import type { ByteChars } from './byte-chars.js';
import { readWhole } from './read-whole.js';
import { addBlob, emptyConfig, type Blob, type DeclarativeConfig, type Location } from './types.js';
import { markNativeJson } from './native-json.js';
import { type JsonObject } from '../go/json-value.js';
import { errnoCode, errnoText } from '../go/errno.js';
import { throwIfAborted } from '../util/abort.js';

export interface LoadOptions extends DecodeOptions {
  /**
   * Threads that read and parse files: 1 loads in this thread; the default is OPM_THREADS of `env`,
   * else the available parallelism (see load-pool.ts).
   */
  threads?: number;
  /** The environment OPM_THREADS is read from (the command line passes the process's); none by default. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Stops the load: checked between files (and between the parts of a large file); the promise then
   * rejects with the signal's reason, and worker threads are terminated (util/abort.ts).
   */
  signal?: AbortSignal;
  /** Catalogs with fewer bytes are loaded in this thread (default IN_THREAD_BYTES of load-pool.ts). */
  workerMinBytes?: number;
  /** The largest blob read (default: OPM_MAX_BLOB_BYTES of `env`, else MAX_BLOB_BYTES of load-large.ts). */
  maxBlobBytes?: number;
  /**
   * Leave the olm.bundle.object payloads on disk when the catalog holds at least `minBytes` (true:
   * DEFER_PAYLOADS_BYTES of payloads.ts) and no file is read in parts: the bundles are loaded with
   * `payloadsElided`, and the config's `payloads` gives them back whole to the writers. For output
   * only: migrations and anything reading the manifests need the payloads loaded.
   */
  deferPayloads?: boolean | { minBytes: number };
  /**
   * Read a JSON file of valid UTF-8 one character per byte where that gives the same values (see
   * ByteChars of parse.ts: for output only, by a caller that reads the file again the usual way when
   * its load has findings); `used` tells whether the file was read so. Files read in parts are read
   * as usual.
   */
  byteChars?: ByteChars;
}

export interface LoadResult {
  cfg: DeclarativeConfig;
  /** Sorted with sortFindings (a catalog's); in file order (a file's, loadFile). */
  findings: Finding[];
}

/** A raw blob and where it came from. */
export interface LocatedObject {
  value: JsonObject;
  loc: Location;
  /** Its values are ready for the JSON writer as they are (RawBlob.nativeJson). */
  nativeJson?: true;
}

function issueFinding(issue: DecodeIssue, loc: Location): Finding {
  return { ...issue, file: loc.file, line: loc.line };
}

/** Decode one raw blob, collecting its findings; undefined when it is not a blob of the catalog. */
function decodeLocated(
  { value, loc, nativeJson }: LocatedObject,
  opts: LoadOptions,
  findings: Finding[],
): Blob | undefined {
  let decoded;
  try {
    decoded = decodeBlob(value, opts);
  } catch (err) {
    // Decoding is not recursive beyond a fixed depth; this guards against surprises in huge input.
    if (!(err instanceof RangeError)) throw err;
    findings.push({
      rule: 'decode.too-deep',
      severity: 'error',
      message: 'blob is nested too deeply',
      ...loc,
    });
    return undefined;
  }
  for (const issue of decoded.issues) findings.push(issueFinding(issue, loc));
  const b = decoded.blob;
  if (!b) return undefined;
  if (nativeJson === true) markNativeJson(b);
  b.value.loc = loc;
  return b;
}

function addParseIssues(parsed: ParsedText, file: string, findings: Finding[]): void {
  for (const i of parsed.issues) {
    findings.push({ rule: i.rule, severity: i.severity, message: i.message, file, line: i.line });
  }
}

/**
 * Load one file; its findings are in file order, not sorted. Never throws for bad content. A file of
 * up to LARGE_FILE_BYTES is read synchronously in one call (readWhole), larger ones in parts
 * asynchronously: the loops over files let the event loop run between files (util/abort.ts).
 */
export async function loadFile(f: WalkedFile, opts: LoadOptions): Promise<LoadResult> {
  const cfg = emptyConfig();
  const findings: Finding[] = [];
  await loadFileBlobs(f, opts, findings, (b) => addBlob(cfg, b));
  return { cfg, findings };
}

/** What `onBlob` threw, carried out of the parse untouched (it is not a problem of the file). */
class ReceiverError {
  readonly cause: unknown;
  constructor(cause: unknown) {
    this.cause = cause;
  }
}

/**
 * Load one file blob by blob: each blob is decoded and handed to `onBlob` as soon as it is read
 * (OnBlob of parse.ts), so that only one YAML document's raw objects are alive at a time, and none at
 * all once a caller is done with each blob before the next (render's file-by-file path). Findings go
 * to `findings` in file order: a part's parse problems, then its blobs'. Never throws for bad content;
 * what `onBlob` throws is thrown as it is.
 */
export async function loadFileBlobs(
  f: WalkedFile,
  opts: LoadOptions,
  findings: Finding[],
  onBlob: (b: Blob, unchecked?: UncheckedBlob) => void,
): Promise<void> {
  const parse = (bytes: Uint8Array, firstLine?: number, byteChars?: ByteChars): void => {
    const decodeFindings: Finding[] = [];
    const parsed = parseCatalogBytes(
      bytes,
      firstLine,
      (raw) => {
        const loc = { file: f.rel, line: raw.line };
        const b = decodeLocated({ value: raw.value, loc, nativeJson: raw.nativeJson }, opts, decodeFindings);
        if (b === undefined) return;
        try {
          onBlob(b, raw.unchecked);
        } catch (err) {
          throw new ReceiverError(err);
        }
      },
      byteChars,
    );
    addParseIssues(parsed, f.rel, findings);
    for (const x of decodeFindings) findings.push(x);
  };
  const maxBlob = opts.maxBlobBytes ?? maxBlobBytes(opts.env);
  try {
    // A file read whole is no larger than the blob limit.
    if (!readsInParts(f.size, maxBlob)) parse(readWhole(f.abs, f.size), undefined, opts.byteChars);
    // Part by part, so only one part's text is alive at a time, and a blob over the limit is
    // refused before it is read whole.
    else
      for await (const part of readFileParts(f.abs, maxBlob)) {
        throwIfAborted(opts.signal);
        parse(part.bytes, part.firstLine);
      }
  } catch (err) {
    if (err instanceof ReceiverError) throw err.cause;
    if (opts.signal?.aborted === true) throw opts.signal.reason;
    const at = err instanceof BlobTooLargeError ? { line: err.line } : {};
    findings.push({
      rule: 'load.unreadable',
      severity: 'error',
      message: readProblem(err),
      file: f.rel,
      ...at,
    });
  }
}

function readProblem(err: unknown): string {
  if (err instanceof BlobTooLargeError) return err.message;
  if (errnoCode(err) === 'ERR_STRING_TOO_LONG') return 'a single blob is too large to parse (over 512 MiB)';
  if (err instanceof RangeError) return 'file is nested too deeply to parse';
  return `cannot read file: ${errnoText(err)}`;
}
