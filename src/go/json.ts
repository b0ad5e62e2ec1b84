/**
 * Go encoding/json output, reproduced byte for byte (as opm's WriteJSON in `alpha/declcfg/write.go`
 * and its other JSON output use it): string escaping with and without HTML escaping, float64 number
 * text, map keys in UTF-8 byte order, struct fields in declaration order, json.RawMessage kept as
 * its text, and MarshalIndent's layout.
 *
 * Values accepted by the marshallers:
 * - `null`, booleans, finite numbers (float64, as Go's interface{} holds JSON numbers), strings;
 * - arrays (Go slices);
 * - plain objects, which behave like Go maps: keys sorted in UTF-8 byte order, `undefined` values
 *   skipped;
 * - {@link GoStruct}: fields in insertion order, `undefined` fields omitted (omitempty is decided by
 *   whoever builds the struct);
 * - {@link RawJson}: compacted, then laid out like everything else, keeping its key order, number
 *   text and escapes.
 */
import { RawJson } from './raw-json.js';
import { InternalError, OpmError } from '../errors.js';
import { isPlainObject } from './json-value.js';
import { compareUtf8 } from './utf8.js';

/** A Go struct value: fields are written in insertion order; `undefined` fields are left out. */
export class GoStruct {
  readonly fields: Readonly<Record<string, unknown>>;
  /**
   * A field whose value is known to be ready for JSON.stringify as it is: every map's keys in UTF-8
   * order and none index-like, no -0 (what the YAML block reader tells of a whole document as it
   * reads it). The native path then takes it without a walk, long strings included.
   */
  readonly readyField: string | undefined;
  constructor(fields: Readonly<Record<string, unknown>>, readyField?: string) {
    this.fields = fields;
    this.readyField = readyField;
  }
}

export function goStruct(fields: Readonly<Record<string, unknown>>): GoStruct {
  return new GoStruct(fields);
}

// ---------------------------------------------------------------------------------------------
// Ordering

/** Whether `keys` are in UTF-8 byte order (encoding/json's order of map keys) already. */
function inUtf8Order(keys: readonly string[]): boolean {
  for (let i = 1; i < keys.length; i++)
    if (compareUtf8(keys[i - 1] as string, keys[i] as string) > 0) return false;
  return true;
}

/** Keys of a Go map, sorted as encoding/json sorts them. */
function sortedMapKeys(obj: Readonly<Record<string, unknown>>): string[] {
  const keys: string[] = [];
  for (const k of Object.keys(obj)) if (obj[k] !== undefined) keys.push(k);
  // Insertion order is often sorted already (values normalised by the loader); check first.
  if (!inUtf8Order(keys)) keys.sort(compareUtf8);
  return keys;
}

// ---------------------------------------------------------------------------------------------
// Strings

// Anything the Go encoder rewrites: control characters, quote, backslash, U+2028/U+2029, and lone
// surrogates (invalid UTF-8 on the Go side, written as U+FFFD).
const LONE_SURROGATE = '[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]';
const ESCAPED = new RegExp('[\\u0000-\\u001f"\\\\\\u2028\\u2029]|' + LONE_SURROGATE, 'g');
const ESCAPED_HTML = new RegExp('[\\u0000-\\u001f"\\\\<>&\\u2028\\u2029]|' + LONE_SURROGATE, 'g');
const HEX = '0123456789abcdef';

function escapeChar(ch: string): string {
  const c = ch.charCodeAt(0);
  switch (c) {
    case 0x0a:
      return '\\n';
    case 0x0d:
      return '\\r';
    case 0x09:
      return '\\t';
    case 0x08:
      return '\\b';
    case 0x0c:
      return '\\f';
    case 0x22:
      return '\\"';
    case 0x5c:
      return '\\\\';
    default:
      if (c >= 0xd800 && c <= 0xdfff) return '\\ufffd';
      return '\\u' + HEX[c >> 12] + HEX[(c >> 8) & 0xf] + HEX[(c >> 4) & 0xf] + HEX[c & 0xf];
  }
}

