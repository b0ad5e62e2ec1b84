/**
 * One exact JSON syntax scanner, iterative (deep nesting cannot overflow the stack), with positions.
 * It finds where a value ends, or where and why the text is not JSON, and can build the value's tree
 * with where each part sits in the text: opm keeps some values as the exact bytes it read (Go
 * json.RawMessage), which JSON.parse cannot give back. Strings are skipped with a regular expression,
 * so long strings (base64 payloads) cost little.
 *
 * Its findings are worded two ways: the catalog reader's own, which names what was expected
 * ({@link scanJsonValue}), and Go encoding/json's, as opm reports a bundle's JSON files
 * ({@link scanJson}, {@link scanJsonDocument}).
 */

export type JsonScan =
  | { ok: true; end: number }
  /** `duplicate` is the key (as JSON) when the problem is a duplicate key. */
  | { ok: false; at: number; message: string; duplicate?: string; topLevel?: boolean };

/** A JSON value with where it sits in the text: [start, end). */
export type JsonNode =
  | { kind: 'object'; start: number; end: number; entries: [string, JsonNode][] }
  | { kind: 'array'; start: number; end: number; items: JsonNode[] }
  | { kind: 'scalar'; start: number; end: number; value: string | number | boolean | null };

/** A JSON syntax error in Go encoding/json's words (thrown by {@link scanJson}, {@link scanJsonDocument}). */
export class JsonScanError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonScanError';
  }
}

/** What is wrong, and where: `at` is the offending character (or the text's length at its end). */
type Problem =
  | { kind: 'value' | 'key' | 'colon' | 'member-end' | 'element-end' | 'depth'; at: number }
  /** A string that does not end, or holds a control character or a bad escape; `start` is its quote. */
  | { kind: 'string-end' | 'string-control' | 'string-escape'; at: number; start: number }
  | { kind: 'duplicate'; at: number; key: string; topLevel: boolean };

