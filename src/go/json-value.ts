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

/**
 * A parsed JSON value with each lone surrogate in its strings and keys replaced by U+FFFD, as Go's
 * decoder reads a `\u` escape of a surrogate that is not half of a pair (JSON.parse keeps it as a
 * UTF-16 unit, which the writers would take for an invalid byte of a Go string and write as
 * `\ufffd`). Objects holding such a key are rebuilt in their order, the last of two keys that
 * become one winning, as in Go; everything else is changed in place. The walk keeps a stack of its
 * own, as the value may nest deeply.
 */
export function withoutLoneSurrogates(value: JsonValue): JsonValue {
  if (typeof value === 'string') return value.toWellFormed();
  if (typeof value !== 'object' || value === null) return value;
  const todo: Array<JsonValue[] | JsonObject> = [value];
  for (let v = todo.pop(); v !== undefined; v = todo.pop()) {
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x = v[i] as JsonValue;
        if (typeof x === 'string') v[i] = x.toWellFormed();
        else if (typeof x === 'object' && x !== null) todo.push(x);
      }
      continue;
    }
    let rebuild = false;
    for (const k in v) {
      if (!k.isWellFormed()) rebuild = true;
      const x = v[k] as JsonValue;
      if (typeof x === 'string') v[k] = x.toWellFormed();
      else if (typeof x === 'object' && x !== null) todo.push(x);
    }
    if (rebuild) {
      const entries = Object.entries(v);
      for (const [k] of entries) delete v[k];
      for (const [k, x] of entries) {
        // Defined, not assigned: a `__proto__` key stays a key. Two keys that become one keep the
        // place of the first and the value of the last, as JSON.parse keeps a key written twice.
        Object.defineProperty(v, k.toWellFormed(), {
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
