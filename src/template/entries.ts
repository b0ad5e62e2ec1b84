/**
 * The `entries` of basic and substitutes templates: FBC blobs, each kept with its line so errors
 * can point at it.
 */
import { OpmError } from '../errors.js';
import { isJsonObject, type JsonObject } from '../go/json-value.js';
import { goQuote } from '../go/fmt.js';
import { getFolded, type TemplateDocument } from './input.js';

export interface TemplateEntry {
  value: JsonObject;
  /** 0-based position in `entries`. */
  index: number;
  line: number;
}

/** The value of a key matched case-insensitively, as a string ('' when absent or not a string). */
export function stringField(obj: JsonObject, key: string): string {
  const v = getFolded(obj, key);
  return typeof v === 'string' ? v : '';
}

/**
 * Check the template's schema and return its entries. `prefix` starts every error (opm's wording
 * for the template type).
 */
export function templateEntries(doc: TemplateDocument, schema: string, prefix: string): TemplateEntry[] {
  const fail = (msg: string, path: (string | number)[] = []): never => {
    throw new OpmError(prefix + msg, { at: { file: doc.label, line: doc.lineOf(path) } });
  };
  const v = doc.value;
  if (!isJsonObject(v)) return fail(`template must be an object with "schema" and "entries"`);
  const found = stringField(v, 'schema');
  if (found !== schema) {
    return fail(`template has unknown schema (${goQuote(found)}), should be ${goQuote(schema)}`, ['schema']);
  }
  const entriesKey = Object.keys(v).find((k) => k.toLowerCase() === 'entries');
  const list = entriesKey === undefined ? null : v[entriesKey];
  if (list === null || list === undefined) return [];
  if (!Array.isArray(list)) return fail('"entries" must be a list of FBC objects', [entriesKey ?? 'entries']);
  return list.map((e, index) => {
    const path = [entriesKey ?? 'entries', index];
    if (!isJsonObject(e)) return fail(`entry ${index} is not an object`, path);
    return { value: e, index, line: doc.lineOf(path) };
  });
}
