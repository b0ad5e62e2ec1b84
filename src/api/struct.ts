/**
 * google.protobuf.Struct, the message of ExperimentalListPackageCustomSchemas: a JSON object whose
 * numbers travel as doubles. Map entries are written in key order, as Go's deterministic marshal
 * does.
 */
import { compareUtf8 } from '../go/utf8.js';
import type { JsonObject, JsonValue } from '../go/json-value.js';
import { ProtoWriter } from './wire.js';

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

/** A JSON object as a google.protobuf.Struct. */
export function encodeStruct(obj: JsonObject): Uint8Array {
  const w = new ProtoWriter();
  for (const key of Object.keys(obj).sort(compareUtf8)) {
    const value = obj[key] as JsonValue;
    w.bytes(1, new ProtoWriter().stringAlways(1, key).bytes(2, encodeValue(value)).finish());
  }
  return w.finish();
}
