/**
 * A YAML stream split into its documents at `---` lines, as go-yaml splits it, with the line each
 * document starts on; documents of only comments and blank lines are left out.
 */
import { YamlError } from './yaml11.js';

/** One document of a multi-document YAML text: its text and the line its first line has. */
export interface YamlDocumentText {
  text: string;
  /** 1-based line of the document's first content line (after blank and comment lines). */
  line: number;
  /**
   * Its place among the stream's documents, counting those that hold only blank lines and
   * comments (which are not returned) but not empty ones (consecutive separators), as Go's reader
   * counts them: a first document of index 1 means the stream's first document was blank.
   */
  index: number;
}

// A blank or comment line cut before a document's content. A comment or blank line whose
// indentation holds a tab is kept with the content: go-yaml refuses the tab there (go-tabs.ts), so
// the document's reader says so.
const SKIPPED_LINE = / *(?:#[^\n]*)?\r?\n/y;
// A line of white space or a comment, tabs included: a document of nothing else is empty, and empty
// documents are skipped (docs/compatibility.md, row 28).
const EMPTY_LINE = /[ \t]*(?:#[^\n]*)?\r?\n/y;
const EMPTY_LAST_LINE = /^[ \t]*(?:#.*)?\r?$/;

/**
 * Split a YAML stream at lines beginning with `---`, as opm's stream decoder does: only spaces or a
 * comment may follow on a separator line (`invalid Yaml document separator: …`). Documents holding
 * only blank lines and comments are dropped. Throws YamlError. `counted`, when given, receives the
 * number of line feeds in the text (counted past the last separator only: the lines before it are
 * counted on the way).
 */
export function splitYamlDocuments(text: string, counted?: { newlines: number }): YamlDocumentText[] {
  const docs: YamlDocumentText[] = [];
  let start = 0; // start of the current document's text
  let startLine = 1;
  let lineNo = 1;
  let pos = 0;
  let index = 0;
  const flush = (end: number): void => {
    if (end <= start) return;
    const found = firstContent(text, start, end, startLine);
    if (found) docs.push({ text: text.slice(found.pos, end), line: found.line, index });
    index++;
  };
  while (pos <= text.length) {
    // pos is at the start of a line numbered lineNo
    if (text.startsWith('---', pos)) {
      const eol = text.indexOf('\n', pos);
      const lineEnd = eol === -1 ? text.length : eol;
      const rest = text.slice(pos + 3, lineEnd).trim();
      if (rest !== '' && !rest.startsWith('#')) {
        throw new YamlError(`invalid Yaml document separator: ${rest}`, lineNo);
      }
      flush(pos);
      if (eol === -1) {
        if (counted !== undefined) counted.newlines = lineNo - 1;
        return docs;
      }
      start = eol + 1;
      startLine = lineNo + 1;
    }
    const next = text.indexOf('\n---', pos);
    if (next === -1) break;
    lineNo += countNewlines(text, pos, next + 1);
    pos = next + 1;
  }
  flush(text.length);
  if (counted !== undefined) counted.newlines = lineNo - 1 + countNewlines(text, pos, text.length);
  return docs;
}

function countNewlines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * Position and line of the first line in [from, to) that is neither blank nor a comment (one
 * indented with a tab counts as content); undefined when the document holds nothing else.
 */
function firstContent(
  text: string,
  from: number,
  to: number,
  line: number,
): { pos: number; line: number } | undefined {
  let pos = from;
  if (pos === 0 && text.charCodeAt(0) === 0xfeff) pos = 1;
  while (pos < to) {
    SKIPPED_LINE.lastIndex = pos;
    if (!SKIPPED_LINE.test(text) || SKIPPED_LINE.lastIndex > to) break;
    pos = SKIPPED_LINE.lastIndex;
    line++;
  }
  return pos >= to || isEmpty(text, pos, to) ? undefined : { pos, line };
}

/** Whether [from, to) holds only blank and comment lines, tabs included. */
function isEmpty(text: string, from: number, to: number): boolean {
  let pos = from;
  while (pos < to) {
    EMPTY_LINE.lastIndex = pos;
    if (!EMPTY_LINE.test(text) || EMPTY_LINE.lastIndex > to) break;
    pos = EMPTY_LINE.lastIndex;
  }
  if (pos >= to) return true;
  // A last line without a newline may still be blank or a comment.
  const nl = text.indexOf('\n', pos);
  return (nl === -1 || nl >= to) && EMPTY_LAST_LINE.test(text.slice(pos, to));
}
