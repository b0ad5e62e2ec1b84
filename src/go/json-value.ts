/** Decoded JSON values, and the type guards every reader shares. */

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** An object that is not an array (a decoded JSON or YAML mapping). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A decoded JSON object (for values from a JSON or YAML parser). */
export function isJsonObject(v: unknown): v is JsonObject {
  return isRecord(v);
}

/** A plain object literal (not a class instance such as RawJson): written as a Go map. */
export function isPlainObject(v: object): v is Record<string, unknown> {
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}
