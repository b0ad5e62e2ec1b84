/**
 * A fast reader for the YAML that catalog tools write (go-yaml's output style): block mappings and
 * sequences, plain, single- and double-quoted scalars on one line, literal block scalars (`|`, `|-`,
 * `|+`), and the empty collections `[]` and `{}`. It reads such a document several times faster than
 * js-yaml (docs/performance.md), whose reading is most of the time of loading a YAML catalog.
 *
 * Comment lines (`#` after nothing but spaces) between entries are skipped, as js-yaml skips them.
 * It never decides anything js-yaml could decide differently: at the first thing outside that subset
 * (comments after a value or key on its line, anchors, aliases, tags, flow collections, folded or
 * multi-line scalars, duplicate or non-string keys, tabs, carriage returns, non-printable
 * characters, deep nesting, and every error) it gives up and returns undefined, and the caller reads the document with js-yaml, which
 * then gives the value, the warning or the error with its position. Plain scalars are resolved by
 * the caller's YAML 1.1 resolver, so values are the same as js-yaml with the YAML 1.1 schema; a
 * differential test (block-reader.test.ts) holds it to that on every corpus file and on generated
 * and mutated documents.
 */
import {
  unusual,
  isIndicator,
  SPACE,
  NL,
  TAB,
  COLON,
  HASH,
  DASH,
  PLUS,
  DQUOTE,
  SQUOTE,
  BACKSLASH,
  SIMPLE_ESCAPES,
  HEX,
} from './block-chars.js';

/** How the YAML 1.1 schema resolves a plain scalar (resolveYaml11Scalar of yaml11.ts). */
export type PlainResolver = (
  text: string,
) => { ok: false } | { ok: true; value: null | boolean | number; exact?: string };

type Value = null | boolean | number | string | Value[] | { [key: string]: Value };

/** What the block reader learnt of a document it read, besides its value. */
export interface BlockFacts {
  /**
   * JSON.stringify writes the value as Go's encoder writes a map of it: every mapping's keys came in
   * UTF-8 byte order (none index-like, which V8 would put first, nor holding a surrogate, where UTF-16
   * order differs), and no number is -0.
   */
  stringifiesAsGo: boolean;
  /** The length of the longest string value. */
  longestString: number;
}

/** Keys that V8 may order apart (a leading digit) or that compare apart in UTF-16 (surrogates). */
const KEY_OUT_OF_ORDER = new RegExp('^[0-9]|[\\ud800-\\udfff]');

/**
 * Plain keys already read and found to be string keys by a resolver, by a hash of length and end
 * characters (whether a key is a string is the resolver's answer, so each resolver has its own).
 */
const KEY_SLOTS_MASK = 1023;
const KEY_SLOTS = new WeakMap<PlainResolver, (string | undefined)[]>();

function keySlots(resolve: PlainResolver): (string | undefined)[] {
  let slots = KEY_SLOTS.get(resolve);
  if (slots === undefined) {
    slots = new Array<string | undefined>(KEY_SLOTS_MASK + 1).fill(undefined);
    KEY_SLOTS.set(resolve, slots);
  }
  return slots;
}

/** Thrown to give up; caught at the top only. */
const GIVE_UP = new Error('outside the fast subset');

/** Deeper documents are left to js-yaml (which has its own depth limit and messages). */
const MAX_DEPTH = 100;
/** js-yaml reads longer implicit keys differently from YAML 1.2; such keys are not ours to judge. */
const MAX_KEY_LENGTH = 1024;

class BlockReader {
  private readonly text: string;
  private readonly resolve: PlainResolver;
  private readonly keys: (string | undefined)[];
  /** Start of the line being read. */
  private pos = 0;
  /** Spaces at the start of that line, once skipBlankLines has reached it. */
  private indent = 0;
  readonly facts: BlockFacts = { stringifiesAsGo: true, longestString: 0 };

  constructor(text: string, resolve: PlainResolver) {
    this.text = text;
    this.resolve = resolve;
    this.keys = keySlots(resolve);
  }

  /** The document's value: a block mapping starting at column 0. */
  document(): Value {
    this.skipBlankLines();
    if (this.pos >= this.text.length || this.indent !== 0) throw GIVE_UP;
    const value = this.mapping(0, this.pos, 0);
    this.skipBlankLines();
    if (this.pos < this.text.length) throw GIVE_UP;
    return value;
  }

  private lineEnd(from: number): number {
    const nl = this.text.indexOf('\n', from);
    // The caller makes sure the text ends with a line break.
    if (nl === -1) throw GIVE_UP;
    return nl;
  }

