/**
 * Go `json.Marshal` and `json.MarshalIndent` by V8's JSON.stringify, where it writes what Go writes:
 * native code does in one pass what the piece-by-piece encoder (json-encode.ts) does in many small
 * steps, and needs no warming up, which tells in a short-lived process encoding large manifests. The
 * string escapes are the same as Go's except U+2028, U+2029 and (with HTML escaping) `<`, `>`, `&`,
 * which only occur inside strings and are escaped after.
 *
 * {@link NativeJson} is the one mark of a value known to be ready for JSON.stringify as it is.
 */
import { escapeChar } from './json-quote.js';
import { inUtf8Order } from './json-key-order.js';
import type { JsonOut } from './json-out.js';
import { GoStruct } from './go-struct.js';
import { RawJson } from './raw-json.js';
import { isPlainObject, type JsonValue } from './json-value.js';
import { compareUtf8 } from './utf8.js';

/** A JSON value that cannot be changed through its type. */
export type ReadonlyJsonValue =
  | null
  | boolean
  | number
  | string
  | readonly ReadonlyJsonValue[]
  | { readonly [key: string]: ReadonlyJsonValue };

/**
 * A JSON value ready for JSON.stringify as it is: every map's keys in UTF-8 order and none
 * index-like, no -0, no non-finite number. The encoders take its value without walking it first
 * (the piece-by-piece encoder writes it as it writes any value), long strings included. Made only
 * by {@link vouchNativeJson}, and read-only through this type: the value must not change once
 * vouched for, since nothing checks it again.
 */
export class NativeJson {
  readonly value: ReadonlyJsonValue;
  private constructor(value: ReadonlyJsonValue) {
    this.value = value;
  }

  /** See {@link vouchNativeJson}. */
  static vouch(value: JsonValue): NativeJson {
    return new NativeJson(value);
  }
}

/**
 * `value` marked ready for JSON.stringify, by a reader that checked what {@link NativeJson} says as
 * it read it (the YAML block reader tells it of a whole document). The reader hands the value over:
 * nothing changes it afterwards.
 */
export function vouchNativeJson(value: JsonValue): NativeJson {
  return NativeJson.vouch(value);
}

/** Marks a value JSON.stringify would write differently from Go. */
const NOT_NATIVE = Symbol('not native');

/** JSON.stringify writes lone surrogates as escapes; Go writes U+FFFD. */
const ESCAPED_SURROGATE = /\\u[dD][89a-fA-F]/;
const SEPARATOR = /[\u2028\u2029]/;
/**
 * What JSON.stringify's text may need after, with HTML escaping: a lone surrogate's escape,
 * separators, HTML characters (without it, needsAfter).
 */
const AFTER_HTML = /\\u[dD][89a-fA-F]|[<>&\u2028\u2029]/;
/**
 * Into a byte output, strings longer than this are copied by the output itself (JsonBytesOut copies a
 * plain string in one go), not left in JSON.stringify's text to be scanned again and then encoded:
 * base64 payloads run to megabytes, and a catalog of payloads renders markedly slower with them
 * left in the text (docs/performance.md).
 */
export const NATIVE_STRING_LIMIT = 16 * 1024;
/**
 * A long string with a space among its first this many characters is left in JSON.stringify's text:
 * base64 has none, and text copied apart cost more: the byte copy's searches, then Go's quoting,
 * several passes where the text takes one (docs/performance.md).
 */
const TEXT_PROBE = 512;
/** Where such a string goes in JSON.stringify's text: `"\u0000<n>"` (see appendIndentedNatively). */
const LONG_MARK = '\u0000';
const LONG_MARK_TOKEN = /"\\u0000([0-9]+)"/;
const SEPARATORS_G = /[\u2028\u2029]/g;
const HTML_SEPARATORS_G = /[<>&\u2028\u2029]/g;
/** A key V8 orders before the others whatever the insertion order (an array index). */
const INDEX_LIKE = /^(?:0|[1-9][0-9]*)$/;

