/**
 * The tabs go-yaml v2 refuses and js-yaml reads. go-yaml's scanner skips a tab between tokens only
 * in a flow collection or where no mapping key may start; so a tab after a sequence's `-`, after
 * `?`, or before anything at the start of a line (a comment or blank line indented with a tab
 * included) is `found character that cannot start any token`. A tab in the indentation that follows
 * a plain scalar's line, left of the scalar's block, is `found a tab character that violates
 * indentation`, and one in a block scalar's indentation `found a tab character where an indentation
 * space is expected`. js-yaml takes all of these as white space, so a document it has read is
 * checked here when it holds a tab, by following the scanner's state through the text (flow level,
 * whether a key may start, the block indentation, scalars skipped whole). The text is one document
 * js-yaml read without error, so only what decides those three cases is followed.
 */

/** Where go-yaml stops on a tab: the 0-based line and column in the text, go-yaml's words and a hint. */
export interface TabProblem {
  line: number;
  column: number;
  message: string;
}

const TAB_HINT = 'a tab: write spaces here';

const SP = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

/** go-yaml's first tab problem in `text` (one YAML document, without `---` lines), or undefined. */
export function goYamlTabProblem(text: string): TabProblem | undefined {
  if (!text.includes('\t')) return undefined;
  return new TabScanner(text).run();
}

class Found {
  readonly problem: TabProblem;
  constructor(problem: TabProblem) {
    this.problem = problem;
  }
}

class TabScanner {
  private i = 0;
  private line = 0;
  private lineStart = 0;
  private flow = 0;
  /** Whether a mapping key may start here (go-yaml's simple_key_allowed). */
  private keyAllowed = true;
  /** The block indentation (-1 before any block collection) and the ones it was rolled from. */
  private indent = -1;
  private readonly indents: number[] = [];
  /** A possible simple key of the block context: its column and line. */
  private keyColumn = -1;
  private keyLine = -1;

  private readonly t: string;

  constructor(text: string) {
    this.t = text;
  }

  run(): TabProblem | undefined {
    try {
      this.tokens();
      return undefined;
    } catch (err) {
      if (err instanceof Found) return err.problem;
      throw err;
    }
  }

  private get c(): number {
    return this.t.charCodeAt(this.i);
  }

  private get col(): number {
    return this.i - this.lineStart;
  }

  private at(k: number): number {
    return this.t.charCodeAt(this.i + k);
  }

  private isBreak(c: number): boolean {
    return c === LF || c === CR;
  }

  private isBlank(c: number): boolean {
    return c === SP || c === TAB;
  }

  /** Blank, break or the end of the text. */
  private isBlankz(c: number): boolean {
    return c === SP || c === TAB || c === LF || c === CR || Number.isNaN(c);
  }

  private breakLine(): void {
    if (this.c === CR && this.at(1) === LF) this.i++;
    this.i++;
    this.line++;
    this.lineStart = this.i;
  }

  private fail(message: string): never {
    throw new Found({ line: this.line, column: this.col, message: `${message} (${TAB_HINT})` });
  }

  private roll(column: number): void {
    if (this.flow === 0 && this.indent < column) {
      this.indents.push(this.indent);
      this.indent = column;
    }
  }

  private saveKey(): void {
    if (this.flow === 0 && this.keyAllowed) {
      this.keyColumn = this.col;
      this.keyLine = this.line;
    }
  }

  private tokens(): void {
    const t = this.t;
    for (;;) {
      this.toNextToken();
      if (this.i >= t.length) return;
      const c = this.c;
      if (c === TAB) this.fail('found character that cannot start any token');
      if (this.flow === 0) {
        while (this.indent > this.col) this.indent = this.indents.pop() ?? -1;
      }
      const next = this.at(1);
      if (c === 0x5b || c === 0x7b) {
        // [ {
        this.saveKey();
        this.flow++;
        this.keyAllowed = true;
        this.i++;
      } else if (c === 0x5d || c === 0x7d) {
        // ] }
        if (this.flow > 0) this.flow--;
        this.keyAllowed = false;
        this.i++;
      } else if (c === 0x2c) {
        // ,
        this.keyAllowed = true;
        this.i++;
      } else if (c === 0x2d && this.isBlankz(next)) {
        // - entry
        this.roll(this.col);
        this.keyAllowed = true;
        this.keyLine = -1;
        this.i++;
      } else if (c === 0x3f && (this.flow > 0 || this.isBlankz(next))) {
        // ? key
        this.roll(this.col);
        this.keyAllowed = this.flow === 0;
        this.keyLine = -1;
        this.i++;
      } else if (c === 0x3a && (this.flow > 0 || this.isBlankz(next))) {
        // : value, after a key on its line or after a `?` key
        if (this.flow === 0) {
          const simple = this.keyLine === this.line;
          this.roll(simple ? this.keyColumn : this.col);
          this.keyAllowed = !simple;
        } else {
          this.keyAllowed = false;
        }
        this.keyLine = -1;
        this.i++;
      } else if (c === 0x2a || c === 0x26 || c === 0x21) {
        // * & ! : alias, anchor, tag
        this.saveKey();
        this.keyAllowed = false;
        while (!this.isBlankz(this.c) && !(this.flow > 0 && isFlowIndicator(this.c))) this.i++;
      } else if ((c === 0x7c || c === 0x3e) && this.flow === 0) {
        // | >
        this.keyAllowed = true;
        this.keyLine = -1;
        this.blockScalar();
      } else if (c === 0x27 || c === 0x22) {
        this.saveKey();
        this.keyAllowed = false;
        this.quoted(c);
      } else {
        this.saveKey();
        this.keyAllowed = false;
        this.plain();
      }
    }
  }