  /**
   * Move `pos` past lines that hold only spaces and comment lines (spaces, then `#`), and set
   * `indent` to the next line's spaces. Called only where a node has ended: scalars read their own
   * lines (a comment line inside a quoted or block scalar is its text).
   */
  private skipBlankLines(): void {
    const t = this.text;
    for (;;) {
      let i = this.pos;
      // At the end first: a read past it would cost the optimised code of every caller a
      // deoptimisation and a second compilation (see plain).
      if (i >= t.length) {
        this.pos = t.length;
        this.indent = 0;
        return;
      }
      // The text ends with a line break, so the spaces end before it does.
      while (t.charCodeAt(i) === SPACE) i++;
      const c = t.charCodeAt(i);
      // A comment line, at any indentation, is nothing between entries, as js-yaml reads it
      // (annotations files have them). Tabs, in indentation too, are js-yaml's business.
      if (c === HASH) {
        this.pos = this.lineEnd(i) + 1;
        continue;
      }
      if (c === TAB) throw GIVE_UP;
      if (c !== NL) {
        this.indent = i - this.pos;
        return;
      }
      this.pos = i + 1;
    }
  }

  /**
   * A block mapping whose keys are at column `indent`; the first key starts at `at` (which may be in
   * the middle of a line, after `- `). Returns with `pos` at the first line that is not its own.
   */
  private mapping(indent: number, at: number, depth: number): Value {
    if (depth > MAX_DEPTH) throw GIVE_UP;
    const t = this.text;
    const out: { [key: string]: Value } = {};
    let keyAt = at;
    let previous = '';
    for (;;) {
      const colon = this.keyEnd(keyAt);
      const key = this.key(keyAt, colon);
      if (Object.hasOwn(out, key)) throw GIVE_UP;
      // Without surrogates, UTF-16 order is UTF-8 order (key() saw to those).
      if (key < previous) this.facts.stringifiesAsGo = false;
      previous = key;
      let i = colon + 1;
      while (t.charCodeAt(i) === SPACE) i++;
      let value: Value;
      if (t.charCodeAt(i) === NL) {
        this.pos = i + 1;
        value = this.nestedValue(indent, depth);
      } else {
        value = this.inlineValue(i, indent, depth);
      }
      out[key] = value;
      this.skipBlankLines();
      if (this.pos >= t.length) return out;
      const next = this.indent;
      if (next < indent) return out;
      if (next > indent) throw GIVE_UP; // a continuation line, or bad indentation
      keyAt = this.pos + indent;
    }
  }

  /**
   * The plain key from `at` to `colon`. A catalog repeats a few hundred keys thousands of times: a key
   * met before is taken from `keys`, compared in place, instead of being cut out of the text, checked
   * and interned again as a property name.
   */
  private key(at: number, colon: number): string {
    const t = this.text;
    const slot =
      (Math.imul(colon - at, 31) + Math.imul(t.charCodeAt(at), 7) + t.charCodeAt(colon - 1)) & KEY_SLOTS_MASK;
    const known = this.keys[slot];
    if (known !== undefined && known.length === colon - at && t.startsWith(known, at)) return known;
    const key = t.slice(at, colon);
    // Keys js-yaml treats specially, and keys that are not strings (true, 1, ~), are js-yaml's.
    if (key === '__proto__' || key === '<<' || this.resolve(key).ok) throw GIVE_UP;
    // Such keys are said each time they are met: they are not kept.
    if (KEY_OUT_OF_ORDER.test(key)) this.facts.stringifiesAsGo = false;
    else this.keys[slot] = key;
    return key;
  }

  /** End of a plain key starting at `at` (the position of its `: ` or `:` before the line break). */
  private keyEnd(at: number): number {
    const t = this.text;
    if (isIndicator(t.charCodeAt(at))) throw GIVE_UP;
    for (let i = at + 1; i < t.length; i++) {
      const c = t.charCodeAt(i);
      if (c === COLON) {
        const after = t.charCodeAt(i + 1);
        if (after === SPACE || after === NL) {
          if (i - at > MAX_KEY_LENGTH || t.charCodeAt(i - 1) === SPACE) throw GIVE_UP;
          return i;
        }
      } else if (c === NL || c === TAB || (c === HASH && t.charCodeAt(i - 1) === SPACE)) {
        // Not a key (a plain scalar where a key should be, or a multi-line key), or a comment.
        throw GIVE_UP;
      }
    }
    throw GIVE_UP;
  }

