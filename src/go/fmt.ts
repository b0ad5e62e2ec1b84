/**
 * Go's `%q` formatting of a string (strconv.Quote), so messages that opm builds with `%q` read the
 * same here. Printable runes (Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols
 * and the ASCII space) are kept; everything else is escaped the way Go escapes it.
 */
const PRINTABLE = /[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u;

const NAMED: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '\\': '\\\\',
  '"': '\\"',
};

export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const named = NAMED[ch];
    if (named !== undefined) {
      out += named;
      continue;
    }
    const cp = ch.codePointAt(0) ?? 0;
    // A lone surrogate is what JS makes of bytes Go would see as invalid UTF-8; Go prints U+FFFD's escape.
    if (cp >= 0xd800 && cp <= 0xdfff) {
      out += '\\ufffd';
      continue;
    }
    if (PRINTABLE.test(ch)) {
      out += ch;
      continue;
    }
    if (cp < 0x80) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp <= 0xffff) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return out + '"';
}
