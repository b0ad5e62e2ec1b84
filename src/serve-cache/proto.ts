/**
 * The protobuf binary encoding of the two messages opm's cache stores: `api.Bundle` (the value of
 * each `bundles/<package>/<channel>/<bundle>` key, as Go's proto.Marshal writes it: fields in field
 * number order, proto3 defaults left out) and `google.protobuf.Struct` (each custom-schema blob
 * under `metas/<schema>/<package>`, as Go's deterministic marshal writes it: map entries in byte
 * order of their keys). Field numbers are those of operator-registry's `pkg/api/registry.proto`
 * and of `google/protobuf/struct.proto`. Decoding reads what these write, and skips fields it does
 * not know, as any protobuf reader does.
 */
import type { JsonObject, JsonValue } from '../go/json-value.js';

export interface ApiGroupVersionKind {
  group: string;
  version: string;
  kind: string;
  plural: string;
}

export interface ApiTypedValue {
  type: string;
  value: string;
}

/** The `api.Bundle` message; empty strings and lists are the proto3 defaults (not on the wire). */
export interface ApiBundle {
  csvName: string;
  packageName: string;
  channelName: string;
  csvJson: string;
  object: string[];
  bundlePath: string;
  providedApis: ApiGroupVersionKind[];
  requiredApis: ApiGroupVersionKind[];
  version: string;
  skipRange: string;
  dependencies: ApiTypedValue[];
  properties: ApiTypedValue[];
  replaces: string;
  skips: string[];
  /** Present (possibly with an empty message) or absent. */
  deprecation?: { message: string };
}

/** A Bundle with every field at its default. */
export function emptyApiBundle(): ApiBundle {
  return {
    csvName: '',
    packageName: '',
    channelName: '',
    csvJson: '',
    object: [],
    bundlePath: '',
    providedApis: [],
    requiredApis: [],
    version: '',
    skipRange: '',
    dependencies: [],
    properties: [],
    replaces: '',
    skips: [],
  };
}

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_BYTES = 2;
const WIRE_FIXED32 = 5;

/** Collects a message's bytes in chunks; nested messages are encoded first, then framed. */
class Writer {
  private readonly chunks: Uint8Array[] = [];
  private pending: number[] = [];
  length = 0;

  private flush(): void {
    if (this.pending.length > 0) {
      this.chunks.push(Uint8Array.from(this.pending));
      this.pending = [];
    }
  }
  varint(v: number): void {
    let x = v;
    while (x >= 0x80) {
      this.pending.push((x % 0x80) | 0x80);
      x = Math.floor(x / 0x80);
      this.length++;
    }
    this.pending.push(x);
    this.length++;
  }
  tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }
  raw(b: Uint8Array): void {
    this.flush();
    this.chunks.push(b);
    this.length += b.length;
  }
  bytesField(field: number, b: Uint8Array): void {
    this.tag(field, WIRE_BYTES);
    this.varint(b.length);
    this.raw(b);
  }
  stringField(field: number, s: string): void {
    this.bytesField(field, Buffer.from(s, 'utf8'));
  }
  /** A proto3 string field: left out when empty. */
  optString(field: number, s: string): void {
    if (s !== '') this.stringField(field, s);
  }
  messageField(field: number, m: Writer): void {
    this.bytesField(field, m.finish());
  }
  double(field: number, x: number): void {
    this.tag(field, WIRE_FIXED64);
    const b = Buffer.allocUnsafe(8);
    b.writeDoubleLE(x, 0);
    this.raw(b);
  }
  finish(): Uint8Array {
    this.flush();
    return this.chunks.length === 1 ? (this.chunks[0] as Uint8Array) : Buffer.concat(this.chunks);
  }
}

function gvk(g: ApiGroupVersionKind): Writer {
  const w = new Writer();
  w.optString(1, g.group);
  w.optString(2, g.version);
  w.optString(3, g.kind);
  w.optString(4, g.plural);
  return w;
}

function typedValue(t: ApiTypedValue): Writer {
  const w = new Writer();
  w.optString(1, t.type);
  w.optString(2, t.value);
  return w;
}

/** `proto.Marshal` of an `api.Bundle`. */
export function encodeApiBundle(b: ApiBundle): Uint8Array {
  const w = new Writer();
  w.optString(1, b.csvName);
  w.optString(2, b.packageName);
  w.optString(3, b.channelName);
  w.optString(4, b.csvJson);
  for (const o of b.object) w.stringField(5, o);
  w.optString(6, b.bundlePath);
  for (const g of b.providedApis) w.messageField(7, gvk(g));
  for (const g of b.requiredApis) w.messageField(8, gvk(g));
  w.optString(9, b.version);
  w.optString(10, b.skipRange);
  for (const d of b.dependencies) w.messageField(11, typedValue(d));
  for (const p of b.properties) w.messageField(12, typedValue(p));
  w.optString(13, b.replaces);
  for (const s of b.skips) w.stringField(14, s);
  if (b.deprecation !== undefined) {
    const d = new Writer();
    d.optString(1, b.deprecation.message);
    w.messageField(15, d);
  }
  return w.finish();
}

/**
 * `proto.MarshalOptions{Deterministic: true}.Marshal` of the `google.protobuf.Struct` that
 * structpb reads from a JSON object (numbers are doubles): the server's encoder (api/struct.ts).
 */
export { encodeStruct } from '../api/struct.js';

/** A malformed protobuf message. */
export class ProtoError extends Error {}

