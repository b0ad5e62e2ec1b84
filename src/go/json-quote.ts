/** JSON string text as Go's encoder writes it. */

// Anything the Go encoder rewrites: control characters, quote, backslash, U+2028/U+2029, and lone
// surrogates (invalid UTF-8 on the Go side, written as U+FFFD).
const LONE_SURROGATE = '[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]';
const ESCAPED = new RegExp('[\\u0000-\\u001f"\\\\\\u2028\\u2029]|' + LONE_SURROGATE, 'g');
const ESCAPED_HTML = new RegExp('[\\u0000-\\u001f"\\\\<>&\\u2028\\u2029]|' + LONE_SURROGATE, 'g');
const HEX = '0123456789abcdef';

export function escapeChar(ch: string): string {
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
