/**
 * Which style go-yaml v2 (the version opm links) writes a string scalar in: plain, single-quoted,
 * double-quoted or literal block (go-yaml v2 `encode.go` and `emitterc.go`). Two steps: the
 * encoder's request (literal for text with `\n`, double-quoted for text that would read back as
 * another type, else plain), then the emitter's overrides from what the text contains.
 */

import { resolveYaml11Scalar } from './yaml11.js';

export type ScalarStyle = 'plain' | 'single' | 'double' | 'literal';

// ---------------------------------------------------------------------------------------------
// Step 1: would the text, written plain, read back as something other than a string?

// Base-60 numbers (`1:20`) and timestamps read back as strings, but go-yaml quotes them all the same.
const BASE60 = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

// --- timestamps: Go time.Parse with go-yaml v2's four layouts

function isDigitAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return c >= 0x30 && c <= 0x39;
}

/** Go's getnum: one or two digits. Returns [value, next index] or undefined. */
function getnum(s: string, i: number): [number, number] | undefined {
  if (!isDigitAt(s, i)) return undefined;
  if (!isDigitAt(s, i + 1)) return [s.charCodeAt(i) - 0x30, i + 1];
  return [(s.charCodeAt(i) - 0x30) * 10 + (s.charCodeAt(i + 1) - 0x30), i + 2];
}

