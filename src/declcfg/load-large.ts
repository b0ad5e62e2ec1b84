/**
 * Reading a large catalog file in parts, so that neither a whole-file string (JavaScript strings stop
 * at about 512 MiB) nor all of its parsed blobs have to exist at once. A file is cut only where a
 * blob surely begins: in YAML at a line starting with `---`; in JSON at a line starting with `{`
 * whose previous non-space byte is `}` (valid JSON cannot have a raw line break inside a string, or
 * `}` then `{` inside a value without a comma between them).
 *
 * A blob larger than the blob limit (MAX_BLOB_BYTES, lowered by OPM_MAX_BLOB_BYTES) cannot be parsed
 * into one string, so it is refused as soon as that many bytes have gone by without a boundary:
 * what is kept while reading is bounded by the limit, not by the file.
 */
import { open } from 'node:fs/promises';

/** Files above this size are read in parts. */
export const LARGE_FILE_BYTES = 64 * 1024 * 1024;
/**
 * The largest blob read: V8's strings end a little below 512 Mi characters, and a blob's text is
 * one string when it is parsed.
 */
export const MAX_BLOB_BYTES = 512 * 1024 * 1024;
const MAX_BLOB_ENV = 'OPM_MAX_BLOB_BYTES';

/** The blob limit: OPM_MAX_BLOB_BYTES when it is a positive integer below MAX_BLOB_BYTES, else that. */
export function maxBlobBytes(env: Readonly<Record<string, string | undefined>> = {}): number {
  const v = env[MAX_BLOB_ENV]?.trim();
  if (v === undefined || !/^[1-9][0-9]{0,15}$/.test(v)) return MAX_BLOB_BYTES;
  return Math.min(Number(v), MAX_BLOB_BYTES);
}

/**
 * Whether a file of `size` bytes is read in parts, with a blob limit of `maxBlob`: those above
 * LARGE_FILE_BYTES, and those above the limit, so that every blob that can exceed it is checked
 * while reading.
 */
export function readsInParts(size: number, maxBlob: number): boolean {
  return size > Math.min(LARGE_FILE_BYTES, maxBlob);
}

/** A blob over the limit: found while reading, before its text is kept whole. */
export class BlobTooLargeError extends Error {
  /** 1-based line where the blob starts. */
  readonly line: number;
  readonly limit: number;
  constructor(line: number, limit: number) {
    const mib = limit / (1024 * 1024);
    super(
      `a single blob is too large to parse (over ${Number.isInteger(mib) ? `${mib} MiB` : `${limit} bytes`})`,
    );
    this.name = 'BlobTooLargeError';
    this.line = line;
    this.limit = limit;
  }
}
/** Parts are cut at the first boundary after this many bytes (or the blob limit, when lower). */
const PART_BYTES = 16 * 1024 * 1024;
const READ_BYTES = 4 * 1024 * 1024;

export interface FilePart {
  bytes: Buffer;
  /** Line number of the part's first line in the file. */
  firstLine: number;
}

const NL = 0x0a;

function isSpace(b: number | undefined): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0d || b === 0x0a;
}

/** The first boundary at or after `from` (never 0), or -1. */
function findBoundary(buf: Buffer, from: number, json: boolean): number {
  const needle = json ? '\n{' : '\n---';
  for (let i = buf.indexOf(needle, Math.max(0, from - 1)); i !== -1; i = buf.indexOf(needle, i + 1)) {
    if (!json) return i + 1;
    let j = i;
    while (j > 0 && isSpace(buf[j - 1])) j--;
    if (buf[j - 1] === 0x7d) return i + 1;
  }
  return -1;
}

function countLines(buf: Buffer): number {
  let n = 0;
  for (let i = buf.indexOf(NL); i !== -1; i = buf.indexOf(NL, i + 1)) n++;
  return n;
}

/** The line (from `firstLine`, the line of `buf[0]`) of the first byte after `start` that is not a space. */
function lineAt(buf: Buffer, start: number, firstLine: number): number {
  let at = start;
  while (at < buf.length && isSpace(buf[at])) at++;
  return firstLine + countLines(buf.subarray(0, at));
}

/** The last boundary in `buf` (0, its start, when there is none). */
function lastBoundary(buf: Buffer, json: boolean): number {
  let last = 0;
  for (let b = findBoundary(buf, 1, json); b !== -1; b = findBoundary(buf, b + 1, json)) last = b;
  return last;
}

