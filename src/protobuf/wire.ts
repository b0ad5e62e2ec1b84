/**
 * The protobuf binary format, as far as the catalog server's messages need it: varints,
 * length-delimited fields (strings, bytes, nested messages), 64-bit doubles and packed repeated
 * varints. proto3 rules: a field holding its default value (empty string, 0, false, empty list,
 * absent message) is not written.
 */

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LENGTH = 2;
const WIRE_START_GROUP = 3;
const WIRE_END_GROUP = 4;
const WIRE_FIXED32 = 5;

/** Writes one message; nested messages are written by a writer of their own and added as bytes. */
export class ProtoWriter {
  private readonly chunks: Uint8Array[] = [];
  private scratch = new Uint8Array(64);
  /** The scratch's bytes as a Buffer, to write short strings into them without a copy of their own. */
  private text = Buffer.from(this.scratch.buffer, this.scratch.byteOffset, this.scratch.length);
  private used = 0;

  private reserve(n: number): void {
    if (this.used + n <= this.scratch.length) return;
    this.flushScratch();
    if (n > this.scratch.length) {
      this.scratch = new Uint8Array(Math.max(n, this.scratch.length * 2));
      this.text = Buffer.from(this.scratch.buffer, this.scratch.byteOffset, this.scratch.length);
    }
  }

  private flushScratch(): void {
    if (this.used === 0) return;
    this.chunks.push(this.scratch.slice(0, this.used));
    this.used = 0;
  }

  private varint(v: number): void {
    this.reserve(10);
    let x = v;
    while (x > 0x7f) {
      this.scratch[this.used++] = (x & 0x7f) | 0x80;
      x = Math.floor(x / 128);
    }
    this.scratch[this.used++] = x;
  }

  private tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  private raw(bytes: Uint8Array): void {
    if (bytes.length <= 256) {
      this.reserve(bytes.length);
      this.scratch.set(bytes, this.used);
      this.used += bytes.length;
      return;
    }
    this.flushScratch();
    this.chunks.push(bytes);
  }

  /** A string field (left out when empty). */
  string(field: number, s: string | undefined): this {
    if (s === undefined || s === '') return this;
    return this.stringAlways(field, s);
  }

  /** A string written even when empty (an element of a repeated string field). */
  stringAlways(field: number, s: string): this {
    this.tag(field, WIRE_LENGTH);
    // Up to 85 UTF-16 units is at most 255 bytes: written in place, as raw() would copy them.
    if (s.length <= 85) {
      const n = Buffer.byteLength(s, 'utf8');
      this.varint(n);
      this.reserve(n);
      this.used += this.text.write(s, this.used, n, 'utf8');
      return this;
    }
    const bytes = Buffer.from(s, 'utf8');
    this.varint(bytes.length);
    this.raw(bytes);
    return this;
  }

  /** Every element of a repeated string field, empty ones included (as proto3 writes them). */
  strings(field: number, list: readonly string[] | undefined): this {
    for (const s of list ?? []) this.stringAlways(field, s);
    return this;
  }

  /** A bytes field written even when empty (an element of a repeated field). */
  bytes(field: number, b: Uint8Array): this {
    this.tag(field, WIRE_LENGTH);
    this.varint(b.length);
    this.raw(b);
    return this;
  }

  /** A nested message (already encoded), written even when empty: its presence is the value. */
  message(field: number, encoded: Uint8Array | undefined): this {
    if (encoded === undefined) return this;
    return this.bytes(field, encoded);
  }

  /** A non-negative int32, enum or bool field (left out when 0/false). */
  uint(field: number, v: number | boolean | undefined): this {
    const n = v === true ? 1 : v === false || v === undefined ? 0 : v;
    if (n === 0) return this;
    this.tag(field, WIRE_VARINT);
    this.varint(n);
    return this;
  }

  /** An int32 that may be negative (ten-byte varint, as protobuf writes it). */
  int32(field: number, v: number): this {
    if (v === 0) return this;
    if (v > 0) return this.uint(field, v);
    this.tag(field, WIRE_VARINT);
    const big = BigInt.asUintN(64, BigInt(v));
    this.reserve(10);
    let x = big;
    while (x > 0x7fn) {
      this.scratch[this.used++] = Number(x & 0x7fn) | 0x80;
      x >>= 7n;
    }
    this.scratch[this.used++] = Number(x);
    return this;
  }

  /** A double written even when 0 (a oneof member: its presence is the value). */
  doubleAlways(field: number, v: number): this {
    this.tag(field, WIRE_FIXED64);
    this.reserve(8);
    new DataView(this.scratch.buffer, this.scratch.byteOffset).setFloat64(this.used, v, true);
    this.used += 8;
    return this;
  }

  /** A varint written even when 0 (a oneof member). */
  uintAlways(field: number, v: number): this {
    this.tag(field, WIRE_VARINT);
    this.varint(v);
    return this;
  }

  finish(): Uint8Array {
    this.flushScratch();
    if (this.chunks.length === 1) return this.chunks[0] as Uint8Array;
    return Buffer.concat(this.chunks);
  }
}

/** One field read from a message. */
export interface ProtoField {
  field: number;
  wire: number;
  /** The value of a varint field (as a number: the fields read here are small). */
  varint: number;
  /** The contents of a length-delimited field. */
  bytes: Uint8Array;
}

export class ProtoDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtoDecodeError';
  }
}

/**
 * The fields of an encoded message, in order. Groups (wire types 3 and 4, which no proto3 message
 * declares) are skipped whole, as protobuf-go skips them as unknown fields; other wire types,
 * an end without its start and truncation throw.
 */