function daysIn(month: number, year: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** `15:4:5.999999999`: hour, minute, second, optional fraction. Returns the index after it. */
function parseClock(s: string, i: number): number | undefined {
  const h = getnum(s, i);
  if (h === undefined || h[0] >= 24 || s[h[1]] !== ':') return undefined;
  const m = getnum(s, h[1] + 1);
  if (m === undefined || m[0] >= 60 || s[m[1]] !== ':') return undefined;
  const sec = getnum(s, m[1] + 1);
  if (sec === undefined || sec[0] >= 60) return undefined;
  let j = sec[1];
  if ((s[j] === '.' || s[j] === ',') && isDigitAt(s, j + 1)) {
    j += 2;
    while (isDigitAt(s, j)) j++;
  }
  return j;
}

/** `Z07:00`: `Z`, or a sign, two-digit hours (≤ 24), `:`, two-digit minutes (≤ 60). */
function parseZone(s: string, i: number): number | undefined {
  if (s[i] === 'Z') return i + 1;
  if (s.length - i < 6 || s[i + 3] !== ':') return undefined;
  if (s[i] !== '+' && s[i] !== '-') return undefined;
  if (!isDigitAt(s, i + 1) || !isDigitAt(s, i + 2) || !isDigitAt(s, i + 4) || !isDigitAt(s, i + 5)) {
    return undefined;
  }
  const hh = Number(s.slice(i + 1, i + 3));
  const mm = Number(s.slice(i + 4, i + 6));
  if (hh > 24 || mm > 60) return undefined;
  return i + 6;
}

function isGoYamlTimestamp(s: string): boolean {
  // go-yaml's quick check: exactly four leading digits, then `-`.
  if (s.length < 5 || s[4] !== '-') return false;
  for (let i = 0; i < 4; i++) if (!isDigitAt(s, i)) return false;
  const year = Number(s.slice(0, 4));
  const mo = getnum(s, 5);
  if (mo === undefined || mo[0] < 1 || mo[0] > 12 || s[mo[1]] !== '-') return false;
  const d = getnum(s, mo[1] + 1);
  if (d === undefined) return false;
  const dateOk = d[0] >= 1 && d[0] <= daysIn(mo[0], year);
  let i = d[1];
  if (i === s.length) return dateOk; // 2006-1-2
  if (!dateOk) return false;
  const sep = s[i];
  if (sep === 'T' || sep === 't') {
    const j = parseClock(s, i + 1);
    if (j === undefined) return false;
    const k = parseZone(s, j);
    return k === s.length;
  }
  if (sep === ' ') {
    // A space in a Go layout matches any run of spaces.
    while (s[i] === ' ') i++;
    const j = parseClock(s, i);
    return j === s.length;
  }
  return false;
}

/**
 * True when `s`, written as a plain scalar, would not read back as a string in YAML 1.1 as go-yaml
 * v2 resolves it, or is a base-60 number; such strings are requested double-quoted.
 */
export function plainReadsAsNonString(s: string): boolean {
  // The reader's own resolution: booleans, null, Go integers and floats.
  if (resolveYaml11Scalar(s).ok) return true;
  const c = s.charCodeAt(0);
  const isDigit = c >= 0x30 && c <= 0x39;
  if ((isDigit || c === 0x2b || c === 0x2d) && s.includes(':') && BASE60.test(s)) return true;
  return isDigit && isGoYamlTimestamp(s);
}

// ---------------------------------------------------------------------------------------------
// Step 2: what the emitter allows for the text

export interface ScalarAnalysis {
  lineBreaks: boolean;
  plainAllowed: boolean;
  singleAllowed: boolean;
  literalAllowed: boolean;
}

function isBreakCode(c: number): boolean {
  return c === 0x0a || c === 0x0d || c === 0x85 || c === 0x2028 || c === 0x2029;
}

// Not printable in go-yaml's sense: printable is LF, U+0020–U+007E, U+00A0–U+D7FF and
// U+E000–U+FFFD but U+FEFF. Every surrogate stands for a character above U+FFFF: not printable.
const SPECIAL = /[^\n\x20-\x7e\xa0-\ud7ff\ue000-\ufefe\uff00-\ufffd]/;
const LINE_BREAK = /[\n\r\u0085\u2028\u2029]/;
const SPACE_BREAK = / [\n\r\u0085\u2028\u2029]/;
const BREAK_SPACE = /[\n\r\u0085\u2028\u2029] /;
// `:` followed by a blank or the end, anywhere; `#` after a blank, a break or NUL.
const COLON_INDICATOR = /:(?:[ \t]|$)/;
// eslint-disable-next-line no-control-regex -- NUL counts as whitespace before `#` in go-yaml
const HASH_INDICATOR = /[ \t\n\r\u0085\u2028\u2029\u0000]#/;

/** Plain text whose first character starts an indicator (block context). */
const FIRST_INDICATOR = new Set('#,[]{}&*!|>\'"%@`');

function hasBlockIndicators(s: string): boolean {
  if (s.startsWith('---') || s.startsWith('...')) return true;
  const first = s[0] as string;
  if (FIRST_INDICATOR.has(first)) return true;
  if (first === '?' || first === '-') {
    const next = s.charCodeAt(1);
    if (s.length === 1 || next === 0x20 || next === 0x09) return true;
  }
  return COLON_INDICATOR.test(s) || HASH_INDICATOR.test(s);
}

/** What go-yaml's emitter allows for a (non-empty) text in block context. */
function analyzeScalar(s: string): ScalarAnalysis {
  const n = s.length;
  if (n === 0) return { lineBreaks: false, plainAllowed: true, singleAllowed: true, literalAllowed: false };
  const special = SPECIAL.test(s);
  const lineBreaks = LINE_BREAK.test(s);
  const spaceBreak = lineBreaks && SPACE_BREAK.test(s);
  const breakSpace = lineBreaks && BREAK_SPACE.test(s);
  const first = s.charCodeAt(0);
  const last = s.charCodeAt(n - 1);
  const edges = first === 0x20 || last === 0x20 || isBreakCode(first) || isBreakCode(last);
  const hard = spaceBreak || special;
  return {
    lineBreaks,
    plainAllowed: !edges && !hard && !lineBreaks && !hasBlockIndicators(s),
    singleAllowed: !breakSpace && !hard,
    literalAllowed: last !== 0x20 && !hard,
  };
}

/**
 * The style go-yaml v2 writes the string `s` in, in block context. `simpleKey` is true for a
 * mapping key written as `key: value` (never a literal block; the caller has checked that the key
 * fits on one line).
 */
export function scalarStyle(s: string, simpleKey: boolean): ScalarStyle {
  let style: ScalarStyle;
  if (s.includes('\n')) style = 'literal';
  else if (plainReadsAsNonString(s)) return 'double';
  else style = 'plain';
  const a = analyzeScalar(s);
  if (simpleKey && a.lineBreaks) return 'double';
  if (style === 'plain') {
    if (a.plainAllowed) return 'plain';
    return a.singleAllowed ? 'single' : 'double';
  }
  return a.literalAllowed && !simpleKey ? 'literal' : 'double';
}

/** True when a key can be written as `key: value` (one line, at most 128 bytes of UTF-8). */
export function isSimpleKey(s: string): boolean {
  if (/[\n\r\u0085\u2028\u2029]/.test(s)) return false;
  if (s.length <= 42) return true;
  return Buffer.byteLength(s, 'utf8') <= 128;
}