class Reader {
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
      if (this.pos >= this.end) throw new ProtoError('truncated varint');
      const b = this.buf[this.pos++] as number;
      x += (b & 0x7f) * mul;
      if (b < 0x80) return x;
      mul *= 0x80;
    }
    throw new ProtoError('varint too long');
  }
  /** The bounds of a length-delimited field's content. */
  span(): [number, number] {
    const n = this.varint();
    const start = this.pos;
    if (start + n > this.end) throw new ProtoError('length-delimited field runs past its message');
    this.pos += n;
    return [start, start + n];
  }
  string(): string {
    const [s, e] = this.span();
    return Buffer.from(this.buf.buffer, this.buf.byteOffset + s, e - s).toString('utf8');
  }
  sub(): Reader {
    const [s, e] = this.span();
    return new Reader(this.buf, s, e);
  }
  skip(wire: number): void {
    if (wire === WIRE_VARINT) this.varint();
    else if (wire === WIRE_FIXED64) this.pos += 8;
    else if (wire === WIRE_BYTES) this.span();
    else if (wire === WIRE_FIXED32) this.pos += 4;
    else throw new ProtoError(`unsupported wire type ${wire}`);
    if (this.pos > this.end) throw new ProtoError('field runs past its message');
  }
  *fields(): Generator<[number, number]> {
    while (!this.done()) {
      const t = this.varint();
      yield [Math.floor(t / 8), t % 8];
    }
  }
}

function readGvk(r: Reader): ApiGroupVersionKind {
  const g: ApiGroupVersionKind = { group: '', version: '', kind: '', plural: '' };
  for (const [f, wire] of r.fields()) {
    if (wire !== WIRE_BYTES || f < 1 || f > 4) r.skip(wire);
    else if (f === 1) g.group = r.string();
    else if (f === 2) g.version = r.string();
    else if (f === 3) g.kind = r.string();
    else g.plural = r.string();
  }
  return g;
}

function readTypedValue(r: Reader): ApiTypedValue {
  const t: ApiTypedValue = { type: '', value: '' };
  for (const [f, wire] of r.fields()) {
    if (wire === WIRE_BYTES && f === 1) t.type = r.string();
    else if (wire === WIRE_BYTES && f === 2) t.value = r.string();
    else r.skip(wire);
  }
  return t;
}

type StringField =
  'csvName' | 'packageName' | 'channelName' | 'csvJson' | 'bundlePath' | 'version' | 'skipRange' | 'replaces';
const STRING_FIELDS: Record<number, StringField> = {
  1: 'csvName',
  2: 'packageName',
  3: 'channelName',
  4: 'csvJson',
  6: 'bundlePath',
  9: 'version',
  10: 'skipRange',
  13: 'replaces',
};

/** `proto.Unmarshal` into an `api.Bundle`. */
export function decodeApiBundle(buf: Uint8Array): ApiBundle {
  const b = emptyApiBundle();
  const r = new Reader(buf);
  for (const [f, wire] of r.fields()) {
    if (wire !== WIRE_BYTES) {
      r.skip(wire);
      continue;
    }
    const s = STRING_FIELDS[f];
    if (s !== undefined) b[s] = r.string();
    else if (f === 5) b.object.push(r.string());
    else if (f === 7) b.providedApis.push(readGvk(r.sub()));
    else if (f === 8) b.requiredApis.push(readGvk(r.sub()));
    else if (f === 11) b.dependencies.push(readTypedValue(r.sub()));
    else if (f === 12) b.properties.push(readTypedValue(r.sub()));
    else if (f === 14) b.skips.push(r.string());
    else if (f === 15) {
      const d = { message: '' };
      const sub = r.sub();
      for (const [df, dw] of sub.fields()) {
        if (df === 1 && dw === WIRE_BYTES) d.message = sub.string();
        else sub.skip(dw);
      }
      b.deprecation = d;
    } else r.skip(wire);
  }
  return b;
}

function readValue(r: Reader): JsonValue {
  let v: JsonValue = null;
  for (const [f, wire] of r.fields()) {
    if (f === 1 && wire === WIRE_VARINT) {
      r.varint();
      v = null;
    } else if (f === 2 && wire === WIRE_FIXED64) {
      if (r.pos + 8 > r.end) throw new ProtoError('truncated double');
      v = Buffer.from(r.buf.buffer, r.buf.byteOffset + r.pos, 8).readDoubleLE(0);
      r.pos += 8;
    } else if (f === 3 && wire === WIRE_BYTES) v = r.string();
    else if (f === 4 && wire === WIRE_VARINT) v = r.varint() !== 0;
    else if (f === 5 && wire === WIRE_BYTES) v = readStruct(r.sub());
    else if (f === 6 && wire === WIRE_BYTES) {
      const list: JsonValue[] = [];
      const sub = r.sub();
      for (const [lf, lw] of sub.fields()) {
        if (lf === 1 && lw === WIRE_BYTES) list.push(readValue(sub.sub()));
        else sub.skip(lw);
      }
      v = list;
    } else r.skip(wire);
  }
  return v;
}

function readStruct(r: Reader): JsonObject {
  // No prototype: a key `__proto__` is a key like any other.
  const o = Object.create(null) as JsonObject;
  for (const [f, wire] of r.fields()) {
    if (f !== 1 || wire !== WIRE_BYTES) {
      r.skip(wire);
      continue;
    }
    const entry = r.sub();
    let key = '';
    let val: JsonValue = null;
    for (const [ef, ew] of entry.fields()) {
      if (ef === 1 && ew === WIRE_BYTES) key = entry.string();
      else if (ef === 2 && ew === WIRE_BYTES) val = readValue(entry.sub());
      else entry.skip(ew);
    }
    o[key] = val;
  }
  return o;
}

/** `proto.Unmarshal` into a `google.protobuf.Struct`, as a JSON object. */
export function decodeStruct(buf: Uint8Array): JsonObject {
  return readStruct(new Reader(buf));
}