// Cheap screens: no escaping needed at all / something JSON.stringify writes differently from Go.
// eslint-disable-next-line no-control-regex -- control characters are what Go escapes
const MAY_ESCAPE = /[\u0000-\u001f"\\\u2028\u2029\ud800-\udfff]/;
// eslint-disable-next-line no-control-regex -- as above
const MAY_ESCAPE_HTML = /[\u0000-\u001f"\\<>&\u2028\u2029\ud800-\udfff]/;
const NOT_LIKE_STRINGIFY = /[\u2028\u2029\ud800-\udfff]/;
const HTML_G = /[<>&]/g;

/** A string as Go's encoder writes it (Go ≥ 1.22), quotes included. */
export function quoteGoString(s: string, escapeHTML: boolean): string {
  if (!(escapeHTML ? MAY_ESCAPE_HTML : MAY_ESCAPE).test(s)) return '"' + s + '"';
  if (!NOT_LIKE_STRINGIFY.test(s)) {
    // JSON.stringify escapes quote, backslash and C0 controls exactly as Go does (short forms,
    // then \u00xx in lower-case hex); only U+2028/U+2029 and surrogates differ.
    const q = JSON.stringify(s);
    return escapeHTML ? q.replace(HTML_G, escapeChar) : q;
  }
  const re = escapeHTML ? ESCAPED_HTML : ESCAPED;
  return '"' + s.replace(re, escapeChar) + '"';
}

// ---------------------------------------------------------------------------------------------
// Numbers

/**
 * A float64 as encoding/json writes it: shortest round-trip digits, plain decimal for
 * 1e-6 <= |x| < 1e21, otherwise exponent form (`1e+21`, `1e-7`). JavaScript's Number#toString
 * uses the same digits and the same thresholds; only negative zero differs (Go writes `-0`).
 */
export function formatGoJsonNumber(x: number): string {
  if (!Number.isFinite(x)) {
    throw new OpmError(`json: unsupported value: ${goFloatWord(x)}`);
  }
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  return String(x);
}

function goFloatWord(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  return x > 0 ? '+Inf' : '-Inf';
}

/**
 * Go `strconv.FormatFloat(x, 'g', -1, 64)`: shortest digits, exponent form when the decimal
 * exponent is below -4 or at least 6 (`1e+06`, `1e-05`, two exponent digits at least).
 */
export function formatGoFloatG(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const e = x.toExponential(); // shortest round-trip digits, e.g. "-1.2345e+2"
  const ePos = e.indexOf('e');
  let mant = e.slice(0, ePos);
  const exp = Number(e.slice(ePos + 1));
  let sign = '';
  if (mant.startsWith('-')) {
    sign = '-';
    mant = mant.slice(1);
  }
  const digits = mant.length > 1 ? mant[0] + mant.slice(2) : mant;
  if (exp < -4 || exp >= 6) {
    const abs = Math.abs(exp);
    return (
      sign +
      (digits.length > 1 ? digits[0] + '.' + digits.slice(1) : digits) +
      'e' +
      (exp < 0 ? '-' : '+') +
      (abs < 10 ? '0' + abs : String(abs))
    );
  }
  if (exp < 0) return sign + '0.' + '0'.repeat(-exp - 1) + digits;
  if (digits.length <= exp + 1) return sign + digits + '0'.repeat(exp + 1 - digits.length);
  return sign + digits.slice(0, exp + 1) + '.' + digits.slice(exp + 1);
}

// ---------------------------------------------------------------------------------------------
// Raw JSON text

const WS = /[ \t\n\r]/;

/**
 * Lay out raw JSON text the way Go's encoder does for a json.RawMessage: compact it (with HTML
 * escaping of `<`, `>`, `&`, U+2028, U+2029 when asked), then indent it. `nl` is the newline plus
 * prefix and indentation of the current depth, `unit` one level of indentation; with `nl` null the
 * output is compact.
 */
function appendRaw(
  parts: string[],
  text: string,
  nl: string | null,
  unit: string,
  escapeHTML: boolean,
): void {
  const n = text.length;
  let i = 0;
  let cur = nl;
  const stack: string[] = [];
  // After an opening bracket the newline is held back, so that `{}` and `[]` stay on one line.
  let pendingOpen = false;
  const flushOpen = (): void => {
    if (pendingOpen) {
      pendingOpen = false;
      if (cur !== null) parts.push(cur);
    }
  };
  while (i < n) {
    const c = text[i] as string;
    if (WS.test(c)) {
      i++;
      continue;
    }
    if (c === '{' || c === '[') {
      flushOpen();
      parts.push(c);
      stack.push(c === '{' ? '}' : ']');
      if (cur !== null) cur += unit;
      pendingOpen = true;
      i++;
      continue;
    }
    if (c === '}' || c === ']') {
      if (stack.pop() !== c) throw new InternalError(`malformed raw JSON: ${text.slice(0, 80)}`);
      if (cur !== null) cur = cur.slice(0, cur.length - unit.length);
      if (pendingOpen) pendingOpen = false;
      else if (cur !== null) parts.push(cur);
      parts.push(c);
      i++;
      continue;
    }
    flushOpen();
    if (c === ',') {
      parts.push(',');
      if (cur !== null) parts.push(cur);
      i++;
      continue;
    }
    if (c === ':') {
      parts.push(cur !== null ? ': ' : ':');
      i++;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d === 0x5c) j += 2;
        else if (d === 0x22) break;
        else j++;
      }
      if (j >= n) throw new InternalError(`malformed raw JSON: ${text.slice(0, 80)}`);
      const str = text.slice(i, j + 1);
      parts.push(escapeHTML ? htmlEscapeRaw(str) : str);
      i = j + 1;
      continue;
    }
    // number or literal
    let j = i + 1;
    while (j < n && /[^\s,:{}[\]"]/.test(text[j] as string)) j++;
    parts.push(text.slice(i, j));
    i = j;
  }
  if (stack.length !== 0) throw new InternalError(`malformed raw JSON: ${text.slice(0, 80)}`);
}

const HTML_RAW = /[<>&\u2028\u2029]/g;
function htmlEscapeRaw(s: string): string {
  if (!/[<>&\u2028\u2029]/.test(s)) return s;
  return s.replace(HTML_RAW, (ch) => '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0'));
}

// ---------------------------------------------------------------------------------------------
// Marshalling

/**
 * Where the marshaller puts its output: JSON syntax and already encoded text through `text`,
 * string values and keys (still to be quoted and escaped) through `string`, so that a writer
 * can copy long strings straight to their destination instead of building them into a text.
 */
export interface JsonOut {
  text(s: string): void;
  string(s: string, escapeHTML: boolean): void;
}

/** Output collected as an array of strings (joined by the caller). */
class PartsOut implements JsonOut {
  readonly parts: string[];
  constructor(parts: string[]) {
    this.parts = parts;
  }
  text(s: string): void {
    this.parts.push(s);
  }
  string(s: string, escapeHTML: boolean): void {
    this.parts.push(quoteGoString(s, escapeHTML));
  }
}

/**
 * Append the encoding of `v`. `nl` is the newline + prefix + indentation for the current depth
 * (null for compact output).
 */
function append(out: JsonOut, v: unknown, nl: string | null, unit: string, escapeHTML: boolean): void {
  if (v === null) {
    out.text('null');
    return;
  }
  switch (typeof v) {
    case 'string':
      out.string(v, escapeHTML);
      return;
    case 'number':
      out.text(formatGoJsonNumber(v));
      return;
    case 'boolean':
      out.text(v ? 'true' : 'false');
      return;
    case 'object':
      break;
    default:
      throw new InternalError(`cannot encode a value of type ${typeof v} as JSON`);
  }
  const inner = nl === null ? null : nl + unit;
  const colon = nl === null ? ':' : ': ';
  if (Array.isArray(v)) {
    if (v.length === 0) {
      out.text('[]');
      return;
    }
    // The opening bracket and the first element's line start go out as one piece of text.
    let sep = inner === null ? '[' : '[' + inner;
    const next = inner === null ? ',' : ',' + inner;
    for (let i = 0; i < v.length; i++) {
      out.text(sep);
      sep = next;
      const item: unknown = v[i];
      append(out, item === undefined ? null : item, inner, unit, escapeHTML);
    }
    out.text(nl === null ? ']' : nl + ']');
    return;
  }
  if (v instanceof RawJson) {
    const parts: string[] = [];
    appendRaw(parts, v.text, nl, unit, escapeHTML);
    out.text(parts.join(''));
    return;
  }
  let fields: Readonly<Record<string, unknown>>;
  let keys: string[];
  if (v instanceof GoStruct) {
    fields = v.fields;
    keys = Object.keys(fields).filter((k) => fields[k] !== undefined);
  } else if (isPlainObject(v)) {
    fields = v;
    keys = sortedMapKeys(v);
  } else {
    throw new InternalError(`cannot encode a ${v.constructor.name} as JSON`);
  }
  if (keys.length === 0) {
    out.text('{}');
    return;
  }
  let sep = inner === null ? '{' : '{' + inner;
  const next = inner === null ? ',' : ',' + inner;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    out.text(sep);
    sep = next;
    out.string(k, escapeHTML);
    out.text(colon);
    append(out, fields[k], inner, unit, escapeHTML);
  }
  out.text(nl === null ? '}' : nl + '}');
}

