/**
 * JSON text as Go's encoding/json produces it. Bundle objects are stored as base64 of Go's
 * json.Marshal of a decoded manifest, so the bytes must match: object keys sorted by their UTF-8
 * bytes, compact, Go's string escapes (optionally HTML-escaped), Go's float formatting.
 */
import { RawJson } from '../declcfg/raw-json.js';

/**
 * Compare two strings by their UTF-8 bytes (Go's string order). JS `<` compares UTF-16 code
 * units, which disagrees for characters above U+FFFF versus U+E000–U+FFFF.
 */
export function compareGoStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codeUnitRank(x) - codeUnitRank(y);
  }
  return a.length - b.length;
}

/** Surrogates (astral characters) rank above every BMP character, as their UTF-8 bytes do. */
function codeUnitRank(u: number): number {
  if (u >= 0xe000) return u - 0x800;
  if (u >= 0xd800) return u + 0x2000;
  return u;
}

const HEX = '0123456789abcdef';

/** A Go JSON string literal. */
export function goJsonString(s: string, escapeHTML: boolean): string {
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let rep: string | undefined;
    if (c < 0x20) {
      if (c === 0x0a) rep = '\\n';
      else if (c === 0x0d) rep = '\\r';
      else if (c === 0x09) rep = '\\t';
      else if (c === 0x08) rep = '\\b';
      else if (c === 0x0c) rep = '\\f';
      else rep = '\\u00' + HEX.charAt(c >> 4) + HEX.charAt(c & 0xf);
    } else if (c === 0x22) rep = '\\"';
    else if (c === 0x5c) rep = '\\\\';
    else if (escapeHTML && (c === 0x3c || c === 0x3e || c === 0x26)) {
      rep = '\\u00' + HEX.charAt(c >> 4) + HEX.charAt(c & 0xf);
    } else if (c === 0x2028) rep = '\\u2028';
    else if (c === 0x2029) rep = '\\u2029';
    else if (c >= 0xd800 && c <= 0xdfff) {
      // A lone surrogate is invalid UTF-8 on Go's side and becomes U+FFFD.
      const next = s.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      rep = '\ufffd';
    }
    if (rep !== undefined) {
      out += s.slice(start, i) + rep;
      start = i + 1;
    }
  }
  return out + s.slice(start) + '"';
}

/** Go's encoding of a float64 (shortest round-trip digits; exponent form below 1e-6 and from 1e21). */
export function goJsonNumber(n: number): string {
  if (!Number.isFinite(n)) throw new Error(`json: unsupported value: ${String(n)}`);
  if (Object.is(n, -0)) return '-0';
  // JS picks exponent form at the same thresholds and with the same shortest digits as Go.
  return String(n);
}

/**
 * Marshal a decoded JSON value the way Go marshals a map[string]interface{}: keys sorted.
 * RawJson is embedded compacted, as Go does with json.RawMessage.
 */
export function goMarshal(value: unknown, escapeHTML: boolean): string {
  const parts: string[] = [];
  write(value, escapeHTML, true, parts);
  return parts.join('');
}

/** Like goMarshal, but object keys keep their insertion order (Go structs marshal in field order). */
export function goMarshalOrdered(value: unknown, escapeHTML: boolean): string {
  const parts: string[] = [];
  write(value, escapeHTML, false, parts);
  return parts.join('');
}

function write(v: unknown, esc: boolean, sortKeys: boolean, out: string[]): void {
  if (v === null || v === undefined) {
    out.push('null');
  } else if (typeof v === 'string') {
    out.push(goJsonString(v, esc));
  } else if (typeof v === 'number') {
    out.push(goJsonNumber(v));
  } else if (typeof v === 'bigint') {
    out.push(v.toString());
  } else if (typeof v === 'boolean') {
    out.push(v ? 'true' : 'false');
  } else if (v instanceof RawJson) {
    out.push(compactJson(v.text, esc));
  } else if (Array.isArray(v)) {
    out.push('[');
    v.forEach((e, i) => {
      if (i > 0) out.push(',');
      write(e, esc, sortKeys, out);
    });
    out.push(']');
  } else if (typeof v === 'object') {
    const entries = Object.entries(v);
    if (sortKeys) entries.sort((a, b) => compareGoStrings(a[0], b[0]));
    out.push('{');
    entries.forEach(([k, e], i) => {
      if (i > 0) out.push(',');
      out.push(goJsonString(k, esc), ':');
      write(e, esc, sortKeys, out);
    });
    out.push('}');
  } else {
    throw new Error(`json: unsupported type: ${typeof v}`);
  }
}

/**
 * Go's json.Compact: drop insignificant whitespace, keep every token's text (escapes and number
 * spelling stay as written). With escapeHTML, `<`, `>`, `&`, U+2028 and U+2029 inside strings
 * are escaped, as Go does when it embeds a RawMessage.
 */
export function compactJson(text: string, escapeHTML: boolean): string {
  let out = '';
  let inString = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) {
        i++;
      } else if (c === 0x22) {
        inString = false;
      } else if (escapeHTML && (c === 0x3c || c === 0x3e || c === 0x26 || c === 0x2028 || c === 0x2029)) {
        out += text.slice(start, i) + '\\u' + c.toString(16).padStart(4, '0');
        start = i + 1;
      }
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
      out += text.slice(start, i);
      start = i + 1;
    }
  }
  return out + text.slice(start);
}
