/**
 * Reading decoded JSON the way Go's json.Unmarshal fills typed structs, with Go's error texts:
 * absent and null fields are zero values, unknown fields are ignored, a key fills the field of its
 * exact name or else one equal to it ignoring case (later keys overwrite earlier ones), and a value
 * of the wrong JSON type is an error.
 */

/** Go's name for the JSON type of a decoded value, as in `json: cannot unmarshal <kind> into …`. */
export function goJsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number' || typeof v === 'bigint') return 'number';
  if (typeof v === 'string') return 'string';
  return 'object';
}

/** Go's UnmarshalTypeError for a struct field: `field` is `Struct.path.to.field`. */
export function unmarshalFieldError(v: unknown, field: string, goType: string): string {
  return `json: cannot unmarshal ${goJsonKind(v)} into Go struct field ${field} of type ${goType}`;
}

/** Go's UnmarshalTypeError for a value outside any struct (the top level, a map element). */
export function unmarshalValueError(v: unknown, goType: string): string {
  return `json: cannot unmarshal ${goJsonKind(v)} into Go value of type ${goType}`;
}

/**
 * A key as Go's decoder compares it with a field's name ignoring case (Unicode's simple case
 * folding): lower case, with the two characters beyond ASCII that fold to an ASCII letter taken as
 * that letter, U+212A (Kelvin sign, which lower-cases to `k`) and U+017F (long s, which folds to
 * `s` but is its own lower case).
 */
export function goFold(key: string): string {
  const lower = key.toLowerCase();
  return lower.includes('\u017f') ? lower.replaceAll('\u017f', 's') : lower;
}

/** The struct field (of `names`) that a JSON key fills: its exact name, else one equal ignoring case. */
export function goFieldFor<K extends string>(key: string, names: readonly K[]): K | undefined {
  if (names.includes(key as K)) return key as K;
  const folded = goFold(key);
  return names.find((f) => f.toLowerCase() === folded);
}

/**
 * The key that fills each field, visiting `keys` in the order given (Go's decoder reads an object
 * in document order; a later key for a field overwrites an earlier one).
 */
export function goFieldKeys<K extends string>(keys: Iterable<string>, names: readonly K[]): Map<K, string> {
  const out = new Map<K, string>();
  for (const key of keys) {
    const field = goFieldFor(key, names);
    if (field !== undefined) out.set(field, key);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Typed readers that stop at the first error (throwing GoTypeError), for values read field by field

export class GoTypeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GoTypeError';
  }
}

export type Obj = Record<string, unknown>;

function mismatch(v: unknown, where: string, goType: string): never {
  throw new GoTypeError(unmarshalFieldError(v, where, goType));
}

/** The value of a struct field in an object: the last key that fills it (Go's rule, document order). */
export function field(o: Obj, name: string): unknown {
  const lower = name.toLowerCase();
  let found: unknown = undefined;
  for (const k of Object.keys(o)) if (k === name || goFold(k) === lower) found = o[k];
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
