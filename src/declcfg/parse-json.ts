/**
 * An exact, iterative JSON syntax scanner: finds where one JSON value ends, or where and why the
 * text is not JSON. Used to cut a stream of values where a quick cut failed and to give syntax
 * errors a position and a message that do not depend on the JavaScript engine. Strings are skipped
 * with a regular expression, so long strings (base64 payloads) cost little.
 */

export type JsonScan =
  | { ok: true; end: number }
  /** `duplicate` is the key (as JSON) when the problem is a duplicate key. */
  | { ok: false; at: number; message: string; duplicate?: string; topLevel?: boolean };

const WS = /[ \t\n\r]*/y;
// JSON forbids raw control characters in strings, so the class must name them.
// eslint-disable-next-line no-control-regex
const STRING_BODY = /(?:[^"\\\u0000-\u001f]+|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const LITERAL = /true|false|null/y;

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;

function describe(text: string, at: number): string {
  if (at >= text.length) return 'unexpected end of JSON input';
  const cp = text.codePointAt(at) ?? 0;
  const shown =
    cp < 0x20 || cp === 0x7f
      ? `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`
      : String.fromCodePoint(cp);
  return `unexpected character '${shown}'`;
}

/** Whether the quote at `at` is escaped: preceded by an odd number of backslashes. */
function escaped(text: string, at: number): boolean {
  let n = 0;
  for (let i = at - 1; i >= 0 && text.charCodeAt(i) === 0x5c; i--) n++;
  return n % 2 === 1;
}

function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * The number of object keys written in the valid JSON text [from, to). Strings are walked from
 * quote to quote with indexOf, so a long string (a base64 payload) is skipped at native speed, and
 * a quote inside a string is never taken for the start of one. A string is a key when the next
 * character that is not white space is `:`.
 */
export function countKeysInText(text: string, from: number, to: number): number {
  let n = 0;
  let open = text.indexOf('"', from);
  while (open !== -1 && open < to) {
    let close = text.indexOf('"', open + 1);
    while (close !== -1 && escaped(text, close)) close = text.indexOf('"', close + 1);
    if (close === -1) break;
    let k = close + 1;
    while (k < to && isJsonSpace(text.charCodeAt(k))) k++;
    if (text.charCodeAt(k) === 0x3a) n++;
    open = text.indexOf('"', close + 1);
  }
  return n;
}

/**
 * Scan the JSON value starting at `pos` (leading whitespace allowed). `maxDepth` bounds nesting.
 * On success `end` is the index just after the value.
 */
export function scanJsonValue(text: string, pos: number, maxDepth: number, duplicates = false): JsonScan {
  const stack: number[] = [];
  // Keys seen in each open object, when looking for duplicate keys.
  const keys: Set<string>[] = [];
  let nestedDuplicate: JsonScan | undefined;
  let i = pos;
  const skipWs = (): void => {
    WS.lastIndex = i;
    WS.test(text);
    i = WS.lastIndex;
  };
  const fail = (message: string): JsonScan => ({ ok: false, at: i, message });
  /** A string at i; returns an error or undefined. */
  const string = (): JsonScan | undefined => {
    STRING_BODY.lastIndex = i + 1;
    STRING_BODY.test(text);
    i = STRING_BODY.lastIndex;
    if (text.charCodeAt(i) === 0x22) {
      i++;
      return undefined;
    }
    if (i >= text.length) return fail('unterminated string');
    if (text.charCodeAt(i) === 0x5c) return fail('invalid escape sequence in string');
    return fail('control character in string');
  };
  /** `"key" :` at i (after whitespace). */
  const key = (): JsonScan | undefined => {
    skipWs();
    if (text.charCodeAt(i) !== 0x22) return fail(`${describe(text, i)}; expected a string as object key`);
    const start = i;
    const e = string();
    if (e) return e;
    if (duplicates) {
      const name: unknown = JSON.parse(text.slice(start, i));
      const seen = keys[keys.length - 1];
      if (typeof name === 'string' && seen) {
        if (seen.has(name)) {
          const shown = JSON.stringify(name);
          const found = {
            ok: false as const,
            at: start,
            message: `duplicate key ${shown}`,
            duplicate: shown,
          };
          // A duplicate in the value's own keys matters most; a nested one is kept while looking on.
          if (keys.length === 1) return { ...found, topLevel: true };
          nestedDuplicate ??= { ...found, topLevel: false };
        }
        seen.add(name);
      }
    }
    skipWs();
    if (text.charCodeAt(i) !== 0x3a) return fail(`${describe(text, i)}; expected ':' after object key`);
    i++;
    return undefined;
  };

  for (;;) {
    // Expecting a value.
    skipWs();
    const c = text.charCodeAt(i);
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (stack.length >= maxDepth) return fail(`nesting deeper than ${maxDepth} levels`);
      i++;
      skipWs();
      const close = c === OPEN_OBJECT ? 0x7d : 0x5d;
      if (text.charCodeAt(i) === close) {
        i++;
      } else {
        stack.push(c);
        if (c === OPEN_OBJECT) {
          keys.push(new Set());
          const e = key();
          if (e) return e;
        }
        continue;
      }
    } else if (c === 0x22) {
      const e = string();
      if (e) return e;
    } else {
      const re = c === 0x2d || (c >= 0x30 && c <= 0x39) ? NUMBER : LITERAL;
      re.lastIndex = i;
      if (!re.test(text)) return fail(describe(text, i));
      i = re.lastIndex;
    }
    // A value is complete: close containers or move to the next element.
    for (;;) {
      const top = stack[stack.length - 1];
      if (top === undefined) return nestedDuplicate ?? { ok: true, end: i };
      skipWs();
      const d = text.charCodeAt(i);
      if (d === 0x2c) {
        i++;
        if (top === OPEN_OBJECT) {
          const e = key();
          if (e) return e;
        }
        break;
      }
      if ((top === OPEN_OBJECT && d === 0x7d) || (top === OPEN_ARRAY && d === 0x5d)) {
        stack.pop();
        if (top === OPEN_OBJECT) keys.pop();
        i++;
        continue;
      }
      const want = top === OPEN_OBJECT ? "',' or '}' after object member" : "',' or ']' after array element";
      return fail(`${describe(text, i)}; expected ${want}`);
    }
  }
}
