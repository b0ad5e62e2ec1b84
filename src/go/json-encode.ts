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
 *   text and escapes;
 * - {@link NativeJson}: its value, which the JSON.stringify path (json-native.ts) takes unwalked.
 *
 * Each value is tried on the JSON.stringify path first and written piece by piece where that
 * declines.
 */
import { GoStruct } from './go-struct.js';
import { InternalError } from '../errors.js';
import { sortedMapKeys } from './json-key-order.js';
import { appendIndentedNatively, marshalIndentNatively, marshalNatively, NativeJson } from './json-native.js';
import { formatGoJsonNumber } from './json-number.js';
import { PartsOut, type JsonOut } from './json-out.js';
import { appendRaw } from './json-raw-layout.js';
import { RawJson } from './raw-json.js';
import { isPlainObject } from './json-value.js';

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
  if (v instanceof NativeJson) {
    append(out, v.value, nl, unit, escapeHTML);
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