  /** Blanks, comments and line breaks up to the next token, as go-yaml skips them. */
  private toNextToken(): void {
    for (;;) {
      while (this.c === SP || ((this.flow > 0 || !this.keyAllowed) && this.c === TAB)) this.i++;
      if (this.c === 0x23) while (this.i < this.t.length && !this.isBreak(this.c)) this.i++;
      if (!this.isBreak(this.c)) return;
      this.breakLine();
      if (this.flow === 0) this.keyAllowed = true;
    }
  }

  private quoted(q: number): void {
    this.i++;
    while (this.i < this.t.length) {
      const c = this.c;
      if (q === 0x27 && c === 0x27 && this.at(1) === 0x27) this.i += 2;
      else if (c === q) {
        this.i++;
        return;
      } else if (q === 0x22 && c === 0x5c) {
        this.i++;
        if (this.isBreak(this.c)) this.breakLine();
        else this.i++;
      } else if (this.isBreak(c)) this.breakLine();
      else this.i++;
    }
  }

  private plain(): void {
    const indent = this.indent + 1;
    let leading = false;
    for (;;) {
      if (this.col === 0 && isDocumentMarker(this.t, this.i) && this.isBlankz(this.at(3))) break;
      if (this.c === 0x23) break;
      while (!this.isBlankz(this.c)) {
        const c = this.c;
        if (c === 0x3a && this.isBlankz(this.at(1))) break;
        if (this.flow > 0 && (isFlowIndicator(c) || c === 0x3f)) break;
        leading = false;
        this.i++;
      }
      if (!(this.isBlank(this.c) || this.isBreak(this.c))) break;
      while (this.isBlank(this.c) || this.isBreak(this.c)) {
        if (this.isBlank(this.c)) {
          if (leading && this.col < indent && this.c === TAB) {
            this.fail('found a tab character that violates indentation');
          }
          this.i++;
        } else {
          this.breakLine();
          leading = true;
        }
      }
      if (this.flow === 0 && this.col < indent) break;
    }
    if (leading) this.keyAllowed = true;
  }

  private blockScalar(): void {
    this.i++;
    let increment = 0;
    for (let k = 0; k < 2; k++) {
      const c = this.c;
      if (c === 0x2b || c === 0x2d) this.i++;
      else if (c >= 0x31 && c <= 0x39) {
        increment = c - 0x30;
        this.i++;
      }
    }
    while (this.isBlank(this.c)) this.i++;
    if (this.c === 0x23) while (this.i < this.t.length && !this.isBreak(this.c)) this.i++;
    if (this.isBreak(this.c)) this.breakLine();
    let indent = increment === 0 ? 0 : this.indent >= 0 ? this.indent + increment : increment;
    indent = this.blockBreaks(indent);
    while (this.col === indent && this.i < this.t.length) {
      while (this.i < this.t.length && !this.isBreak(this.c)) this.i++;
      if (this.i >= this.t.length) return;
      this.breakLine();
      indent = this.blockBreaks(indent);
    }
  }

  /** The empty lines and indentation before a block scalar's next line; its indentation once known. */
  private blockBreaks(known: number): number {
    let max = 0;
    for (;;) {
      while ((known === 0 || this.col < known) && this.c === SP) this.i++;
      if (this.col > max) max = this.col;
      if ((known === 0 || this.col < known) && this.c === TAB) {
        this.fail('found a tab character where an indentation space is expected');
      }
      if (!this.isBreak(this.c)) break;
      this.breakLine();
    }
    if (known !== 0) return known;
    return Math.max(max, this.indent + 1, 1);
  }
}

function isFlowIndicator(c: number): boolean {
  return c === 0x2c || c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d;
}

function isDocumentMarker(t: string, i: number): boolean {
  return t.startsWith('---', i) || t.startsWith('...', i);
}
