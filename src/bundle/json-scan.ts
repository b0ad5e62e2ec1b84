/**
 * A JSON parser that remembers where each value sits in the text. opm keeps some property values
 * as the exact bytes it read (Go json.RawMessage): the entries of a JSON dependencies or
 * properties file and of the `olm.properties` CSV annotation. JSON.parse cannot give those back.
 */

export type JsonNode =
  | { kind: 'object'; start: number; end: number; entries: [string, JsonNode][] }
  | { kind: 'array'; start: number; end: number; items: JsonNode[] }
  | { kind: 'scalar'; start: number; end: number; value: string | number | boolean | null };

export class JsonScanError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonScanError';
  }
}

/** Parse one JSON value starting at `from` (leading whitespace allowed). Trailing text is the caller's business. */
export function scanJson(text: string, from = 0): JsonNode {
  const p = new Scanner(text, from);
  return p.value();
}

/** Parse a whole JSON text: exactly one value, only whitespace around it. */
export function scanJsonDocument(text: string): JsonNode {
  const p = new Scanner(text, 0);
  const v = p.value();
  p.ws();
  if (p.pos < text.length)
    throw new JsonScanError(`invalid character after top-level value at offset ${p.pos}`);
  return v;
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

class Scanner {
  pos: number;
  readonly text: string;
  constructor(text: string, from: number) {
    this.text = text;
    this.pos = from;
  }

  ws(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.pos++;
      else break;
    }
  }

  fail(what: string): never {
    if (this.pos >= this.text.length) throw new JsonScanError('unexpected end of JSON input');
    throw new JsonScanError(`invalid character ${JSON.stringify(this.text.charAt(this.pos))} ${what}`);
  }

  value(): JsonNode {
    this.ws();
    const t = this.text;
    const start = this.pos;
    const c = t.charAt(this.pos);
    if (c === '{') return this.object(start);
    if (c === '[') return this.array(start);
    if (c === '"') {
      const s = this.string();
      return { kind: 'scalar', start, end: this.pos, value: s };
    }
    for (const [lit, val] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (t.startsWith(lit, this.pos)) {
        this.pos += lit.length;
        return { kind: 'scalar', start, end: this.pos, value: val };
      }
    }
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(t.slice(this.pos, this.pos + 400));
    if (m && m[0] !== '' && m[0] !== '-') {
      this.pos += m[0].length;
      return { kind: 'scalar', start, end: this.pos, value: Number(m[0]) };
    }
    return this.fail('looking for beginning of value');
  }

  object(start: number): JsonNode {
    this.pos++;
    const entries: [string, JsonNode][] = [];
    this.ws();
    if (this.text.charAt(this.pos) === '}') {
      this.pos++;
      return { kind: 'object', start, end: this.pos, entries };
    }
    for (;;) {
      this.ws();
      if (this.text.charAt(this.pos) !== '"') this.fail('looking for beginning of object key string');
      const key = this.string();
      this.ws();
      if (this.text.charAt(this.pos) !== ':') this.fail('after object key');
      this.pos++;
      entries.push([key, this.value()]);
      this.ws();
      const c = this.text.charAt(this.pos);
      this.pos++;
      if (c === '}') return { kind: 'object', start, end: this.pos, entries };
      if (c !== ',') {
        this.pos--;
        this.fail('after object key:value pair');
      }
    }
  }

  array(start: number): JsonNode {
    this.pos++;
    const items: JsonNode[] = [];
    this.ws();
    if (this.text.charAt(this.pos) === ']') {
      this.pos++;
      return { kind: 'array', start, end: this.pos, items };
    }
    for (;;) {
      items.push(this.value());
      this.ws();
      const c = this.text.charAt(this.pos);
      this.pos++;
      if (c === ']') return { kind: 'array', start, end: this.pos, items };
      if (c !== ',') {
        this.pos--;
        this.fail('after array element');
      }
    }
  }

  string(): string {
    const t = this.text;
    const start = this.pos;
    this.pos++;
    for (;;) {
      if (this.pos >= t.length) this.fail('in string literal');
      const c = t.charCodeAt(this.pos);
      if (c === 0x22) break;
      if (c < 0x20) this.fail('in string literal');
      if (c === 0x5c) this.pos++;
      this.pos++;
    }
    this.pos++;
    try {
      const s: unknown = JSON.parse(t.slice(start, this.pos));
      if (typeof s !== 'string') throw new JsonScanError('invalid string literal');
      return s;
    } catch {
      this.pos = start;
      return this.fail('in string escape code');
    }
  }
}
