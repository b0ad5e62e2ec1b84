/** Type guards for decoded JSON and YAML, shared by every reader. */
import type { JsonObject } from '../declcfg/types.js';

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
