import type { JsonValue } from '../go/json-value.js';
import type { RawJson } from '../go/raw-json.js';

/** A property: `value` is a decoded JSON value, or RawJson where its text must be kept verbatim. */
export interface Property {
  type: string;
  value: JsonValue | RawJson;
}
