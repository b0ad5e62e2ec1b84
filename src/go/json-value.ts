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

// A UTF-16 surrogate that is not half of a pair.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const HAS_LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A string with each lone surrogate replaced by U+FFFD (see withoutLoneSurrogates). */
export const wellFormed = (s: string): string =>
  HAS_LONE_SURROGATE.test(s) ? s.replace(LONE_SURROGATE, '\ufffd') : s;

/**
 * A parsed JSON value with each lone surrogate in its strings and keys replaced by U+FFFD, as Go's
 * decoder reads a `\u` escape of a surrogate that is not half of a pair (JSON.parse keeps it as a
 * UTF-16 unit, which the writers would take for an invalid byte of a Go string and write as
 * `\ufffd`). Objects holding such a key are rebuilt in their order, the last of two keys that
 * become one winning, as in Go; everything else is changed in place. The walk keeps a stack of its
 * own, as the value may nest deeply.
 */
export function withoutLoneSurrogates(value: JsonValue): JsonValue {
  if (typeof value === 'string') return wellFormed(value);
  if (typeof value !== 'object' || value === null) return value;
  const todo: Array<JsonValue[] | JsonObject> = [value];
  for (let v = todo.pop(); v !== undefined; v = todo.pop()) {
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x = v[i] as JsonValue;
        if (typeof x === 'string') v[i] = wellFormed(x);
        else if (typeof x === 'object' && x !== null) todo.push(x);
      }
      continue;
    }
    let rebuild = false;
    for (const k in v) {
      if (HAS_LONE_SURROGATE.test(k)) rebuild = true;
      const x = v[k] as JsonValue;
      if (typeof x === 'string') v[k] = wellFormed(x);
      else if (typeof x === 'object' && x !== null) todo.push(x);
    }
    if (rebuild) {
      const entries = Object.entries(v);
      for (const [k] of entries) delete v[k];
      for (const [k, x] of entries) {
        // Defined, not assigned: a `__proto__` key stays a key. Two keys that become one keep the
        // place of the first and the value of the last, as JSON.parse keeps a key written twice.
        Object.defineProperty(v, wellFormed(k), {
          value: x,
          writable: true,
          enumerable: true,
          configurable: true,
        });
      }
    }
  }
  return value;
}