  /** The value of a key written alone on its line: a nested block, or null. */
  private nestedValue(indent: number, depth: number): Value {
    this.skipBlankLines();
    if (this.pos >= this.text.length) return null;
    const next = this.indent;
    const start = this.pos + next;
    const isItem = this.text.charCodeAt(start) === DASH && this.isItemMark(start);
    if (isItem && next >= indent) return this.sequence(next, depth + 1);
    if (next > indent) return this.mapping(next, start, depth + 1);
    return null;
  }

  private isItemMark(at: number): boolean {
    const c = this.text.charCodeAt(at + 1);
    return c === SPACE || c === NL;
  }

  /** A block sequence whose `- ` marks are at column `indent`, starting on the line at `pos`. */
  private sequence(indent: number, depth: number): Value {
    if (depth > MAX_DEPTH) throw GIVE_UP;
    const t = this.text;
    const out: Value[] = [];
    for (;;) {
      const mark = this.pos + indent;
      let i = mark + 1;
      while (t.charCodeAt(i) === SPACE) i++;
      const c = t.charCodeAt(i);
      // `-` alone on its line, or `- - x`: not written by catalog tools.
      if (c === NL || (c === DASH && this.isItemMark(i))) throw GIVE_UP;
      if (this.startsKey(i)) out.push(this.mapping(i - this.pos, i, depth + 1));
      else out.push(this.inlineValue(i, indent, depth));
      this.skipBlankLines();
      if (this.pos >= t.length) return out;
      const next = this.indent;
      if (next < indent) return out;
      if (next > indent) throw GIVE_UP;
      const start = this.pos + indent;
      if (t.charCodeAt(start) !== DASH || !this.isItemMark(start)) return out; // the parent's next key
    }
  }

  /** Whether a plain key (`key: ` or `key:` at the end of the line) starts at `at`. */
  private startsKey(at: number): boolean {
    const t = this.text;
    const c = t.charCodeAt(at);
    if (c === DQUOTE || c === SQUOTE) return false;
    const end = this.lineEnd(at);
    for (let i = t.indexOf(':', at); i !== -1 && i < end; i = t.indexOf(':', i + 1)) {
      const after = t.charCodeAt(i + 1);
      if (after === SPACE || after === NL) return true;
    }
    return false;
  }

  /**
   * A value starting at `at` on a key's or an item's line; `indent` is the column of that key or
   * item mark (block scalar lines must be deeper). Leaves `pos` at the next line.
   */
  private inlineValue(at: number, indent: number, depth: number): Value {
    const value = this.scalarOrEmpty(at, indent, depth);
    if (typeof value === 'string' && value.length > this.facts.longestString)
      this.facts.longestString = value.length;
    return value;
  }

  /** What inlineValue reads: a scalar, or an empty collection. */
  private scalarOrEmpty(at: number, indent: number, depth: number): Value {
    const t = this.text;
    const c = t.charCodeAt(at);
    if (c === DQUOTE) return this.doubleQuoted(at, indent);
    if (c === SQUOTE) return this.singleQuoted(at, indent);
    if (c === 0x7c) return this.literal(at, indent);
    if (c === 0x5b || c === 0x7b) {
      // Only the empty collections `[]` and `{}`; other flow collections are js-yaml's.
      const close = c === 0x5b ? 0x5d : 0x7d;
      if (t.charCodeAt(at + 1) !== close) throw GIVE_UP;
      this.endOfLine(at + 2);
      if (depth + 1 > MAX_DEPTH) throw GIVE_UP;
      return c === 0x5b ? [] : {};
    }
    if (isIndicator(c) && !(c === DASH && !this.isItemMark(at))) throw GIVE_UP;
    return this.plain(at, indent);
  }

  /** Only spaces may follow a value on its line; moves `pos` to the next line. */
  private endOfLine(from: number): void {
    const t = this.text;
    let i = from;
    while (t.charCodeAt(i) === SPACE) i++;
    if (t.charCodeAt(i) !== NL) throw GIVE_UP;
    this.pos = i + 1;
  }

