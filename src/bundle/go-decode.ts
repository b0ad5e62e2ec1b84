/**
 * Reading decoded JSON the way Go's json.Unmarshal fills typed structs: absent and null fields
 * are zero values, unknown fields are ignored, field names match exactly or else
 * case-insensitively, and a value of the wrong JSON type is an error.
 */
import { goJsonKind } from '../go/json.js';

export class GoTypeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GoTypeError';
  }
}

export type Obj = Record<string, unknown>;

function mismatch(v: unknown, where: string, goType: string): never {
  throw new GoTypeError(
    `json: cannot unmarshal ${goJsonKind(v)} into Go struct field ${where} of type ${goType}`,
  );
}

/** A field of an object: exact name, else the last key equal to it ignoring case (Go's rule). */
export function field(o: Obj, name: string): unknown {
  if (Object.hasOwn(o, name)) return o[name];
  const lower = name.toLowerCase();
  let found: unknown = undefined;
  for (const k of Object.keys(o)) if (k.toLowerCase() === lower) found = o[k];
  return found;
}

export function asString(v: unknown, where: string): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  return mismatch(v, where, 'string');
}

export function asBool(v: unknown, where: string): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v === 'boolean') return v;
  return mismatch(v, where, 'bool');
}

export function asInt32(v: unknown, where: string): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number' && Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31) return v;
  if (typeof v === 'number')
    throw new GoTypeError(`json: cannot unmarshal number ${v} into Go struct field ${where} of type int32`);
  return mismatch(v, where, 'int32');
}

export function asObject(v: unknown, where: string, goType: string): Obj {
  if (v === undefined || v === null) return {};
  if (typeof v === 'object' && !Array.isArray(v)) return v as Obj;
  return mismatch(v, where, goType);
}

export function asArray(v: unknown, where: string, goType: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v;
  return mismatch(v, where, goType);
}

export function asStringArray(v: unknown, where: string): string[] {
  return asArray(v, where, '[]string').map((e) => asString(e, where));
}

/** A map[string]string. */
export function asStringMap(v: unknown, where: string): Record<string, string> {
  const o = asObject(v, where, 'map[string]string');
  const out: Record<string, string> = {};
  for (const [k, e] of Object.entries(o)) out[k] = asString(e, where);
  return out;
}
