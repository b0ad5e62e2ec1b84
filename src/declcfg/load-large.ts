/**
 * Reading a large catalog file in parts, so that neither a whole-file string (JavaScript strings stop
 * at about 512 MiB) nor all of its parsed blobs have to exist at once. A file is cut only where a
 * blob surely begins: in YAML at a line starting with `---`; in JSON at a line starting with `{`
 * whose previous non-space byte is `}` (valid JSON cannot have a raw line break inside a string, or
 * `}` then `{` inside a value without a comma between them).
 */
import { open } from 'node:fs/promises';

/** Files above this size are read in parts. */
export const LARGE_FILE_BYTES = 64 * 1024 * 1024;
/** Parts are cut at the first boundary after this many bytes. */
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

/** Yield a file's bytes in parts cut at blob boundaries (see above). */
export async function* readFileParts(file: string): AsyncGenerator<FilePart> {
  const fh = await open(file, 'r');
  try {
    let chunks: Buffer[] = [];
    let size = 0;
    let json: boolean | undefined;
    let firstLine = 1;
    // Bytes to gather before looking for a cut; doubled when a part has no boundary yet, so a
    // huge blob is not copied over and over.
    let target = PART_BYTES;
    for (;;) {
      const chunk = Buffer.allocUnsafe(READ_BYTES);
      const { bytesRead } = await fh.read(chunk, 0, READ_BYTES, null);
      const eof = bytesRead === 0;
      if (!eof) {
        chunks.push(chunk.subarray(0, bytesRead));
        size += bytesRead;
      }
      if (json === undefined) {
        const head = Buffer.concat(chunks);
        const first = head.findIndex((b) => !isSpace(b));
        if (first !== -1) json = head[first] === 0x7b;
      }
      if (eof || (json !== undefined && size >= target)) {
        let pending = Buffer.concat(chunks, size);
        let cut = eof ? -1 : findBoundary(pending, PART_BYTES, json ?? false);
        while (cut !== -1) {
          const part = pending.subarray(0, cut);
          yield { bytes: part, firstLine };
          firstLine += countLines(part);
          pending = pending.subarray(cut);
          cut = findBoundary(pending, PART_BYTES, json ?? false);
        }
        if (eof) {
          if (pending.length > 0) yield { bytes: pending, firstLine };
          return;
        }
        // Copy the rest so the parts already given out can be freed.
        chunks = [Buffer.from(pending)];
        size = pending.length;
        target = size >= PART_BYTES ? size * 2 : PART_BYTES;
      }
    }
  } finally {
    await fh.close();
  }
}
