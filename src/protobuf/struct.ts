/**
 * google.protobuf.Struct, the message of ExperimentalListPackageCustomSchemas and of the custom-schema
 * blobs of opm's cache (`metas/<schema>/<package>`): a JSON object whose numbers travel as doubles.
 * Map entries are written in key order, as Go's deterministic marshal does; fields a reader does not
 * know are skipped, as any protobuf reader does.
 */
import { compareUtf8 } from '../go/utf8.js';
import type { JsonObject, JsonValue } from '../go/json-value.js';
import { ProtoDecodeError, ProtoReader, ProtoWriter } from './wire.js';

function encodeValue(v: JsonValue): Uint8Array {
  const w = new ProtoWriter();
  if (v === null) w.uintAlways(1, 0);
  else if (typeof v === 'number') w.doubleAlways(2, v);
  else if (typeof v === 'string') w.stringAlways(3, v);
  else if (typeof v === 'boolean') w.uintAlways(4, v ? 1 : 0);
  else if (Array.isArray(v)) {
    const list = new ProtoWriter();
    for (const item of v) list.bytes(1, encodeValue(item));
    w.bytes(6, list.finish());
  } else w.bytes(5, encodeStruct(v));
  return w.finish();
}

/** A JSON object as a google.protobuf.Struct (`proto.MarshalOptions{Deterministic: true}`). */
export function encodeStruct(obj: JsonObject): Uint8Array {
  const w = new ProtoWriter();
  for (const key of Object.keys(obj).sort(compareUtf8)) {
    const value = obj[key] as JsonValue;
    w.bytes(1, new ProtoWriter().stringAlways(1, key).bytes(2, encodeValue(value)).finish());
  }
  return w.finish();
}

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_BYTES = 2;

function readValue(r: ProtoReader): JsonValue {
  let v: JsonValue = null;
  while (!r.done()) {
    const [f, wire] = r.tag();
    if (f === 1 && wire === WIRE_VARINT) {
      r.varint();
      v = null;
    } else if (f === 2 && wire === WIRE_FIXED64) {
      if (r.pos + 8 > r.end) throw new ProtoDecodeError('truncated double');
      v = Buffer.from(r.buf.buffer, r.buf.byteOffset + r.pos, 8).readDoubleLE(0);
      r.pos += 8;
    } else if (f === 3 && wire === WIRE_BYTES) v = r.string();
    else if (f === 4 && wire === WIRE_VARINT) v = r.varint() !== 0;
    else if (f === 5 && wire === WIRE_BYTES) v = readStruct(r.sub());
    else if (f === 6 && wire === WIRE_BYTES) {
      const list: JsonValue[] = [];
      const sub = r.sub();
      while (!sub.done()) {
        const [lf, lw] = sub.tag();
        if (lf === 1 && lw === WIRE_BYTES) list.push(readValue(sub.sub()));
        else sub.skip(lw);
      }
      v = list;
    } else r.skip(wire);
  }
  return v;
}

function readStruct(r: ProtoReader): JsonObject {
  // No prototype: a key `__proto__` is a key like any other.
  const o = Object.create(null) as JsonObject;
  while (!r.done()) {
    const [f, wire] = r.tag();
    if (f !== 1 || wire !== WIRE_BYTES) {
      r.skip(wire);
      continue;
    }
    const entry = r.sub();
    let key = '';
    let val: JsonValue = null;
    while (!entry.done()) {
      const [ef, ew] = entry.tag();
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
  return readStruct(new ProtoReader(buf));
}
