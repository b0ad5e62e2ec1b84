/**
 * A YAML writer producing, byte for byte, what opm's YAML output holds for a value: the value
 * encoded as Go JSON, re-read by go-yaml v2 and marshalled again by go-yaml v2's block emitter
 * (sigs.k8s.io/yaml JSONToYAML, called by WriteYAML in operator-registry `alpha/declcfg/write.go`).
 * Indent 2, line width 80, block style, keys in go-yaml's order, each string in the style go-yaml
 * picks for it.
 *
 * Input values: what the Go JSON marshaller in src/go/json-encode.ts accepts (null, booleans, finite
 * numbers, strings, arrays, plain objects, GoStruct, RawJson, NativeJson). Numbers go through Go's JSON number
 * text, as in opm, so `1.0` is written `1` and `1e21` `1e+21`.
 */
import { RawJson } from '../go/raw-json.js';
import { InternalError } from '../errors.js';
import { GoStruct } from '../go/go-struct.js';
import { NativeJson } from '../go/json-native.js';
import { compareYamlKeys } from './key-order.js';
import { YamlPlainScalar, rereadRawJson, rereadTypedString, yamlTextOfNumber } from './json-reread.js';
import { isSimpleKey, plainReadsAsNonString, scalarStyle } from './scalar-style.js';
import { isPlainObject } from '../go/json-value.js';

const BEST_WIDTH = 80;
const BEST_INDENT = 2;

