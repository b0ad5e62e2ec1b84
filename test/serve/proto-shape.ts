/**
 * registry.proto as another implementation reads it (protobufjs), for tests that hold the
 * hand-written contract (src/api-contract/) and the server to it: the proto's RPCs, a message of
 * any of its types with every field set, and the bytes of a message checked field by field against
 * the type the proto declares (field numbers and wire types, nested messages included).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const REGISTRY_PROTO = path.join(root, 'src/api-contract/registry.proto');

/** The proto copy's text. */
export function registryProtoText(): string {
  return readFileSync(REGISTRY_PROTO, 'utf8');
}

/** A proto text read with google/protobuf/struct.proto beside it, names kept as written. */
export function parseProto(text: string): protobuf.Root {
  const r = new protobuf.Root();
  r.addJSON((protobuf.common.get('google/protobuf/struct.proto') as protobuf.INamespace).nested ?? {});
  protobuf.parse(text, r, { keepCase: true });
  r.resolveAll();
  return r;
}

export interface Rpc {
  /** `api.Registry/GetBundle`: the path of the call without its leading slash. */
  path: string;
  method: string;
  request: protobuf.Type;
  response: protobuf.Type;
  stream: boolean;
}

/** Every RPC of every service the proto declares, in the proto's order. */
export function rpcsOf(r: protobuf.Root): Rpc[] {
  const out: Rpc[] = [];
  const visit = (ns: protobuf.NamespaceBase): void => {
    for (const n of ns.nestedArray) {
      if (n instanceof protobuf.Service)
        for (const m of n.methodsArray)
          out.push({
            path: `${n.fullName.slice(1)}/${m.name}`,
            method: m.name,
            request: m.resolvedRequestType as protobuf.Type,
            response: m.resolvedResponseType as protobuf.Type,
            stream: m.responseStream === true,
          });
      else if (n instanceof protobuf.Namespace) visit(n);
    }
  };
  visit(r);
  return out;
}

/** Every message type declared in package `api`. */
export function apiMessages(r: protobuf.Root): protobuf.Type[] {
  return (r.lookup('api') as protobuf.Namespace).nestedArray.filter(
    (n): n is protobuf.Type => n instanceof protobuf.Type,
  );
}

/** The full name without the leading dot (`api.Bundle`, `google.protobuf.Struct`). */
export const nameOf = (t: protobuf.Type): string => t.fullName.slice(1);

/**
 * A message of type `t` with every field set to a value of its own (repeated fields twice, nested
 * messages filled in turn), keyed by the proto's field names.
 */
export function fullSample(t: protobuf.Type, counter = { n: 0 }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of t.fieldsArray) {
    const one = (): unknown => {
      counter.n++;
      if (f.resolvedType instanceof protobuf.Type) return fullSample(f.resolvedType, counter);
      if (f.type === 'string') return `${f.name}-${counter.n}`;
      if (f.type === 'bool') return true;
      if (f.type === 'int32') return counter.n;
      if (f.type === 'double') return counter.n + 0.5;
      throw new Error(`${nameOf(t)}.${f.name}: no sample value for type ${f.type}`);
    };
    out[f.name] = f.repeated ? [one(), one()] : one();
  }
  return out;
}

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_BYTES = 2;
const WIRE_FIXED32 = 5;

/** The wire type the proto gives a field (proto3: repeated numbers are packed). */
export function wireTypeOf(f: protobuf.Field): number {
  if (f.map || f.resolvedType instanceof protobuf.Type || f.type === 'string' || f.type === 'bytes')
    return WIRE_BYTES;
  if (f.repeated) return WIRE_BYTES;
  if (['double', 'fixed64', 'sfixed64'].includes(f.type)) return WIRE_FIXED64;
  if (['float', 'fixed32', 'sfixed32'].includes(f.type)) return WIRE_FIXED32;
  return WIRE_VARINT;
}

/**
 * What in `bytes` the proto's type `t` does not declare: a field number it lacks, a field on
 * another wire type than its own; nested messages and map entries are checked the same way.
 * Also the numbers of the fields seen, as `Type.field` paths.
 */
export function checkAgainst(
  t: protobuf.Type,
  bytes: Uint8Array,
  seen = new Set<string>(),
  where = nameOf(t),
): { problems: string[]; seen: Set<string> } {
  const problems: string[] = [];
  const r = protobuf.Reader.create(bytes);
  while (r.pos < r.len) {
    const tag = r.uint32();
    const id = tag >>> 3;
    const wire = tag & 7;
    const f = t.fieldsById[id];
    if (f === undefined) {
      problems.push(`${where}: field number ${id} is not declared by ${nameOf(t)}`);
      r.skipType(wire);
      continue;
    }
    seen.add(`${nameOf(t)}.${f.name}`);
    if (wire !== wireTypeOf(f)) {
      problems.push(`${where}.${f.name} (${id}): wire type ${wire}, the proto says ${wireTypeOf(f)}`);
      r.skipType(wire);
      continue;
    }
    if (f instanceof protobuf.MapField) {
      const entry = protobuf.Reader.create(r.bytes());
      while (entry.pos < entry.len) {
        const et = entry.uint32();
        if (et >>> 3 === 2 && (et & 7) === WIRE_BYTES && f.resolvedType instanceof protobuf.Type)
          problems.push(
            ...checkAgainst(f.resolvedType, entry.bytes(), seen, `${where}.${f.name}[]`).problems,
          );
        else entry.skipType(et & 7);
      }
    } else if (f.resolvedType instanceof protobuf.Type)
      problems.push(...checkAgainst(f.resolvedType, r.bytes(), seen, `${where}.${f.name}`).problems);
    else r.skipType(wire);
  }
  return { problems, seen };
}

/** A message decoded by protobufjs, as plain data keyed by the proto's names (defaults left out). */
export function decodeAs(t: protobuf.Type, bytes: Uint8Array): Record<string, unknown> {
  return t.toObject(t.decode(bytes), { enums: String }) as Record<string, unknown>;
}

/** `value` without the fields proto3 does not send (empty strings and lists, zero, false, undefined). */
export function withoutDefaults(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDefaults);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined || v === '' || v === 0 || v === false) continue;
    if (Array.isArray(v) && v.length === 0) continue;
    out[k] = withoutDefaults(v);
  }
  return out;
}
