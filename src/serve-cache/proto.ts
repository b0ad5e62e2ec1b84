/**
 * The protobuf values of opm's cache: each `bundles/<package>/<channel>/<bundle>` key holds an
 * `api.Bundle` (the api module's one type, encoder and decoder: api/messages.ts), each custom-schema
 * blob under `metas/<schema>/<package>` a `google.protobuf.Struct`, written as Go's deterministic
 * marshal writes it (map entries in byte order of their keys; the server's encoder, api/struct.ts)
 * and read here back into a JSON object. Fields a reader does not know are skipped, as any protobuf
 * reader does.
 */
import { ProtoDecodeError, ProtoReader } from '../api/wire.js';
import type { JsonObject, JsonValue } from '../go/json-value.js';

/** `proto.MarshalOptions{Deterministic: true}.Marshal` of the Struct structpb reads from a JSON object. */
export { encodeStruct } from '../api/struct.js';

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