// Plain-safe without further analysis: no blanks or breaks, printable ASCII, a first character
// that starts no indicator, no trailing `:`. Such text only needs the resolve check.
const FAST_PLAIN = /^[A-Za-z0-9_/+=$^;<(\\][\x21-\x7e]*$/;
// Characters the double-quoted writer cannot copy as they are (or may fold at, for the space).
const DOUBLE_ATTENTION = /[^\x21\x23-\x5b\x5d-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]/;
const DOUBLE_ATTENTION_G = new RegExp(DOUBLE_ATTENTION.source, 'g');
const SINGLE_ATTENTION_G = /[ '\n\r\u0085\u2028\u2029]/g;
const LITERAL_BREAK_G = /[\n\r\u0085\u2028\u2029]/g;

const SPACES = ' '.repeat(256);

function isBreak(c: number): boolean {
  return c === 0x0a || c === 0x0d || c === 0x85 || c === 0x2028 || c === 0x2029;
}

function hex(cp: number, digits: number): string {
  return cp.toString(16).toUpperCase().padStart(digits, '0');
}

function escapeFor(cp: number): string {
  switch (cp) {
    case 0x00:
      return '\\0';
    case 0x07:
      return '\\a';
    case 0x08:
      return '\\b';
    case 0x09:
      return '\\t';
    case 0x0a:
      return '\\n';
    case 0x0b:
      return '\\v';
    case 0x0c:
      return '\\f';
    case 0x0d:
      return '\\r';
    case 0x1b:
      return '\\e';
    case 0x22:
      return '\\"';
    case 0x5c:
      return '\\\\';
    case 0x85:
      return '\\N';
    case 0xa0:
      return '\\_';
    case 0x2028:
      return '\\L';
    case 0x2029:
      return '\\P';
    default:
      if (cp <= 0xff) return '\\x' + hex(cp, 2);
      if (cp <= 0xffff) return '\\u' + hex(cp, 4);
      return '\\U' + hex(cp, 8);
  }
}

type Entry = [string, unknown];

function compareEntries(a: Entry, b: Entry): number {
  return compareYamlKeys(a[0], b[0]);
}

/**
 * The emitter's state: the output so far, the current column (in code points), whether the last
 * thing written was whitespace, and whether the line holds only indentation and indicators.
 */
class Emitter {
  readonly out: string[] = [];
  /** Whether long strings are folded at the line width (go-yaml v2); v3's encoder never folds. */
  private readonly fold: boolean;

  constructor(fold = true) {
    this.fold = fold;
  }

  private column = 0;
  private whitespace = true;
  private indention = true;

  private put(s: string, cols: number): void {
    this.out.push(s);
    this.column += cols;
  }

  private newline(): void {
    this.out.push('\n');
    this.column = 0;
  }

  private writeIndent(indent: number): void {
    const ind = indent < 0 ? 0 : indent;
    if (!this.indention || this.column > ind || (this.column === ind && !this.whitespace)) this.newline();
    if (this.column < ind) {
      const pad = ind - this.column;
      this.put(pad <= SPACES.length ? SPACES.slice(0, pad) : ' '.repeat(pad), pad);
    }
    this.whitespace = true;
    this.indention = true;
  }

  private indicator(
    text: string,
    needWhitespace: boolean,
    isWhitespace: boolean,
    isIndention: boolean,
  ): void {
    if (needWhitespace && !this.whitespace) this.put(' ', 1);
    this.put(text, text.length);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  document(value: unknown): void {
    this.node(value, -1, false, false);
    this.writeIndent(-1);
  }

  /**
   * Write a node. `indent` is the indentation of the enclosing collection (-1 at the root),
   * `mapping` whether the node is a mapping value, `raw` whether strings below are final (they
   * came out of raw JSON text, already re-read).
   */
  private node(v: unknown, indent: number, mapping: boolean, raw: boolean): void {
    if (v === null || v === undefined) return this.plainScalar('null');
    switch (typeof v) {
      case 'string':
        return this.stringScalar(raw ? v : rereadTypedString(v), indent, false);
      case 'number':
        return this.plainScalar(yamlTextOfNumber(v));
      case 'boolean':
        return this.plainScalar(v ? 'true' : 'false');
      case 'object':
        break;
      default:
        throw new InternalError(`cannot write a value of type ${typeof v} as YAML`);
    }
    if (Array.isArray(v)) return this.sequence(v, indent, mapping, raw);
    if (v instanceof YamlPlainScalar) return this.plainScalar(v.text);
    if (v instanceof RawJson) return this.node(rereadRawJson(v.text), indent, mapping, true);
    if (v instanceof NativeJson) return this.node(v.value, indent, mapping, raw);
    const entries: Entry[] = [];
    if (v instanceof Map) {
      for (const [k, x] of v as Map<unknown, unknown>) {
        if (typeof k !== 'string') throw new InternalError('YAML mapping keys must be strings');
        entries.push([k, x]);
      }
    } else {
      let fields: Readonly<Record<string, unknown>>;
      if (v instanceof GoStruct) fields = v.fields;
      else if (isPlainObject(v)) fields = v;
      else throw new InternalError(`cannot write a ${v.constructor.name} as YAML`);
      for (const k of Object.keys(fields)) {
        const x = fields[k];
        if (x !== undefined) entries.push([raw ? k : rereadTypedString(k), x]);
      }
    }
    this.mappingNode(entries, indent, raw);
  }

  private mappingNode(entries: Entry[], indent: number, raw: boolean): void {
    if (entries.length === 0) {
      this.indicator('{', true, true, false);
      this.indicator('}', false, false, false);
      return;
    }
    if (entries.length > 1) entries.sort(compareEntries);
    const ind = indent < 0 ? 0 : indent + BEST_INDENT;
    for (const [k, x] of entries) {
      this.writeIndent(ind);
      if (isSimpleKey(k)) {
        this.stringScalar(k, ind, true);
        this.indicator(':', false, false, false);
      } else {
        this.indicator('?', true, false, true);
        this.stringScalar(k, ind, false);
        this.writeIndent(ind);
        this.indicator(':', true, false, true);
      }
      this.node(x, ind, true, raw);
    }
  }

  private sequence(items: readonly unknown[], indent: number, mapping: boolean, raw: boolean): void {
    if (items.length === 0) {
      this.indicator('[', true, true, false);
      this.indicator(']', false, false, false);
      return;
    }
    // A sequence that is a mapping value on its own line is not indented ("key:\n- item").
    const indentless = mapping && !this.indention;
    const ind = indent < 0 ? 0 : indentless ? indent : indent + BEST_INDENT;
    for (const item of items) {
      this.writeIndent(ind);
      this.indicator('-', true, false, true);
      this.node(item, ind, false, raw);
    }
  }

  /** A scalar whose text is always plain (numbers, booleans, null). */
  private plainScalar(text: string): void {
    if (!this.whitespace) this.put(' ', 1);
    this.put(text, text.length);
    this.whitespace = false;
    this.indention = false;
  }

  /** A string scalar; `indent` is the enclosing collection's indentation. */
  private stringScalar(s: string, indent: number, simpleKey: boolean): void {
    const scalarIndent = indent < 0 ? BEST_INDENT : indent + BEST_INDENT;
    const allowBreaks = !simpleKey && this.fold;
    if (FAST_PLAIN.test(s) && s.charCodeAt(s.length - 1) !== 0x3a) {
      if (plainReadsAsNonString(s)) this.doubleQuoted(s, scalarIndent, allowBreaks);
      else this.plainScalar(s);
      return;
    }
    switch (scalarStyle(s, simpleKey)) {
      case 'plain':
        return this.plain(s, scalarIndent, allowBreaks);
      case 'single':
        return this.singleQuoted(s, scalarIndent, allowBreaks);
      case 'double':
        return this.doubleQuoted(s, scalarIndent, allowBreaks);
      case 'literal':
        return this.literal(s, scalarIndent);
    }
  }

  // Plain text never holds breaks or non-BMP characters, so its length is its width.
  private plain(s: string, indent: number, allowBreaks: boolean): void {
    if (!this.whitespace) this.put(' ', 1);
    const n = s.length;
    if (!allowBreaks || this.column + n <= BEST_WIDTH + 1) {
      this.put(s, n);
    } else {
      let i = 0;
      let spaces = false;
      while (i < n) {
        const sp = s.indexOf(' ', i);
        if (sp === -1) {
          this.put(s.slice(i), n - i);
          break;
        }
        if (sp > i) {
          this.put(s.slice(i, sp), sp - i);
          spaces = false;
        }
        if (!spaces && this.column > BEST_WIDTH && s.charCodeAt(sp + 1) !== 0x20) this.writeIndent(indent);
        else this.put(' ', 1);
        spaces = true;
        i = sp + 1;
      }
    }
    this.whitespace = false;
    this.indention = false;
  }

  private singleQuoted(s: string, indent: number, allowBreaks: boolean): void {
    this.indicator("'", true, false, false);
    const n = s.length;
    let spaces = false;
    let breaks = false;
    let i = 0;
    SINGLE_ATTENTION_G.lastIndex = 0;
    while (i < n) {
      SINGLE_ATTENTION_G.lastIndex = i;
      const m = SINGLE_ATTENTION_G.exec(s);
      const j = m === null ? n : m.index;
      if (j > i) {
        if (breaks) this.writeIndent(indent);
        this.put(s.slice(i, j), j - i);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
      if (j >= n) break;
      const c = s.charCodeAt(j);
      if (c === 0x20) {
        const canFold = allowBreaks && !spaces && this.column > BEST_WIDTH && j > 0 && j < n - 1;
        if (canFold && s.charCodeAt(j + 1) !== 0x20) this.writeIndent(indent);
        else this.put(' ', 1);
        spaces = true;
      } else if (isBreak(c)) {
        if (!breaks && c === 0x0a) this.newline();
        this.writeBreak(s, j);
        this.indention = true;
        breaks = true;
      } else {
        // a quote, doubled
        if (breaks) this.writeIndent(indent);
        this.put("''", 2);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
      i = j + 1;
    }
    this.indicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private writeBreak(s: string, i: number): void {
    if (s.charCodeAt(i) === 0x0a) this.newline();
    else {
      this.out.push(s[i] as string);
      this.column = 0;
    }
  }

  private doubleQuoted(s: string, indent: number, allowBreaks: boolean): void {
    this.indicator('"', true, false, false);
    const n = s.length;
    if (n > 0 && s.charCodeAt(0) === 0xfeff) {
      // go-yaml checks for a byte order mark at the start of the text, not at the current
      // character: every character of such a string is written escaped.
      for (const ch of s) {
        const e = escapeFor(ch.codePointAt(0) as number);
        this.put(e, e.length);
      }
    } else if (!DOUBLE_ATTENTION.test(s)) {
      this.put(s, n);
    } else {
      let spaces = false;
      let i = 0;
      while (i < n) {
        DOUBLE_ATTENTION_G.lastIndex = i;
        const m = DOUBLE_ATTENTION_G.exec(s);
        const j = m === null ? n : m.index;
        if (j > i) {
          this.put(s.slice(i, j), j - i);
          spaces = false;
        }
        if (j >= n) break;
        const c = s.charCodeAt(j);
        if (c === 0x20) {
          if (allowBreaks && !spaces && this.column > BEST_WIDTH && j > 0 && j < n - 1) {
            this.writeIndent(indent);
            if (s.charCodeAt(j + 1) === 0x20) this.put('\\', 1);
          } else this.put(' ', 1);
          spaces = true;
          i = j + 1;
        } else {
          const cp = s.codePointAt(j) as number;
          const e = escapeFor(cp);
          this.put(e, e.length);
          spaces = false;
          i = j + (cp > 0xffff ? 2 : 1);
        }
      }
    }
    this.indicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  // Literal text holds no special characters: only LF, U+2028 and U+2029 can break it.
  private literal(s: string, indent: number): void {
    this.indicator('|', true, false, false);
    const n = s.length;
    const first = s.charCodeAt(0);
    if (first === 0x20 || isBreak(first)) this.indicator(String(BEST_INDENT), false, false, false);
    let chomp = '';
    if (n === 0 || !isBreak(s.charCodeAt(n - 1))) chomp = '-';
    else if (n === 1 || isBreak(s.charCodeAt(n - 2))) chomp = '+';
    if (chomp !== '') this.indicator(chomp, false, false, false);
    this.newline();
    this.indention = true;
    this.whitespace = true;
    if (!/[\u2028\u2029]/.test(s)) {
      // Only LF breaks: each non-empty line is indented, empty lines stay bare.
      const lines = s.split('\n');
      const pad = indent <= SPACES.length ? SPACES.slice(0, indent) : ' '.repeat(indent);
      const last = lines.length - 1;
      for (let k = 0; k <= last; k++) {
        const line = lines[k] as string;
        if (line !== '') {
          this.out.push(pad, line);
          this.column = indent + line.length;
        }
        if (k < last) this.newline();
      }
      this.indention = lines[last] === '';
      return;
    }
    let i = 0;
    while (i < n) {
      LITERAL_BREAK_G.lastIndex = i;
      const m = LITERAL_BREAK_G.exec(s);
      const j = m === null ? n : m.index;
      // Every run of text follows the start or a break, so it starts indented.
      if (j > i) {
        this.writeIndent(indent);
        this.put(s.slice(i, j), j - i);
        this.indention = false;
      }
      if (j >= n) break;
      this.writeBreak(s, j);
      this.indention = true;
      i = j + 1;
    }
  }
}

/**
 * The YAML text go-yaml v2 writes for `value` after a JSON round trip (sigs.k8s.io/yaml
 * JSONToYAML), ending with a newline. Throws OpmError where opm's YAML step fails (raw control
 * characters in strings). `fold: false` writes long strings on one line, as go-yaml v3's encoder
 * does (the annotations file of `alpha bundle generate`).
 */
export function emitYaml(value: unknown, options: { fold?: boolean } = {}): string {
  const e = new Emitter(options.fold ?? true);
  e.document(value);
  return e.out.join('');
}
