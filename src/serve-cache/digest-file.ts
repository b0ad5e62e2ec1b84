/**
 * The part of opm's cache digest one catalog file gives: each of its blobs as the JSON text opm's
 * Meta keeps (digest.ts, metaBlobText), in file order, as bytes. A file read whole is parsed here
 * on whatever thread runs it (the integrity check spreads the files over worker threads,
 * digest-worker.ts), and the bytes go back to be hashed in walk order. Kept apart from digest.ts so
 * that a worker loads the parser and the JSON encoder, not the loader.
 */
import { marshal } from '../go/json-encode.js';
import type { JsonObject } from '../go/json-value.js';
import { parseCatalogBytes } from '../declcfg/parse.js';
import { readWhole } from '../declcfg/read-whole.js';
import type { WalkedFile } from '../declcfg/load-walk.js';

/** The text opm's declcfg.Meta keeps as `Blob` for a blob of this value. */
export function metaBlobText(value: JsonObject): string {
  return marshal(value, false) + '\n';
}

/** Characters of blob text gathered before they are encoded into one piece of bytes. */
const PIECE_CHARS = 8 * 1024 * 1024;

/**
 * A file's share of the digest: its blobs' texts in order, as bytes (pieces of their own buffers,
 * which can be moved between threads), or where it first fails to parse (no pieces then: the walk
 * stops at the first failing file in walk order, whichever thread parsed it first).
 */
export type FileDigestPart = { pieces: Uint8Array[] } | { error: { message: string; line: number } };

const te = new TextEncoder();

/** The digest bytes of a catalog file read whole (the caller reads larger files in parts). */
export function fileDigestPart(f: WalkedFile): FileDigestPart {
  const parsed = parseCatalogBytes(readWhole(f.abs, f.size), 1);
  const error = parsed.issues.find((i) => i.severity === 'error');
  if (error !== undefined) return { error: { message: error.message, line: error.line } };
  const pieces: Uint8Array[] = [];
  let texts: string[] = [];
  let chars = 0;
  for (const b of parsed.blobs) {
    const t = metaBlobText(b.value);
    texts.push(t);
    chars += t.length;
    if (chars >= PIECE_CHARS) {
      pieces.push(te.encode(texts.join('')));
      texts = [];
      chars = 0;
    }
  }
  if (texts.length > 0) pieces.push(te.encode(texts.join('')));
  return { pieces };
}

/** The buffers a part moves to the thread that hashes it. */
export function digestPartBuffers(p: FileDigestPart): ArrayBuffer[] {
  return 'pieces' in p ? p.pieces.map((b) => b.buffer as ArrayBuffer) : [];
}
