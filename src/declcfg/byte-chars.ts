/**
 * A JSON file read one character per byte (latin1) rather than decoded as UTF-8, when that gives
 * the same values (ByteChars): what a caller asks for, and the tests that allow it.
 */
import type { JsonObject } from '../go/json-value.js';

/**
 * Asks parseCatalogBytes to read a JSON file whose bytes are valid UTF-8 but not all ASCII one
 * character per byte (latin1), as it reads an ASCII file: decoding UTF-8 into two-byte text, then
 * parsing, writing and encoding that text back to UTF-8 cost markedly more than the same steps
 * over one-byte text (docs/performance.md). Each string then holds its UTF-8 bytes as characters,
 * which JSON.parse and JSON.stringify carry through unchanged, which sort as the bytes do (Go's
 * order) and which a writer given the same reading (go/json-bytes-out.ts) puts back byte for byte.
 * For output only, by a caller that reads the file again the usual way when its load has anything
 * to say (a message would show the bytes as characters) and that turns the names it keeps into
 * text. A file is read so only when that gives the same values in every other respect:
 * readableByteForChar, and object keys of a blob's top level in ASCII (they are compared ignoring
 * case); otherwise an error (NOT_BYTE_CHARS) ends the parse.
 */
export interface ByteChars {
  /** Set by parseCatalogBytes when it read the file one character per byte. */
  used: boolean;
  /**
   * Leave the checks of each JSON blob's text, and the count of its lines, to the caller
   * (UncheckedBlob), in a file read one character per byte or of ASCII: the walk and the scan that
   * count its keys, and the search of each line break, are a good part of render -o json of a
   * catalog of JSON files, whose blobs are mostly written as opm writes them (docs/performance.md).
   */
  deferChecks?: boolean;
  /** Set by parseCatalogBytes when it left them so: the file is JSON, of ASCII or read by bytes. */
  deferred?: boolean;
}

/** The error that ends a parse one character per byte where the usual reading would differ. */
export const NOT_BYTE_CHARS = 'a blob key is not ASCII: the file is to be read as UTF-8 text';

/** A character beyond ASCII (no `g` flag: `test` keeps no state). */
export const NON_ASCII = /[\u0080-\uffff]/;

export function asciiKeys(o: JsonObject): boolean {
  for (const k in o) if (NON_ASCII.test(k)) return false;
  return true;
}

// U+2028 and U+2029, which Go writes escaped, and U+212A (Kelvin sign), which lower-cases to `k`.
const LINE_SEPARATOR = '\u2028';
const PARAGRAPH_SEPARATOR = '\u2029';
const KELVIN = '\u212a';

/**
 * Whether a JSON file's valid UTF-8 bytes read one character per byte give what their text gives:
 * the file starts with `{` after ASCII white space (no byte-order mark); holds no character that Go
 * writes otherwise than as its bytes (U+2028, U+2029) or that lower-cases to ASCII (U+212A); and
 * no `\u` escape of a character beyond ASCII, which JSON.parse would turn into one character where
 * the bytes of the text give several.
 */
/**
 * A Buffer, named by shape: the library's declarations name no Node.js type, so that a consumer
 * type-checks without @types/node.
 */
type ByteText = Uint8Array & {
  includes(value: string): boolean;
  indexOf(value: string, byteOffset?: number): number;
};

export function readableByteForChar(bytes: ByteText): boolean {
  let i = 0;
  for (let c = bytes[0]; c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = bytes[++i]);
  if (bytes[i] !== 0x7b) return false;
  if (bytes.includes(LINE_SEPARATOR) || bytes.includes(PARAGRAPH_SEPARATOR) || bytes.includes(KELVIN))
    return false;
  for (let at = bytes.indexOf('\\u'); at !== -1; at = bytes.indexOf('\\u', at + 2)) {
    const d = bytes[at + 4] ?? 0;
    if (bytes[at + 2] !== 0x30 || bytes[at + 3] !== 0x30 || d < 0x30 || d > 0x37) return false;
  }
  return true;
}
