/** json.RawMessage text laid out as Go's encoder lays it out (compacted, then indented). */
import { InternalError } from '../errors.js';

const WS = /[ \t\n\r]/;

/**
 * Lay out raw JSON text the way Go's encoder does for a json.RawMessage: compact it (with HTML
 * escaping of `<`, `>`, `&`, U+2028, U+2029 when asked), then indent it. `nl` is the newline plus
 * prefix and indentation of the current depth, `unit` one level of indentation; with `nl` null the
 * output is compact.
 */
export function appendRaw(
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