  /**
   * A plain scalar, with its continuation lines (deeper than `indent`) folded into single spaces as
   * go-yaml writes long strings.
   */
  private plain(at: number, indent: number): Value {
    const t = this.text;
    let s = this.plainLine(at);
    let lines: string[] | undefined;
    // Never read past the end of the text: V8's optimised code reads characters on the promise that
    // they are there, and the first read past the end throws away that code (with the callers it was
    // inlined into) to be compiled again, which costs more than this whole scalar's reading.
    while (this.pos < t.length) {
      let i = this.pos;
      while (t.charCodeAt(i) === SPACE) i++;
      // A blank line ends the scalar here, and so does a comment line (js-yaml stops at a `#` after
      // a space or a line break); if a deeper line follows, the caller gives up.
      const c = t.charCodeAt(i);
      if (i - this.pos <= indent || c === NL || c === HASH) break;
      // Indicators are plain text here, past the first character; plainLine gives up on comments.
      (lines ??= [s]).push(this.plainLine(i));
    }
    // Joined into one flat string (FLAT below).
    if (lines !== undefined) s = lines.join(' ');
    const r = this.resolve(s);
    if (!r.ok) return s;
    // Infinities and NaN cannot be JSON; the caller's reader refuses them with its message.
    if (typeof r.value === 'number' && !Number.isFinite(r.value)) throw GIVE_UP;
    // JSON.stringify writes -0 as 0, Go as -0.
    if (r.value === 0 && Object.is(r.value, -0)) this.facts.stringifiesAsGo = false;
    return r.value;
  }

  /** One line of a plain scalar, without its trailing spaces; moves `pos` to the next line. */
  private plainLine(at: number): string {
    const t = this.text;
    const end = this.lineEnd(at);
    let last = end;
    while (t.charCodeAt(last - 1) === SPACE) last--;
    const s = t.slice(at, last);
    // Searched in the line's own text, natively: values are often long (descriptions, base64).
    if (
      s.charCodeAt(0) === HASH || // a comment line
      s.includes(' #') || // a comment
      s.includes(': ') || // a key
      s.charCodeAt(s.length - 1) === COLON ||
      s.includes('\t')
    )
      throw GIVE_UP;
    this.pos = end + 1;
    return s;
  }

  /**
   * The line break at `nl` inside a quoted scalar, folded: one space, or a line feed per empty line
   * that follows. Continuation lines must be deeper than `indent`. Returns the fold and where the
   * scalar goes on.
   */
  private foldQuoted(nl: number, indent: number): { fold: string; at: number } {
    const t = this.text;
    let i = nl + 1;
    let breaks = 0;
    for (;;) {
      let j = i;
      while (t.charCodeAt(j) === SPACE) j++;
      const c = t.charCodeAt(j);
      if (c === NL) {
        if (j !== i) throw GIVE_UP; // spaces-only lines: left to js-yaml
        breaks++;
        i = j + 1;
        continue;
      }
      if (j >= t.length || c === TAB || j - i <= indent) throw GIVE_UP;
      return { fold: breaks === 0 ? ' ' : '\n'.repeat(breaks), at: j };
    }
  }

  /** Where the raw text before a line break at `nl` ends, without trailing spaces. */
  private trimmedEnd(from: number, nl: number): number {
    let e = nl;
    while (e > from && this.text.charCodeAt(e - 1) === SPACE) e--;
    if (this.text.charCodeAt(e - 1) === TAB) throw GIVE_UP;
    return e;
  }

  private singleQuoted(at: number, indent: number): Value {
    const t = this.text;
    const out: string[] = []; // joined at the end (FLAT below)
    let from = at + 1;
    for (;;) {
      const q = t.indexOf("'", from);
      const nl = t.indexOf('\n', from);
      if (nl !== -1 && (q === -1 || nl < q)) {
        out.push(t.slice(from, this.trimmedEnd(from, nl)));
        const f = this.foldQuoted(nl, indent);
        out.push(f.fold);
        from = f.at;
        continue;
      }
      if (q === -1) throw GIVE_UP;
      out.push(t.slice(from, q));
      if (t.charCodeAt(q + 1) === SQUOTE) {
        out.push("'");
        from = q + 2;
        continue;
      }
      this.endOfLine(q + 1);
      return out.join('');
    }
  }

