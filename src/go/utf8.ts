/**
 * UTF-8 as Go reads it: Go's string order (byte order), which bytes are invalid, and what a Go
 * string of such bytes becomes.
 */

/**
 * Compare two strings in UTF-8 byte order, which is Go's string order (sort.Strings, map keys in
 * encoding/json, os.ReadDir). UTF-16 code unit order, JavaScript's `<` and default `sort()`, agrees
 * except between surrogates (code points above U+FFFF) and U+E000–U+FFFF, where UTF-8 puts the
 * astral characters last. Every sort whose result is output uses this.
 */
export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) return utf8Rank(x) - utf8Rank(y);
      return x - y;
    }
  }
  return a.length - b.length;
}

function utf8Rank(c: number): number {
  if (c >= 0xe000) return c - 0x800;
  if (c >= 0xd800) return c + 0x2000;
  return c;
}

/** Offset of the first byte that does not belong to a valid UTF-8 sequence. */
export function firstInvalidUtf8(buf: Uint8Array, from = 0): number {
  let i = from;
  while (i < buf.length) {
    const b = buf[i] ?? 0;
    let n: number;
    let min: number;
    if (b < 0x80) {
      i++;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf) {
      n = 1;
      min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
      n = 2;
      min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) {
      n = 3;
      min = 0x10000;
    } else return i;
    let cp = b & (0x3f >> n);
    for (let k = 1; k <= n; k++) {
      const c = buf[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += n + 1;
  }
  return -1;
}

/** Decode UTF-8, writing each byte that does not start a valid sequence as `invalid(byte)`. */
function decodeUtf8With(buf: Buffer, invalid: (byte: number) => string): string {
  let out = '';
  let from = 0;
  for (;;) {
    const at = firstInvalidUtf8(buf, from);
    if (at === -1) return out + buf.toString('utf8', from);
    out += buf.toString('utf8', from, at) + invalid(buf[at] ?? 0);
    from = at + 1;
  }
}

/**
 * Decode UTF-8 as Go does: every byte that does not start a valid sequence becomes one U+FFFD
 * (WHATWG decoding, Node's, folds a truncated sequence into a single U+FFFD instead).
 */
export function decodeUtf8AsGo(buf: Buffer): string {
  return decodeUtf8With(buf, () => '\ufffd');
}

/**
 * Decode bytes that Go keeps as a string as they are: each invalid byte becomes a lone surrogate,
 * which the Go-compatible JSON encoder writes as `\ufffd` (Go's encoder does so for invalid
 * bytes) and UTF-8 output as U+FFFD, while a U+FFFD present in the input stays a character.
 */
export function decodeUtf8KeepingInvalid(buf: Buffer): string {
  return decodeUtf8With(buf, (byte) => String.fromCharCode(0xdc00 + byte));
}