/** Go `json.Marshal` (HTML escaping on by default, as in Go). No trailing newline. */
export function marshal(value: unknown, escapeHTML = true): string {
  return marshalNatively(value, escapeHTML) ?? marshalByParts(value, escapeHTML);
}

/** Go `json.Marshal` written piece by piece by this module's encoder (exported for tests). */
export function marshalByParts(value: unknown, escapeHTML = true): string {
  const parts: string[] = [];
  append(new PartsOut(parts), value, null, '', escapeHTML);
  return parts.join('');
}

// ---------------------------------------------------------------------------------------------
// json.Marshal by V8's JSON.stringify

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
 * base64 payloads run to megabytes. Measured: the 48 MB generated catalog with payloads rendered 25%
 * slower with every string in JSON.stringify's text.
 */
export const NATIVE_STRING_LIMIT = 16 * 1024;
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
 * need warming up: a 110 KB CustomResourceDefinition is encoded in 6 ms instead of 21-26 ms in a fresh
 * process, a good part of `opm render <bundle dir>`. The string escapes are the same as Go's except U+2028,
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
function appendIndentedNatively(out: JsonOut, value: unknown, indent: string, escapeHTML: boolean): boolean {
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
  const ready =
    typeof value === 'object' && value !== null && READY.has(value) ? value : nativeReady(value, long);
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
 * characters and lone surrogates only). On the corpus catalog's output: 9.5 ms instead of 17.
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