const WS = /[ \t\n\r]*/y;
// JSON forbids raw control characters in strings, so the class must name them.
// eslint-disable-next-line no-control-regex
const STRING_BODY = /(?:[^"\\\u0000-\u001f]+|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const LITERAL = /true|false|null/y;

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;

/** Builds the tree of the value being scanned. */
class TreeBuilder {
  root: JsonNode | undefined;
  private readonly open: (JsonNode & { kind: 'object' | 'array' })[] = [];
  private readonly keys: string[] = [];

  openContainer(kind: 'object' | 'array', start: number): void {
    this.open.push(
      kind === 'object' ? { kind, start, end: -1, entries: [] } : { kind, start, end: -1, items: [] },
    );
  }

  key(name: string): void {
    this.keys.push(name);
  }

  closeContainer(end: number): void {
    const node = this.open.pop();
    if (node === undefined) return;
    node.end = end;
    this.add(node);
  }

  /** A scalar [start, end), or an empty container written `{}` or `[]`. */
  leaf(text: string, start: number, end: number): void {
    const c = text.charCodeAt(start);
    let node: JsonNode;
    if (c === OPEN_OBJECT) node = { kind: 'object', start, end, entries: [] };
    else if (c === OPEN_ARRAY) node = { kind: 'array', start, end, items: [] };
    else {
      const raw = text.slice(start, end);
      let value: string | number | boolean | null;
      if (c === 0x22) value = JSON.parse(raw) as string;
      else if (raw === 'true') value = true;
      else if (raw === 'false') value = false;
      else if (raw === 'null') value = null;
      else value = Number(raw);
      node = { kind: 'scalar', start, end, value };
    }
    this.add(node);
  }

  private add(node: JsonNode): void {
    const parent = this.open[this.open.length - 1];
    if (parent === undefined) this.root = node;
    else if (parent.kind === 'object') parent.entries.push([this.keys.pop() as string, node]);
    else parent.items.push(node);
  }
}

/**
 * Scan the JSON value starting at `pos` (leading whitespace allowed), no deeper than `maxDepth`;
 * with `duplicates`, a key written twice in one object is a problem (one in the value's own keys
 * first, else the first nested one, reported once the value is whole). `tree` receives the value.
 */
function scan(
  text: string,
  pos: number,
  maxDepth: number,
  duplicates: boolean,
  tree?: TreeBuilder,
): { end: number } | Problem {
  const stack: number[] = [];
  // Keys seen in each open object, when looking for duplicate keys.
  const keys: Set<string>[] = [];
  let nestedDuplicate: Problem | undefined;
  let i = pos;
  const skipWs = (): void => {
    WS.lastIndex = i;
    WS.test(text);
    i = WS.lastIndex;
  };
  /** A string at i; returns a problem or undefined. */
  const string = (): Problem | undefined => {
    const start = i;
    STRING_BODY.lastIndex = i + 1;
    STRING_BODY.test(text);
    i = STRING_BODY.lastIndex;
    if (text.charCodeAt(i) === 0x22) {
      i++;
      return undefined;
    }
    if (i >= text.length) return { kind: 'string-end', at: i, start };
    if (text.charCodeAt(i) === 0x5c) return { kind: 'string-escape', at: i, start };
    return { kind: 'string-control', at: i, start };
  };
  /** `"key" :` at i (after whitespace). */
  const key = (): Problem | undefined => {
    skipWs();
    if (text.charCodeAt(i) !== 0x22) return { kind: 'key', at: i };
    const start = i;
    const e = string();
    if (e) return e;
    if (duplicates || tree) {
      const name = JSON.parse(text.slice(start, i)) as string;
      tree?.key(name);
      const seen = keys[keys.length - 1];
      if (duplicates && seen) {
        // Compared as Go decodes them: `\ud800` and `\udc00` are the same key, U+FFFD.
        const goName = name.toWellFormed();
        if (seen.has(goName)) {
          const found = { kind: 'duplicate' as const, at: start, key: JSON.stringify(goName) };
          // A duplicate in the value's own keys matters most; a nested one is kept while looking on.
          if (keys.length === 1) return { ...found, topLevel: true };
          nestedDuplicate ??= { ...found, topLevel: false };
        }
        seen.add(goName);
      }
    }
    skipWs();
    if (text.charCodeAt(i) !== 0x3a) return { kind: 'colon', at: i };
    i++;
    return undefined;
  };

  for (;;) {
    // Expecting a value.
    skipWs();
    const start = i;
    const c = text.charCodeAt(i);
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (stack.length >= maxDepth) return { kind: 'depth', at: i };
      i++;
      skipWs();
      const close = c === OPEN_OBJECT ? 0x7d : 0x5d;
      if (text.charCodeAt(i) === close) {
        i++;
        tree?.leaf(text, start, i);
      } else {
        stack.push(c);
        tree?.openContainer(c === OPEN_OBJECT ? 'object' : 'array', start);
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
      tree?.leaf(text, start, i);
    } else {
      const re = c === 0x2d || (c >= 0x30 && c <= 0x39) ? NUMBER : LITERAL;
      re.lastIndex = i;
      if (!re.test(text)) return { kind: 'value', at: i };
      i = re.lastIndex;
      tree?.leaf(text, start, i);
    }
    // A value is complete: close containers or move to the next element.
    for (;;) {
      const top = stack[stack.length - 1];
      if (top === undefined) return nestedDuplicate ?? { end: i };
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
        tree?.closeContainer(i);
        continue;
      }
      return { kind: top === OPEN_OBJECT ? 'member-end' : 'element-end', at: i };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The catalog reader's words

function describe(text: string, at: number): string {
  if (at >= text.length) return 'unexpected end of JSON input';
  const cp = text.codePointAt(at) ?? 0;
  const shown =
    cp < 0x20 || cp === 0x7f
      ? `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`
      : String.fromCodePoint(cp);
  return `unexpected character '${shown}'`;
}

function catalogMessage(text: string, p: Problem, maxDepth: number): string {
  switch (p.kind) {
    case 'value':
      return describe(text, p.at);
    case 'key':
      return `${describe(text, p.at)}; expected a string as object key`;
    case 'colon':
      return `${describe(text, p.at)}; expected ':' after object key`;
    case 'member-end':
      return `${describe(text, p.at)}; expected ',' or '}' after object member`;
    case 'element-end':
      return `${describe(text, p.at)}; expected ',' or ']' after array element`;
    case 'depth':
      return `nesting deeper than ${maxDepth} levels`;
    case 'string-end':
      return 'unterminated string';
    case 'string-escape':
      return 'invalid escape sequence in string';
    case 'string-control':
      return 'control character in string';
    case 'duplicate':
      return `duplicate key ${p.key}`;
  }
}

/**
 * Scan the JSON value starting at `pos` (leading whitespace allowed). `maxDepth` bounds nesting.
 * On success `end` is the index just after the value; with `duplicates`, a key written twice in
 * one object is reported (`duplicate`, and whether it is one of the value's own keys).
 */
export function scanJsonValue(text: string, pos: number, maxDepth: number, duplicates = false): JsonScan {
  const r = scan(text, pos, maxDepth, duplicates);
  if ('end' in r) return { ok: true, end: r.end };
  const message = catalogMessage(text, r, maxDepth);
  if (r.kind === 'duplicate') return { ok: false, at: r.at, message, duplicate: r.key, topLevel: r.topLevel };
  return { ok: false, at: r.at, message };
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
 * The number of object keys written in the valid JSON text [from, to), or more: the number of `:`
 * whose last character before it that is not white space is an unescaped `"`. Outside strings, a
 * colon follows a key and nothing else, so every key is counted once; inside a string, an unescaped
 * quote before a colon can only be the string's opening quote, so a string that starts with a colon
 * (after blanks) is counted too. A caller comparing with the keys parsed scans again when the two
 * differ. Colons are found by indexOf, so long strings are skipped at native speed; there are fewer
 * of them than quotes (two per string, keys and values), which made this twice as fast as walking
 * from quote to quote on catalogs of generated CSV metadata.
 */
export function countKeysInText(text: string, from: number, to: number): number {
  let n = 0;
  for (
    let colon = text.indexOf(':', from);
    colon !== -1 && colon < to;
    colon = text.indexOf(':', colon + 1)
  ) {
    let k = colon - 1;
    let c = text.charCodeAt(k);
    while (k > from && isJsonSpace(c)) c = text.charCodeAt(--k);
    if (c === 0x22 && !escaped(text, k)) n++;
  }
  return n;
}

// ---------------------------------------------------------------------------------------------
// Go encoding/json's words, with the value's tree

function goInvalid(text: string, at: number, context: string): JsonScanError {
  if (at >= text.length) return new JsonScanError('unexpected end of JSON input');
  return new JsonScanError(`invalid character ${JSON.stringify(text.charAt(at))} ${context}`);
}

/**
 * The error of a string that is not JSON, starting at its quote: Go names the first control
 * character before the closing quote (an escape's second character is skipped, whatever it is),
 * the end of the input when there is no closing quote, and otherwise the string's escapes.
 */
function goStringError(text: string, start: number): JsonScanError {
  let i = start + 1;
  for (;;) {
    if (i >= text.length) return goInvalid(text, i, 'in string literal');
    const c = text.charCodeAt(i);
    if (c === 0x22) return goInvalid(text, start, 'in string escape code');
    if (c < 0x20) return goInvalid(text, i, 'in string literal');
    i += c === 0x5c ? 2 : 1;
  }
}

function goError(text: string, p: Problem): JsonScanError {
  switch (p.kind) {
    case 'value':
      return goInvalid(text, p.at, 'looking for beginning of value');
    case 'key':
      return goInvalid(text, p.at, 'looking for beginning of object key string');
    case 'colon':
      return goInvalid(text, p.at, 'after object key');
    case 'member-end':
      return goInvalid(text, p.at, 'after object key:value pair');
    case 'element-end':
      return goInvalid(text, p.at, 'after array element');
    case 'string-end':
    case 'string-escape':
    case 'string-control':
      return goStringError(text, p.start);
    case 'depth':
    case 'duplicate':
      // Not looked for here (no depth bound, duplicates allowed: the last one wins).
      return new JsonScanError(catalogMessage(text, p, Infinity));
  }
}

function scanTree(text: string, from: number): JsonNode {
  const tree = new TreeBuilder();
  const r = scan(text, from, Infinity, false, tree);
  if (!('end' in r)) throw goError(text, r);
  return tree.root as JsonNode;
}

/**
 * Parse one JSON value starting at `from` (leading whitespace allowed); trailing text is the
 * caller's business. Throws JsonScanError in Go's words.
 */
export function scanJson(text: string, from = 0): JsonNode {
  return scanTree(text, from);
}

/** Parse a whole JSON text: exactly one value, only whitespace around it. */
export function scanJsonDocument(text: string): JsonNode {
  const node = scanTree(text, 0);
  WS.lastIndex = node.end;
  WS.test(text);
  const after = WS.lastIndex;
  if (after < text.length)
    throw new JsonScanError(`invalid character after top-level value at offset ${after}`);
  return node;
}

/** The exact text of a node. */
export function nodeText(text: string, node: JsonNode): string {
  return text.slice(node.start, node.end);
}

/** Decode a node to a plain value (objects keep the last of duplicate keys, as Go does). */
export function nodeValue(node: JsonNode): unknown {
  switch (node.kind) {
    case 'scalar':
      return node.value;
    case 'array':
      return node.items.map(nodeValue);
    case 'object': {
      const o: Record<string, unknown> = {};
      for (const [k, v] of node.entries) o[k] = nodeValue(v);
      return o;
    }
  }
}