/** The first blob of `buf` longer than `maxBlob` bytes, as a BlobTooLargeError, or undefined. */
function blobOverLimit(buf: Buffer, maxBlob: number): BlobTooLargeError | undefined {
  if (buf.length <= maxBlob) return undefined;
  const first = buf.findIndex((b) => !isSpace(b));
  const json = first !== -1 && buf[first] === 0x7b;
  for (let start = 0; ;) {
    const next = findBoundary(buf, start + 1, json);
    const end = next === -1 ? buf.length : next;
    if (end - start > maxBlob) return new BlobTooLargeError(lineAt(buf, start, 1), maxBlob);
    if (next === -1) return undefined;
    start = next;
  }
}

/**
 * Whether `got`, read after bytes ending with `tail` (their last 3 bytes) whose last byte that is
 * not a space is `before`, brings a boundary that was not in `tail` already.
 */
function bringsBoundary(tail: Buffer, got: Buffer, json: boolean, before: number | undefined): boolean {
  const probe = tail.length === 0 ? got : Buffer.concat([tail, got]);
  const needle = json ? '\n{' : '\n---';
  const from = Math.max(0, tail.length - needle.length + 1);
  for (let i = probe.indexOf(needle, from); i !== -1; i = probe.indexOf(needle, i + 1)) {
    if (!json) return true;
    let j = i;
    while (j > 0 && isSpace(probe[j - 1])) j--;
    if ((j > 0 ? probe[j - 1] : before) === 0x7d) return true;
  }
  return false;
}

/** The last byte of `buf` that is not a space, or undefined. */
function lastNonSpaceOf(buf: Buffer): number | undefined {
  for (let i = buf.length - 1; i >= 0; i--) if (!isSpace(buf[i])) return buf[i];
  return undefined;
}

/**
 * Yield a file's bytes in parts cut at blob boundaries (see above). Throws BlobTooLargeError once
 * more than `maxBlob` bytes have been read since the last boundary: what is held is bounded by the
 * limit (and the part size), whatever the size of the file.
 */
export async function* readFileParts(file: string, maxBlob = MAX_BLOB_BYTES): AsyncGenerator<FilePart> {
  const fh = await open(file, 'r');
  try {
    let chunks: Buffer[] = [];
    let size = 0;
    let json: boolean | undefined;
    let firstLine = 1;
    // Where the blob running at the end of `chunks` began (an offset in them), and whether a
    // boundary has been read since: until one is, the bytes read are only gathered, never joined,
    // and a blob that outgrows the limit is refused at once.
    let blobStart = 0;
    let boundaryRead = false;
    let tail = Buffer.alloc(0);
    let before: number | undefined;
    const cutFrom = Math.min(PART_BYTES, maxBlob);
    for (;;) {
      const chunk = Buffer.allocUnsafe(READ_BYTES);
      const { bytesRead } = await fh.read(chunk, 0, READ_BYTES, null);
      const eof = bytesRead === 0;
      if (!eof) {
        const got = chunk.subarray(0, bytesRead);
        if (json === undefined) {
          const first = got.findIndex((b) => !isSpace(b));
          // Leading white space holds no blob: only its lines are counted.
          if (first === -1) {
            firstLine += countLines(got);
            continue;
          }
          json = got[first] === 0x7b;
        }
        if (!boundaryRead) boundaryRead = bringsBoundary(tail, got, json, before);
        tail = Buffer.from((tail.length === 0 ? got : Buffer.concat([tail, got])).subarray(-3));
        before = lastNonSpaceOf(got) ?? before;
        chunks.push(got);
        size += bytesRead;
        if (!boundaryRead && size - blobStart > maxBlob) {
          throw new BlobTooLargeError(lineAt(chunks[0] as Buffer, blobStart, firstLine), maxBlob);
        }
        if (!boundaryRead || size < cutFrom) continue;
      }
      const isJson = json ?? false;
      let pending = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
      chunks = [];
      let cut = eof ? -1 : findBoundary(pending, cutFrom, isJson);
      const cuts = cut !== -1;
      while (cut !== -1) {
        const part = pending.subarray(0, cut);
        if (cut > maxBlob) {
          const over = blobOverLimit(part, maxBlob);
          if (over !== undefined) throw new BlobTooLargeError(firstLine + over.line - 1, maxBlob);
        }
        yield { bytes: part, firstLine };
        firstLine += countLines(part);
        pending = pending.subarray(cut);
        cut = findBoundary(pending, cutFrom, isJson);
      }
      // The blob at the end of what is read began at the last boundary.
      blobStart = lastBoundary(pending, isJson);
      boundaryRead = false;
      if (pending.length - blobStart > maxBlob) {
        throw new BlobTooLargeError(lineAt(pending, blobStart, firstLine), maxBlob);
      }
      if (eof) {
        if (pending.length > 0) yield { bytes: pending, firstLine };
        return;
      }
      // Copy the rest so the parts already given out can be freed.
      chunks = [cuts ? Buffer.from(pending) : pending];
      size = pending.length;
    }
  } finally {
    await fh.close();
  }
}
