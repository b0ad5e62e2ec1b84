/**
 * The next JSON value of a stream's text, found fast: objects are cut where opm's writer (or any
 * writer of one object per line) ends them and confirmed by JSON.parse; the exact scanner decides
 * only when those cuts fail. Searches that run on to the end of the text keep their result for the
 * values that follow (KeptSearch).
 */
import { scanJsonValue } from '../go/json-scan.js';
import type { JsonValue } from '../go/json-value.js';
import { MAX_DEPTH } from './json-blob-checks.js';

const WS = /[ \t\r\n]*/y;
// Cuts tried per value before falling back to the exact scanner (strings containing `} {`).
const QUICK_TRIES = 3;

/**
 * The next `}` at or after `from` that may close a top-level object: followed by optional white
 * space and then `{` or the end of the text; -1 when there is none. indexOf finds each `}` at
 * native speed, however long the strings between them.
 */
function candidateEnd(text: string, from: number): number {
  return closeAfter(text, text.indexOf('}', from));
}

/** The `}` at `i`, or the next one, that may close a top-level object (see candidateEnd). */
function closeAfter(text: string, i: number): number {
  for (; i !== -1; i = text.indexOf('}', i + 1)) {
    let j = i + 1;
    for (
      let c = text.charCodeAt(j);
      c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
      c = text.charCodeAt(j)
    )
      j++;
    if (j >= text.length || text.charCodeAt(j) === 0x7b) return i;
  }
  return -1;
}

/**
 * The last result of a forward search in a stream's text (lineStartEnd's, escapesSurrogate's): its
 * text, where it started and what it found (-1: nothing to the end).
 */
export interface KeptSearch {
  text: string;
  from: number;
  found: number;
}

/**
 * `search(text, from)`, or the result kept in `last` when it still holds for `from` (found at or after
 * it, or nothing found from an earlier start): a stream's values are searched one after another, and
 * a far result serves every value before it.
 */
function keptSearch(
  text: string,
  from: number,
  last: KeptSearch,
  search: (text: string, from: number) => number,
): number {
  if (last.text === text && last.from <= from && (last.found === -1 || last.found >= from)) return last.found;
  last.text = text;
  last.from = from;
  last.found = search(text, from);
  return last.found;
}

/**
 * The first `}` at or after `from` followed by a line break and `{`, else the text's last `}` when
 * only white space follows it; -1 when neither. That is how opm's writer (and JSON.stringify with an
 * indent) ends a top-level object: the closing braces of the objects inside it are followed by a
 * comma or another line's indent, and a raw line break is never inside a string, so a blob of many
 * objects is cut at the first try, found by one native search. A found brace is kept for the calls
 * that follow on the same text (keptSearch), so that a file of short blobs on one line each, with
 * such a brace far on, is searched once and not once per blob.
 */
function lineStartEnd(text: string, from: number): number {
  const found = text.indexOf('}\n{', from);
  if (found !== -1) return found;
  const end = text.lastIndexOf('}');
  return end >= from && closeAfter(text, end) === end ? end : -1;
}

/**
 * Where the next `\u` escape of a UTF-16 surrogate (D800–DFFF) at or after `from` starts, or -1.
 * Escapes are found by indexOf, at native speed. An escaped backslash before `ud800` is taken for
 * one too, which only costs a walk of the value.
 */
function nextSurrogateEscape(text: string, from: number): number {
  for (let i = text.indexOf('\\u', from); i !== -1; i = text.indexOf('\\u', i + 2)) {
    // Lower-cased: hex digits are letters or digits.
    const d = text.charCodeAt(i + 3) | 0x20;
    if ((text.charCodeAt(i + 2) | 0x20) === 0x64 && (d === 0x38 || d === 0x39 || (d >= 0x61 && d <= 0x66)))
      return i;
  }
  return -1;
}

/**
 * Whether the text from `from` to `to` holds an escaped surrogate. The search runs on to the end of
 * the text and its result is kept in `last` for the values that follow, so a file without one is
 * searched once.
 */
export function escapesSurrogate(text: string, from: number, to: number, last: KeptSearch): boolean {
  const found = keptSearch(text, from, last, nextSurrogateEscape);
  return found !== -1 && found < to;
}

export function skipWs(text: string, pos: number): number {
  WS.lastIndex = pos;
  WS.test(text);
  return WS.lastIndex;
}

type NextValue =
  { ok: true; value: JsonValue | undefined; end: number } | { ok: false; at: number; message: string };

function tryParse(text: string): { ok: true; value: JsonValue } | { ok: false } {
  try {
    const value: JsonValue = JSON.parse(text);
    return { ok: true, value };
  } catch (err) {
    if (err instanceof SyntaxError) return { ok: false };
    throw err;
  }
}

/**
 * The JSON value at `pos`. Objects are first cut at a likely end (`}` before `{` or the end of the
 * text) and confirmed by JSON.parse, which is fast on large payloads; the exact scanner decides only
 * when those cuts fail.
 */
export function nextJsonValue(text: string, pos: number, ends: KeptSearch): NextValue {
  if (text.charCodeAt(pos) === 0x7b) {
    const lineEnd = keptSearch(text, pos, ends, lineStartEnd);
    if (lineEnd !== -1) {
      const r = tryParse(text.slice(pos, lineEnd + 1));
      if (r.ok) return { ok: true, value: r.value, end: lineEnd + 1 };
    }
    let from = pos;
    for (let tries = 0; tries < QUICK_TRIES; tries++) {
      const close = candidateEnd(text, from);
      if (close === -1) break;
      const end = close + 1;
      const r = tryParse(text.slice(pos, end));
      if (r.ok) return { ok: true, value: r.value, end };
      from = end;
    }
  }
  const scan = scanJsonValue(text, pos, MAX_DEPTH);
  if (!scan.ok) return scan;
  const r = tryParse(text.slice(pos, scan.end));
  // The scanner accepted the value, so JSON.parse cannot fail; report rather than assume.
  if (!r.ok) return { ok: false, at: pos, message: 'invalid JSON value' };
  return { ok: true, value: r.value, end: scan.end };
}
