/**
 * ListBundles' message of a cached bundle with an image, made from the stored bytes: the stored
 * `api.Bundle` less its CSV (field 4) and objects (field 5), which are skipped unread. They are most
 * of a bundle's bytes, so a bundle costs a few small reads and copies instead of reading, decoding
 * and encoding again all of it (the first ListBundles from a prebuilt cache of the corpus catalog
 * read about 50 MB to send 1.2 MB).
 *
 * The bytes are those decodeBundle then encodeBundle would give (api-contract/messages.ts) only when the
 * stored message is written as proto.Marshal and encodeBundle write it: fields in number order,
 * each known and length-delimited, singular strings non-empty and present once, minimal varints,
 * valid UTF-8, nested messages likewise. Anything else, and a bundle without an image (whose
 * message keeps its manifests), gives undefined: the caller decodes and encodes the bundle as
 * before, so what is sent never depends on which way it was made.
 */
import { isUtf8 } from 'node:buffer';
import type { StoredValue } from './pogreb.js';

/** How much of a value one read takes beyond what is asked: a bundle's small fields at once. */
const CHUNK = 8 * 1024;

/** Bundle fields that repeat (objects, provided and required APIs, dependencies, properties, skips). */
const REPEATED = new Set([5, 7, 8, 11, 12, 14]);
/** Bundle fields that are strings (csvJson, 4, is dropped unread). */
const STRINGS = new Set([1, 2, 3, 6, 9, 10, 13, 14]);
/** The highest field of each nested message: GroupVersionKind, Dependency/Property, Deprecation. */
const NESTED_FIELDS: Readonly<Record<number, number>> = { 7: 4, 8: 4, 11: 2, 12: 2, 15: 1 };
const CSV_JSON = 4;
const OBJECT = 5;
const BUNDLE_PATH = 6;
const WIRE_BYTES = 2;

/** A varint read from a buffer: its value and where the next byte is; `next` -1 when malformed. */
const cursor = { value: 0, next: 0 };

/** Reads the minimal varint at `p` (before `end`) into `cursor`; `cursor.next` is -1 otherwise. */
function varint(buf: Uint8Array, p: number, end: number): void {
  let value = 0;
  let mul = 1;
  for (let i = p; i < end && i < p + 8; i++) {
    const b = buf[i] as number;
    value += (b & 0x7f) * mul;
    if (b < 0x80) {
      // A last byte of 0 after others is a longer form than proto writes.
      cursor.value = value;
      cursor.next = b === 0 && i > p ? -1 : i + 1;
      return;
    }
    mul *= 0x80;
  }
  cursor.next = -1;
}

/** Whether `buf[start, end)` is UTF-8: ASCII looked at here, anything else by Node.js. */
function utf8(buf: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if ((buf[i] as number) >= 0x80) return isUtf8(buf.subarray(i, end));
  return true;
}

/**
 * Whether `buf[start, end)` is a nested message of string fields 1..`maxField` as proto writes it:
 * in order, each once, non-empty, UTF-8.
 */
function plainNested(buf: Uint8Array, start: number, end: number, maxField: number): boolean {
  let p = start;
  let last = 0;
  while (p < end) {
    varint(buf, p, end);
    if (cursor.next === -1) return false;
    const field = Math.floor(cursor.value / 8);
    if (cursor.value % 8 !== WIRE_BYTES || field <= last || field > maxField) return false;
    last = field;
    varint(buf, cursor.next, end);
    const from = cursor.next;
    const to = from + cursor.value;
    if (from === -1 || cursor.value === 0 || to > end || !utf8(buf, from, to)) return false;
    p = to;
  }
  return true;
}

/** A stored value's bytes from a position on, read a chunk at a time into one reused buffer. */
export class StoredWindow {
  buf = new Uint8Array(CHUNK);
  private value: StoredValue | undefined;
  private start = 0;
  private end = 0;

  /** Start on `value`, whose first `headLength` bytes are at the start of `buf` already. */
  reset(value: StoredValue, headLength: number): void {
    this.value = value;
    this.start = 0;
    this.end = headLength;
  }

