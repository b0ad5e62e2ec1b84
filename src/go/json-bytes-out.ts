/** JSON output written as UTF-8 bytes into one reusable buffer. */
import { OpmError } from '../errors.js';
import type { JsonOut } from './json-out.js';
import { quoteGoString } from './json-quote.js';

/** Strings at least this long are tried for a straight copy into the output buffer. */
const LONG_STRING = 256;
/** Short text is gathered up to this many characters before it is encoded into the buffer. */
const PENDING_CHARS = 1 << 13;

/**
 * Whether the ASCII string `s` consists of base64 alphabet characters only (`A-Z a-z 0-9 + / - _`,
 * then at most two `=`), none of which Go escapes. Node's base64 decoder skips every other
 * character and stops at `=`, so all of `s` was taken exactly when the decoded length is the one
 * its length implies: dropping a character from a length that is not 1 mod 4 always shortens
 * the result, and lengths of 1 mod 4 are refused outright. Must only be given ASCII strings: the
 * decoder reads just the low byte of wider characters.
 */
function isBase64Alphabet(s: string, scratch: Buffer): boolean {
  let n = s.length;
  if (n > 0 && s.charCodeAt(n - 1) === 0x3d) n--;
  if (n > 0 && s.charCodeAt(n - 1) === 0x3d) n--;
  if (n % 4 === 1) return false;
  return scratch.write(s, 0, scratch.length, 'base64') === Math.floor((n * 3) / 4);
}

/**
 * JSON output written as UTF-8 into one reusable buffer, for writers that stream large outputs.
 * Long strings that need no escaping (base64 payloads, mostly) are copied into the buffer as they
 * are, instead of being quoted, joined into a text and converted to bytes on the way; and reusing
 * the buffer keeps a large output from allocating fresh memory for every piece of it.
 */
/** The most one piece of output (one blob) may take: Node's Buffer.write offsets are 32-bit. */
const MAX_PIECE_BYTES = 2 ** 31 - 1;

export class JsonBytesOut implements JsonOut {
  private buf: Buffer;
  private pos = 0;
  private pending = '';
  private scratch: Buffer = Buffer.alloc(0);
  private encoding: 'utf8' | 'latin1' = 'utf8';

  constructor(initialBytes = 1 << 22) {
    this.buf = Buffer.allocUnsafe(initialBytes);
  }

  /**
   * Whether text is written one byte per character (latin1) instead of as UTF-8: for values read
   * from a file one character per byte (ByteChars of declcfg/parse.ts), whose characters are that
   * file's UTF-8 bytes. What is pending is written first, in the reading it was given in.
   */
  set byteChars(on: boolean) {
    this.flushPending();
    this.encoding = on ? 'latin1' : 'utf8';
  }

  /** Bytes the buffer holds before it has to grow. */
  get capacity(): number {
    return this.buf.length;
  }

  /** Bytes written so far (short text not yet encoded included, counted as characters). */
  get size(): number {
    return this.pos + this.pending.length;
  }

  text(s: string): void {
    if (s.length >= PENDING_CHARS) {
      // Long text (a blob's whole JSON.stringify text) is encoded as it is: joined to what is
      // pending, it would be copied once more to flatten the join before being encoded.
      this.flushPending();
      this.encode(s);
      return;
    }
    this.pending += s;
    if (this.pending.length >= PENDING_CHARS) this.flushPending();
  }

  string(s: string, escapeHTML: boolean): void {
    if (s.length < LONG_STRING || !this.copyPlain(s)) this.text(quoteGoString(s, escapeHTML));
  }

  /** Whether the bytes written from `from` to `to` are those of `other` from `otherFrom` to `otherTo`. */
  sameBytes(from: number, to: number, other: Uint8Array, otherFrom: number, otherTo: number): boolean {
    this.flushPending();
    return to - from === otherTo - otherFrom && this.buf.compare(other, otherFrom, otherTo, from, to) === 0;
  }

  /** Everything written is encoded and its byte length returned (a position for {@link truncate}). */
  mark(): number {
    this.flushPending();
    return this.pos;
  }

  /** Drop what was written after `mark`. */
  truncate(mark: number): void {
    this.flushPending();
    this.pos = Math.min(this.pos, mark);
  }

  /**
   * The bytes written so far, after which the output starts again empty. The view shares the
   * buffer, so it is only valid until the next write.
   */
  take(): Uint8Array {
    this.flushPending();
    const out = this.buf.subarray(0, this.pos);
    this.pos = 0;
    return out;
  }

  private reserve(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    // Buffer writes take 32-bit offsets: past 2 GiB they would silently write nothing.
    if (this.pos + bytes > MAX_PIECE_BYTES) {
      throw new OpmError('a single blob encodes to more than 2 GiB of JSON, which cannot be written', {
        hint: 'a YAML alias repeated many times expands like this; write the value out once',
      });
    }
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + bytes));
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }

  private flushPending(): void {
    const p = this.pending;
    if (p === '') return;
    this.pending = '';
    this.encode(p);
  }

  private encode(s: string): void {
    this.reserve(this.encoding === 'utf8' ? s.length * 3 : s.length);
    this.pos += this.buf.write(s, this.pos, this.encoding);
  }

  /** Write `s` quoted if it needs no escaping; otherwise write nothing and return false. */
  private copyPlain(s: string): boolean {
    this.flushPending();
    const n = s.length;
    // Room for the worst case (3 bytes per UTF-16 unit), so that the write below is never cut
    // short and its byte count says whether every character was ASCII.
    this.reserve(n * 3 + 2);
    const start = this.pos;
    if (this.buf.write(s, start + 1, 'utf8') !== n) return false;
    if (this.scratch.length < n) this.scratch = Buffer.allocUnsafe(n);
    if (!isBase64Alphabet(s, this.scratch)) return false;
    this.buf[start] = 0x22;
    this.buf[start + 1 + n] = 0x22;
    this.pos = start + n + 2;
    return true;
  }
}