export function* readFields(buf: Uint8Array): Generator<ProtoField> {
  let pos = 0;
  const readVarint = (): number => {
    let result = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      if (pos >= buf.length) throw new ProtoDecodeError('truncated varint');
      const b = buf[pos++] as number;
      result += (b & 0x7f) * mul;
      if (b < 0x80) return result;
      mul *= 128;
    }
    throw new ProtoDecodeError('varint too long');
  };
  const empty = new Uint8Array(0);
  while (pos < buf.length) {
    const key = readVarint();
    const field = Math.floor(key / 8);
    const wire = key % 8;
    if (field === 0) throw new ProtoDecodeError('field number 0');
    switch (wire) {
      case WIRE_VARINT:
        yield { field, wire, varint: readVarint(), bytes: empty };
        break;
      case WIRE_FIXED64:
        if (pos + 8 > buf.length) throw new ProtoDecodeError('truncated fixed64');
        yield { field, wire, varint: 0, bytes: buf.subarray(pos, pos + 8) };
        pos += 8;
        break;
      case WIRE_LENGTH: {
        const len = readVarint();
        if (pos + len > buf.length) throw new ProtoDecodeError('truncated length-delimited field');
        yield { field, wire, varint: 0, bytes: buf.subarray(pos, pos + len) };
        pos += len;
        break;
      }
      case WIRE_FIXED32:
        if (pos + 4 > buf.length) throw new ProtoDecodeError('truncated fixed32');
        yield { field, wire, varint: 0, bytes: buf.subarray(pos, pos + 4) };
        pos += 4;
        break;
      case WIRE_START_GROUP: {
        // Skip to the matching end, over any groups nested in it.
        const open = [field];
        while (open.length > 0) {
          if (pos >= buf.length) throw new ProtoDecodeError('truncated group');
          const inner = readVarint();
          const innerField = Math.floor(inner / 8);
          if (innerField === 0) throw new ProtoDecodeError('field number 0');
          switch (inner % 8) {
            case WIRE_VARINT:
              readVarint();
              break;
            case WIRE_FIXED64:
              pos += 8;
              break;
            case WIRE_LENGTH:
              pos += readVarint();
              break;
            case WIRE_FIXED32:
              pos += 4;
              break;
            case WIRE_START_GROUP:
              open.push(innerField);
              break;
            case WIRE_END_GROUP:
              if (open.pop() !== innerField) throw new ProtoDecodeError('mismatched end of group');
              break;
            default:
              throw new ProtoDecodeError(`unsupported wire type ${inner % 8}`);
          }
          if (pos > buf.length) throw new ProtoDecodeError('truncated group');
        }
        break;
      }
      default:
        throw new ProtoDecodeError(`unsupported wire type ${wire}`);
    }
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A string field's text; invalid UTF-8 throws (proto3 strings must be UTF-8). */
export function fieldString(f: ProtoField): string {
  if (f.wire !== WIRE_LENGTH) throw new ProtoDecodeError(`field ${f.field}: not a string`);
  try {
    return UTF8.decode(f.bytes);
  } catch {
    throw new ProtoDecodeError(`field ${f.field}: invalid UTF-8`);
  }
}

/**
 * Decode a message of string fields only (every request of the registry): field number → name.
 * Unknown fields are skipped, as protobuf does.
 */
export function decodeStrings<K extends string>(
  buf: Uint8Array,
  names: Readonly<Record<number, K>>,
): Record<K, string> {
  const out = {} as Record<K, string>;
  for (const n of Object.values<K>(names)) out[n] = '';
  for (const f of readFields(buf)) {
    const name = names[f.field];
    // A known field on another wire type is an unknown field to protobuf-go: skipped too.
    if (name !== undefined && f.wire === WIRE_LENGTH) out[name] = fieldString(f);
  }
  return out;
}

/** Reads one message's fields between two offsets of a buffer, without copying. */
export class ProtoReader {
  pos: number;
  readonly buf: Uint8Array;
  readonly end: number;
  constructor(buf: Uint8Array, start = 0, end = buf.length) {
    this.buf = buf;
    this.pos = start;
    this.end = end;
  }
  done(): boolean {
    return this.pos >= this.end;
  }
  varint(): number {
    let x = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new ProtoDecodeError('truncated varint');
      const b = this.buf[this.pos++] as number;
      x += (b & 0x7f) * mul;
      if (b < 0x80) return x;
      mul *= 0x80;
    }
    throw new ProtoDecodeError('varint too long');
  }
  /** The bounds of a length-delimited field's content. */
  span(): [number, number] {
    const n = this.varint();
    const start = this.pos;
    if (start + n > this.end) throw new ProtoDecodeError('length-delimited field runs past its message');
    this.pos += n;
    return [start, start + n];
  }
  string(): string {
    const [s, e] = this.span();
    return Buffer.from(this.buf.buffer, this.buf.byteOffset + s, e - s).toString('utf8');
  }
  sub(): ProtoReader {
    const [s, e] = this.span();
    return new ProtoReader(this.buf, s, e);
  }
  skip(wire: number): void {
    if (wire === WIRE_VARINT) this.varint();
    else if (wire === WIRE_FIXED64) this.pos += 8;
    else if (wire === WIRE_LENGTH) this.span();
    else if (wire === WIRE_FIXED32) this.pos += 4;
    else throw new ProtoDecodeError(`unsupported wire type ${wire}`);
    if (this.pos > this.end) throw new ProtoDecodeError('field runs past its message');
  }
  /** The next field's number and wire type. */
  tag(): [number, number] {
    const t = this.varint();
    return [Math.floor(t / 8), t % 8];
  }
}