  /**
   * Where `[pos, pos + length)` of the value is in `buf`, reading it when it is not there; a read
   * starts at `keep` (at most `pos`) so that the bytes from there on stay in `buf` too.
   */
  at(pos: number, length: number, keep = pos): number {
    if (pos >= this.start && pos + length <= this.end) return pos - this.start;
    const v = this.value as StoredValue;
    const from = Math.min(keep, pos);
    const want = Math.min(Math.max(pos + length - from, CHUNK), v.size - from);
    if (this.buf.length < want) this.buf = new Uint8Array(Math.max(want, this.buf.length * 2));
    v.read(this.buf, 0, want, from);
    this.start = from;
    this.end = from + want;
    return pos - from;
  }

  /** Where value position `pos`, which a read has brought in, is in `buf`. */
  offset(pos: number): number {
    return pos - this.start;
  }
}

/** The bytes kept for the message, gathered in one reused buffer. */
class Gathered {
  private buf = new Uint8Array(4096);
  length = 0;
  add(from: Uint8Array, start: number, end: number): void {
    const n = end - start;
    if (this.length + n > this.buf.length) {
      const bigger = new Uint8Array(Math.max(this.length + n, this.buf.length * 2));
      bigger.set(this.buf.subarray(0, this.length));
      this.buf = bigger;
    }
    this.buf.set(from.subarray(start, end), this.length);
    this.length += n;
  }
  /** A copy of what was gathered. */
  take(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

/** Reads stored bundles into ListBundles messages, reusing its buffers from one bundle to the next. */
export class ListedBundleReader {
  private readonly window = new StoredWindow();
  private readonly out = new Gathered();

  /**
   * The ListBundles message of a stored bundle, or undefined when it is not there, has no image or
   * is not written as proto writes it (module comment). `open` finds it and reads its first bytes
   * into the buffer it is given.
   */
  read(
    open: (head: Uint8Array) => { value: StoredValue; headLength: number } | undefined,
  ): Uint8Array | undefined {
    const w = this.window;
    const found = open(w.buf);
    if (found === undefined) return undefined;
    const value = found.value;
    w.reset(value, found.headLength);
    this.out.length = 0;
    const size = value.size;
    let pos = 0;
    let last = 0;
    let image = false;
    // The kept fields since the last one dropped: one run of the value, copied out at once.
    let run = 0;
    while (pos < size) {
      // A tag and a length take at most 20 bytes.
      const head = Math.min(20, size - pos);
      let o = w.at(pos, head, run);
      varint(w.buf, o, o + head);
      if (cursor.next === -1) return undefined;
      const field = Math.floor(cursor.value / 8);
      if (cursor.value % 8 !== WIRE_BYTES || field < 1 || field > 15) return undefined;
      if (field < last || (field === last && !REPEATED.has(field))) return undefined;
      last = field;
      varint(w.buf, cursor.next, o + head);
      if (cursor.next === -1) return undefined;
      const contentAt = pos + (cursor.next - o);
      const end = contentAt + cursor.value;
      if (end > size) return undefined;
      if (field === CSV_JSON || field === OBJECT) {
        if (run < pos) this.out.add(w.buf, w.offset(run), w.offset(pos));
        pos = end;
        run = end;
        continue;
      }
      if (cursor.value === 0 && STRINGS.has(field) && !REPEATED.has(field)) return undefined;
      o = w.at(pos, end - pos, run);
      const from = o + (contentAt - pos);
      const to = o + (end - pos);
      const nested = NESTED_FIELDS[field];
      if (nested !== undefined ? !plainNested(w.buf, from, to, nested) : !utf8(w.buf, from, to))
        return undefined;
      if (field === BUNDLE_PATH) image = true;
      pos = end;
    }
    if (!image) return undefined;
    if (run < pos) this.out.add(w.buf, w.offset(run), w.offset(pos));
    return this.out.take();
  }
}