/** A Go struct ready for JSON.stringify: its fields in order, undefined ones left out. */
function structReady(s: GoStruct, long: string[] | undefined): unknown {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(s.fields)) {
    // V8 would put an index-like name first; `__proto__` cannot be set by assignment.
    if (INDEX_LIKE.test(k) || k === '__proto__') return NOT_NATIVE;
    const ready = k === s.readyField ? s.fields[k] : nativeReady(s.fields[k], long);
    if (ready === NOT_NATIVE) return NOT_NATIVE;
    if (ready !== undefined) out[k] = ready;
  }
  return out;
}

/** Values known to be ready for JSON.stringify as they are, when given whole ({@link markNativeReady}). */
const READY = new WeakSet<object>();

/**
 * Say that a JSON map or list is ready for JSON.stringify as it is: every map's keys in UTF-8 order
 * and none index-like, no -0 (what the YAML block reader tells of a whole document as it reads it).
 * Encoding it whole then skips the walk of the native path. It must not be changed afterwards.
 * (Struct fields say so with GoStruct.readyField instead: a mark per value would cost more there.)
 */
export function markNativeReady(v: object): void {
  READY.add(v);
}

/**
 * `v` ready for JSON.stringify: itself, or a copy whose maps have their keys in Go's order; NOT_NATIVE
 * when it holds a value JSON.stringify writes differently from Go. With `long`, strings longer than
 * NATIVE_STRING_LIMIT are put there and replaced by their mark.
 */