  private doubleQuoted(at: number, indent: number): Value {
    const t = this.text;
    const out: string[] = []; // joined at the end (FLAT below)
    let from = at + 1;
    for (let i = from; i < t.length; i++) {
      const c = t.charCodeAt(i);
      if (c === DQUOTE) {
        out.push(t.slice(from, i));
        this.endOfLine(i + 1);
        return out.join('');
      }
      if (c === NL) {
        out.push(t.slice(from, this.trimmedEnd(from, i)));
        const f = this.foldQuoted(i, indent);
        out.push(f.fold);
        from = f.at;
        i = from - 1;
        continue;
      }
      if (c !== BACKSLASH) continue;
      out.push(t.slice(from, i));
      const e = t.charCodeAt(i + 1);
      let n = 2;
      if (e === NL) {
        // An escaped line break: nothing, and the next line's indentation is not content.
        const f = this.foldQuoted(i + 1, indent);
        if (f.fold !== ' ') throw GIVE_UP;
        i = f.at - 1;
        from = f.at;
        continue;
      }
      const simple = SIMPLE_ESCAPES.get(e);
      if (simple !== undefined) out.push(simple);
      else {
        const digits = e === 0x78 ? 2 : e === 0x75 ? 4 : e === 0x55 ? 8 : 0; // x u U
        if (digits === 0) throw GIVE_UP;
        const hex = t.slice(i + 2, i + 2 + digits);
        if (hex.length !== digits || !HEX.test(hex)) throw GIVE_UP;
        out.push(String.fromCodePoint(parseInt(hex, 16)));
        n = 2 + digits;
      }
      i += n - 1;
      from = i + 1;
    }
    throw GIVE_UP; // no closing quote
  }

  /**
   * A literal block scalar whose header (`|`, with an optional chomping indicator `-`/`+` and an
   * optional indentation indicator 1-9, which go-yaml writes when the text starts with a space or
   * a line break) is at `at`; its lines are deeper than `indent`.
   */
  private literal(at: number, indent: number): Value {
    const t = this.text;
    let chomp = 0;
    let explicit = 0;
    let h = at + 1;
    for (let k = 0; k < 2; k++) {
      const c = t.charCodeAt(h);
      if ((c === DASH || c === PLUS) && chomp === 0) chomp = c;
      else if (c >= 0x31 && c <= 0x39 && explicit === 0) explicit = c - 0x30;
      else break;
      h++;
    }
    this.endOfLine(h);
    let blockIndent = explicit === 0 ? -1 : indent + explicit;
    const parts: string[] = [];
    let pendingBreaks = 0;
    let started = false;
    for (;;) {
      if (this.pos >= t.length) break;
      const end = this.lineEnd(this.pos);
      if (end === this.pos) {
        pendingBreaks++;
        this.pos = end + 1;
        continue;
      }
      let i = this.pos;
      while (t.charCodeAt(i) === SPACE) i++;
      if (i === end) throw GIVE_UP; // a line of spaces only: its meaning depends on the indentation
      const lineIndent = i - this.pos;
      if (blockIndent === -1) {
        if (lineIndent <= indent) throw GIVE_UP; // an empty block scalar
        blockIndent = lineIndent;
      } else if (lineIndent < blockIndent) {
        break;
      }
      if (started) parts.push('\n');
      if (pendingBreaks > 0) parts.push('\n'.repeat(pendingBreaks));
      parts.push(t.slice(this.pos + blockIndent, end));
      pendingBreaks = 0;
      started = true;
      this.pos = end + 1;
    }
    if (!started) throw GIVE_UP;
    // FLAT: the pieces of a scalar (lines, escapes) joined into one flat string, where adding them
    // one by one makes a chain of concatenations over slices of the document's text, 32 bytes
    // each, that holds the text alive as long as the value is kept: the corpus catalog served from
    // memory kept 236,000 concatenations and 173,000 slices, now 4,200 and 83,000: 4.6 MiB less
    // (docs/performance.md, "Resident memory").
    const out = parts.join('');
    if (chomp === DASH) return out;
    if (chomp === PLUS) return out + '\n' + '\n'.repeat(pendingBreaks);
    return out + '\n';
  }
}

/**
 * The value of a YAML document written in the block style of catalog tools, or undefined when the
 * document holds anything else (the caller then reads it with js-yaml). `text` is one document,
 * without its `---` line; `wellFormed` says it was decoded from bytes, so it has no unpaired
 * surrogates to look for. `facts`, when given, receives what the reader learnt of a document it read.
 * `usual` says the text is known to hold none of the characters left to js-yaml (usualAscii).
 */
export function readBlockYaml(
  text: string,
  resolve: PlainResolver,
  wellFormed = false,
  facts?: BlockFacts,
  usual = false,
): Value | undefined {
  // Carriage returns are among the unusual characters (\x0d).
  if (text.length === 0 || text.charCodeAt(text.length - 1) !== NL || (!usual && unusual(text, wellFormed)))
    return undefined;
  try {
    const reader = new BlockReader(text, resolve);
    const value = reader.document();
    if (facts !== undefined) Object.assign(facts, reader.facts);
    return value;
  } catch (err) {
    if (err === GIVE_UP || err instanceof RangeError) return undefined;
    throw err;
  }
}