/**
 * Go `json.Marshal` by V8's native JSON.stringify, or undefined when the value holds something the
 * two would write differently (-0, a non-finite number, a lone surrogate, a RawJson whose text
 * JSON.stringify would not write back as it is).
 * Native code does in one pass what the piece-by-piece encoder does in many small steps, and does not
 * need warming up, which matters most in a fresh process encoding a large manifest (a
 * CustomResourceDefinition in `opm render <bundle dir>`; docs/performance.md). The string escapes are the same as Go's except U+2028,
 * U+2029 and (with HTML escaping) `<`, `>`, `&`, which only occur inside strings and are escaped after.
 */
export function marshalNatively(value: unknown, escapeHTML = true): string | undefined {
  return stringifyNatively(value, '', escapeHTML);
}

/**
 * Go `json.MarshalIndent(value, '', indent)` (an Encoder's output with SetIndent('', indent), without
 * its newline) by JSON.stringify, whose layout is the same; undefined where {@link marshalNatively}
 * would decline, or for an indent JSON.stringify cannot take (over ten characters, or not blanks).
 */
export function marshalIndentNatively(value: unknown, indent: string, escapeHTML = true): string | undefined {
  return nativeIndent(indent) ? stringifyNatively(value, indent, escapeHTML) : undefined;
}

/** Whether JSON.stringify lays out `indent` as Go does (an empty indent breaks lines in Go). */
function nativeIndent(indent: string): boolean {
  return indent !== '' && indent.length <= 10 && /^[ \t]*$/.test(indent);
}

/**
 * appendIndented (prefix '') by JSON.stringify into a byte output, with strings longer than
 * NATIVE_STRING_LIMIT copied by the output itself; false, with nothing written, where
 * {@link marshalIndentNatively} would decline.
 */
export function appendIndentedNatively(
  out: JsonOut,
  value: unknown,
  indent: string,
  escapeHTML: boolean,
): boolean {
  if (!nativeIndent(indent)) return false;
  const long: string[] = [];
  const text = stringifyNatively(value, indent, escapeHTML, long);
  if (text === undefined) return false;
  if (long.length === 0) {
    out.text(text);
    return true;
  }
  // The text, then each long string's mark in turn: [text, 0, text, 1, ..., text]. A string of the
  // value's own that looked like a mark would make one piece too many (the marks are all there).
  const pieces = text.split(LONG_MARK_TOKEN);
  if (pieces.length !== 2 * long.length + 1) return false;
  for (let k = 0; k < long.length; k++) if (pieces[2 * k + 1] !== String(k)) return false;
  for (let k = 0; k < long.length; k++) {
    out.text(pieces[2 * k] as string);
    out.string(long[k] as string, escapeHTML);
  }
  out.text(pieces[pieces.length - 1] as string);
  return true;
}

function stringifyNatively(
  value: unknown,
  indent: string,
  escapeHTML: boolean,
  long?: string[],
): string | undefined {
  const ready = value instanceof NativeJson ? value.value : nativeReady(value, long);
  if (ready === NOT_NATIVE) return undefined;
  // undefined alone is not JSON (JSON.stringify gives undefined); the encoder reports it.
  const text = JSON.stringify(ready, null, indent) as string | undefined;
  if (text === undefined) return undefined;
  // One scan in the usual case, where there is nothing to escape after.
  if (!(escapeHTML ? AFTER_HTML.test(text) : needsAfter(text))) return text;
  if (ESCAPED_SURROGATE.test(text)) return undefined;
  return text.replace(escapeHTML ? HTML_SEPARATORS_G : SEPARATORS_G, escapeChar);
}

/**
 * Whether JSON.stringify's text holds a lone surrogate's escape or a line or paragraph separator, by
 * native searches rather than an expression tested at every character: a search for U+2028 in text
 * of one-byte characters gives up at once, and `\u` is rare in JSON.stringify's text (control
 * characters and lone surrogates only).
 */
function needsAfter(text: string): boolean {
  return (
    text.includes('\u2028') ||
    text.includes('\u2029') ||
    (text.includes('\\u') && ESCAPED_SURROGATE.test(text))
  );
}

/**
 * A RawJson ready for JSON.stringify: its parsed value, when writing that gives back exactly its text
 * (compact, key order, number text and escapes as JSON.stringify writes them); else NOT_NATIVE. Go
 * copies raw JSON token by token, and without HTML escaping leaves U+2028 and U+2029 in it as they
 * are, where it escapes them in other strings: raw text holding them is declined too.
 */