function nativeReady(v: unknown, long?: string[]): unknown {
  switch (typeof v) {
    case 'string':
      if (long === undefined || v.length <= NATIVE_STRING_LIMIT) return v;
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

/**
 * Go `json.MarshalIndent(value, prefix, indent)`; `escapeHTML` false gives what an Encoder with
 * `SetEscapeHTML(false)` and `SetIndent(prefix, indent)` writes (without its trailing newline).
 * The first line carries no prefix, as in Go.
 */
export function marshalIndent(value: unknown, prefix: string, indent: string, escapeHTML = true): string {
  const parts: string[] = [];
  appendIndented(parts, value, prefix, indent, escapeHTML);
  return parts.join('');
}

/**
 * marshalIndent into an array of parts (for writers that join many values at once), or into any
 * {@link JsonOut}.
 */
export function appendIndented(
  out: string[] | JsonOut,
  value: unknown,
  prefix: string,
  indent: string,
  escapeHTML: boolean,
): void {
  if (prefix === '') {
    if (Array.isArray(out)) {
      const native = marshalIndentNatively(value, indent, escapeHTML);
      if (native !== undefined) {
        out.push(native);
        return;
      }
    } else if (appendIndentedNatively(out, value, indent, escapeHTML)) return;
  }
  marshalIndentByParts(out, value, prefix, indent, escapeHTML);
}

/** appendIndented by this module's encoder alone (exported for tests). */
export function marshalIndentByParts(
  out: string[] | JsonOut,
  value: unknown,
  prefix: string,
  indent: string,
  escapeHTML: boolean,
): void {
  append(Array.isArray(out) ? new PartsOut(out) : out, value, '\n' + prefix, indent, escapeHTML);
}

// ---------------------------------------------------------------------------------------------
// Output into a reusable byte buffer

/** Strings at least this long are tried for a straight copy into the output buffer. */
const LONG_STRING = 256;
/** Short text is gathered up to this many characters before it is encoded into the buffer. */
const PENDING_CHARS = 1 << 13;

/**
 * Whether the ASCII string `s` consists of base64 alphabet characters only (`A-Z a-z 0-9 + / - _`,
 * then at most two `=`), none of which Go escapes. Node's base64 decoder skips every other
 * character and stops at `=`, so all of `s` was taken exactly when the decoded length is the one
 * its length implies: dropping a character from a length that is not 1 mod 4 always shortens
 * the result, and lengths of 1 mod 4 are refused outright. Must only be given ASCII strings: the
 * decoder reads just the low byte of wider characters.
 */
function isBase64Alphabet(s: string, scratch: Buffer): boolean {
  let n = s.length;
  if (n > 0 && s.charCodeAt(n - 1) === 0x3d) n--;
  if (n > 0 && s.charCodeAt(n - 1) === 0x3d) n--;
  if (n % 4 === 1) return false;
  return scratch.write(s, 0, scratch.length, 'base64') === Math.floor((n * 3) / 4);
}

/**
 * JSON output written as UTF-8 into one reusable buffer, for writers that stream large outputs.
 * Long strings that need no escaping (base64 payloads, mostly) are copied into the buffer as they
 * are, instead of being quoted, joined into a text and converted to bytes on the way; and reusing
 * the buffer keeps a large output from allocating fresh memory for every piece of it.
 */
/** The most one piece of output (one blob) may take: Node's Buffer.write offsets are 32-bit. */
const MAX_PIECE_BYTES = 2 ** 31 - 1;

export class JsonBytesOut implements JsonOut {
  private buf: Buffer;
  private pos = 0;
  private pending = '';
  private scratch: Buffer = Buffer.alloc(0);

  constructor(initialBytes = 1 << 22) {
    this.buf = Buffer.allocUnsafe(initialBytes);
  }

  /** Bytes the buffer holds before it has to grow. */
  get capacity(): number {
    return this.buf.length;
  }

  /** Bytes written so far (short text not yet encoded included, counted as characters). */
  get size(): number {
    return this.pos + this.pending.length;
  }

  text(s: string): void {
    if (s.length >= PENDING_CHARS) {
      // Long text (a blob's whole JSON.stringify text) is encoded as it is: joined to what is
      // pending, it would be copied once more to flatten the join before being encoded.
      this.flushPending();
      this.encode(s);
      return;
    }
    this.pending += s;
    if (this.pending.length >= PENDING_CHARS) this.flushPending();
  }

  string(s: string, escapeHTML: boolean): void {
    if (s.length < LONG_STRING || !this.copyPlain(s)) this.text(quoteGoString(s, escapeHTML));
  }

  /** Everything written is encoded and its byte length returned (a position for {@link truncate}). */
  mark(): number {
    this.flushPending();
    return this.pos;
  }

  /** Drop what was written after `mark`. */
  truncate(mark: number): void {
    this.flushPending();
    this.pos = Math.min(this.pos, mark);
  }

  /**
   * The bytes written so far, after which the output starts again empty. The view shares the
   * buffer, so it is only valid until the next write.
   */
  take(): Uint8Array {
    this.flushPending();
    const out = this.buf.subarray(0, this.pos);
    this.pos = 0;
    return out;
  }

  private reserve(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    // Buffer writes take 32-bit offsets: past 2 GiB they would silently write nothing.
    if (this.pos + bytes > MAX_PIECE_BYTES) {
      throw new OpmError('a single blob encodes to more than 2 GiB of JSON, which cannot be written', {
        hint: 'a YAML alias repeated many times expands like this; write the value out once',
      });
    }
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + bytes));
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }

  private flushPending(): void {
    const p = this.pending;
    if (p === '') return;
    this.pending = '';
    this.encode(p);
  }

  private encode(s: string): void {
    this.reserve(s.length * 3);
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  /** Write `s` quoted if it needs no escaping; otherwise write nothing and return false. */
  private copyPlain(s: string): boolean {
    this.flushPending();
    const n = s.length;
    // Room for the worst case (3 bytes per UTF-16 unit), so that the write below is never cut
    // short and its byte count says whether every character was ASCII.
    this.reserve(n * 3 + 2);
    const start = this.pos;
    if (this.buf.write(s, start + 1, 'utf8') !== n) return false;
    if (this.scratch.length < n) this.scratch = Buffer.allocUnsafe(n);
    if (!isBase64Alphabet(s, this.scratch)) return false;
    this.buf[start] = 0x22;
    this.buf[start + 1 + n] = 0x22;
    this.pos = start + n + 2;
    return true;
  }
}