function rawReady(text: string): unknown {
  if (SEPARATOR.test(text)) return NOT_NATIVE;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return NOT_NATIVE;
  }
  return JSON.stringify(parsed) === text ? parsed : NOT_NATIVE;
}

/**
 * Field names found fit to be set in order on a plain object (below), so that the few names the
 * writers' structs use are tested once, not once per struct (a channel writes one per entry).
 */
const FIT_FIELD_NAMES = new Set<string>();
const MAX_FIT_FIELD_NAMES = 1024;

/** A Go struct ready for JSON.stringify: its fields in order, undefined ones left out. */
function structReady(s: GoStruct, long: string[] | undefined): unknown {
  const out: Record<string, unknown> = {};
  const fields = s.fields;
  for (const k of Object.keys(fields)) {
    if (!FIT_FIELD_NAMES.has(k)) {
      // V8 would put an index-like name first; `__proto__` cannot be set by assignment.
      if (INDEX_LIKE.test(k) || k === '__proto__') return NOT_NATIVE;
      if (FIT_FIELD_NAMES.size < MAX_FIT_FIELD_NAMES) FIT_FIELD_NAMES.add(k);
    }
    const ready = nativeReady(fields[k], long);
    if (ready === NOT_NATIVE) return NOT_NATIVE;
    if (ready !== undefined) out[k] = ready;
  }
  return out;
}

/**
 * `v` ready for JSON.stringify: itself, or a copy whose maps have their keys in Go's order; NOT_NATIVE
 * when it holds a value JSON.stringify writes differently from Go. With `long`, strings longer than
 * NATIVE_STRING_LIMIT are put there and replaced by their mark.
 */
function nativeReady(v: unknown, long?: string[]): unknown {
  switch (typeof v) {
    case 'string':
      // A space early on: text (a description, an example), not a payload, which the output's byte
      // copy would refuse after a search of its own; it is written as well inside the text.
      if (long === undefined || v.length <= NATIVE_STRING_LIMIT || v.lastIndexOf(' ', TEXT_PROBE) !== -1)
        return v;
      long.push(v);
      return LONG_MARK + String(long.length - 1);
    case 'boolean':
    case 'undefined': // skipped in maps and null in arrays, by both
      return v;
    case 'number':
      return Number.isFinite(v) && !Object.is(v, -0) ? v : NOT_NATIVE;
    case 'object':
      break;
    default:
      return NOT_NATIVE;
  }
  if (v === null) return v;
  if (Array.isArray(v)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i];
      const ready = nativeReady(item, long);
      if (ready === NOT_NATIVE) return NOT_NATIVE;
      if (ready !== item) (copy ??= v.slice())[i] = ready;
    }
    return copy ?? v;
  }
  if (v instanceof NativeJson) return v.value;
  if (v instanceof GoStruct) return structReady(v, long);
  // Long strings in raw JSON stay in the text (a bundle's olm.bundle.object data, once per bundle).
  if (v instanceof RawJson) return rawReady(v.text);
  if (!isPlainObject(v)) return NOT_NATIVE;
  const keys = Object.keys(v);
  // An own `__proto__` key cannot be copied by assignment: such maps are the encoder's.
  if (keys.includes('__proto__')) return NOT_NATIVE;
  // JSON.stringify writes keys in Object.keys order: Go's (UTF-8 byte) order already, or a copy's
  // with the keys inserted so, unless V8 would put an index-like key first whatever the order.
  const sorted = inUtf8Order(keys);
  if (!sorted) {
    if (keys.some((k) => INDEX_LIKE.test(k))) return NOT_NATIVE;
    keys.sort(compareUtf8);
  }
  let copy: Record<string, unknown> | undefined = sorted ? undefined : {};
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    const item = v[k];
    const ready = nativeReady(item, long);
    if (ready === NOT_NATIVE) return NOT_NATIVE;
    if (copy === undefined && ready !== item) {
      copy = {};
      for (let j = 0; j < i; j++) copy[keys[j] as string] = v[keys[j] as string];
    }
    if (copy !== undefined) copy[k] = ready;
  }
  return copy ?? v;
}
