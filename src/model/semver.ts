/**
 * The semantic-version dialect opm uses everywhere (github.com/blang/semver v4), written from its
 * documented behaviour. It differs from npm `semver` in ways catalogs depend on:
 * - parsing is strict (no `v` prefix, no leading zeroes, no missing parts) with opm's exact messages;
 * - ranges do NOT exclude pre-releases (`<0.2.0` matches `0.2.0-alpha`; npm needs
 *   `includePrerelease`), and wildcard/comparator parsing follows blang's tokeniser, quirks included;
 * - there are no `~` / `^` / hyphen ranges.
 */
import { goQuote } from '../go/fmt.js';

const UINT64_MAX = 18446744073709551615n;
const NUMBERS = /^[0-9]*$/;
const ALPHANUM = /^[0-9A-Za-z-]*$/;

/** A pre-release identifier: numeric (compared as a number) or alphanumeric (compared bytewise). */
export type PreReleaseId = { num: bigint } | { str: string };

export interface SemVer {
  major: bigint;
  minor: bigint;
  patch: bigint;
  pre: PreReleaseId[];
  build: string[];
}

/** A semver error; `message` is blang's text exactly (opm embeds it in its own messages). */
export class SemverError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SemverError';
  }
}

function hasLeadingZeroes(s: string): boolean {
  return s.length > 1 && s[0] === '0';
}

/** Go strconv.ParseUint(s, 10, 64) on a string already known to hold only ASCII digits. */
function parseUint64(s: string): bigint {
  if (s === '') throw new SemverError(`strconv.ParseUint: parsing ${goQuote(s)}: invalid syntax`);
  const n = BigInt(s);
  if (n > UINT64_MAX) throw new SemverError(`strconv.ParseUint: parsing ${goQuote(s)}: value out of range`);
  return n;
}

function parseNumberPart(s: string, what: 'major' | 'minor' | 'patch'): bigint {
  if (!NUMBERS.test(s)) throw new SemverError(`Invalid character(s) found in ${what} number ${goQuote(s)}`);
  if (hasLeadingZeroes(s)) {
    const label = what[0]?.toUpperCase() + what.slice(1);
    throw new SemverError(`${label} number must not contain leading zeroes ${goQuote(s)}`);
  }
  return parseUint64(s);
}

/** One pre-release identifier, as blang's NewPRVersion. */
export function parsePreReleaseId(s: string): PreReleaseId {
  if (s === '') throw new SemverError('Prerelease is empty');
  if (NUMBERS.test(s)) {
    if (hasLeadingZeroes(s)) {
      throw new SemverError(`Numeric PreRelease version must not contain leading zeroes ${goQuote(s)}`);
    }
    return { num: parseUint64(s) };
  }
  if (ALPHANUM.test(s)) return { str: s };
  throw new SemverError(`Invalid character(s) found in prerelease ${goQuote(s)}`);
}

/** Strict parse of `MAJOR.MINOR.PATCH[-pre][+build]`. Throws SemverError with blang's message. */
export function parseSemver(s: string): SemVer {
  if (typeof s !== 'string') throw new TypeError('parseSemver(s) must be a string');
  if (s.length === 0) throw new SemverError('Version string empty');
  const first = s.indexOf('.');
  const second = first === -1 ? -1 : s.indexOf('.', first + 1);
  if (second === -1) throw new SemverError('No Major.Minor.Patch elements found');
  const major = parseNumberPart(s.slice(0, first), 'major');
  const minor = parseNumberPart(s.slice(first + 1, second), 'minor');
  let patchStr = s.slice(second + 1);
  // Build metadata is cut first, so a '-' inside it does not start a pre-release.
  let build: string[] = [];
  let prerelease: string[] = [];
  const plus = patchStr.indexOf('+');
  if (plus !== -1) {
    build = patchStr.slice(plus + 1).split('.');
    patchStr = patchStr.slice(0, plus);
  }
  const dash = patchStr.indexOf('-');
  if (dash !== -1) {
    prerelease = patchStr.slice(dash + 1).split('.');
    patchStr = patchStr.slice(0, dash);
  }
  const patch = parseNumberPart(patchStr, 'patch');
  const pre = prerelease.map(parsePreReleaseId);
  for (const b of build) {
    if (b === '') throw new SemverError('Build meta data is empty');
    if (!ALPHANUM.test(b))
      throw new SemverError(`Invalid character(s) found in build meta data ${goQuote(b)}`);
  }
  return { major, minor, patch, pre, build };
}

export function comparePreReleaseId(a: PreReleaseId, b: PreReleaseId): number {
  if ('num' in a) {
    if ('num' in b) return a.num === b.num ? 0 : a.num < b.num ? -1 : 1;
    return -1; // numeric identifiers sort before alphanumeric ones
  }
  if ('num' in b) return 1;
  // Bytewise: identifiers are ASCII, so UTF-16 order equals byte order.
  return a.str === b.str ? 0 : a.str < b.str ? -1 : 1;
}

function cmpBig(a: bigint, b: bigint): number {
  return a === b ? 0 : a < b ? -1 : 1;
}

/** Compare by precedence; build metadata is ignored. Returns -1, 0 or 1. */
export function compareSemver(a: SemVer, b: SemVer): number {
  const c = cmpBig(a.major, b.major) || cmpBig(a.minor, b.minor) || cmpBig(a.patch, b.patch);
  if (c !== 0) return c;
  if (a.pre.length === 0 && b.pre.length === 0) return 0;
  if (a.pre.length === 0) return 1;
  if (b.pre.length === 0) return -1;
  const n = Math.min(a.pre.length, b.pre.length);
  for (let i = 0; i < n; i++) {
    const pa = a.pre[i];
    const pb = b.pre[i];
    if (pa === undefined || pb === undefined) break;
    const r = comparePreReleaseId(pa, pb);
    if (r !== 0) return r;
  }
  return a.pre.length === b.pre.length ? 0 : a.pre.length < b.pre.length ? -1 : 1;
}

function formatPreReleaseId(p: PreReleaseId): string {
  return 'num' in p ? p.num.toString() : p.str;
}

/** Canonical text: `M.m.p[-pre][+build]`. */
export function formatSemver(v: SemVer): string {
  let s = `${v.major}.${v.minor}.${v.patch}`;
  if (v.pre.length > 0) s += '-' + v.pre.map(formatPreReleaseId).join('.');
  if (v.build.length > 0) s += '+' + v.build.join('.');
  return s;
}

// ---------------------------------------------------------------------------------------------
// Ranges

/** A parsed range: a predicate over versions. */
export type SemverRange = (v: SemVer) => boolean;

/** A comparison operator of a range, in one spelling per meaning. */
export type RangeOp = '=' | '!=' | '>' | '>=' | '<' | '<=';

/** One comparison of a range: a version compared with `version` by `op`. */
export interface RangeComparison {
  op: RangeOp;
  version: SemVer;
}

/**
 * A parsed range as its parts: alternatives (`||`), each a list of comparisons that must all hold.
 * Searches over many versions use the bounds; `rangeSetMatches` is the predicate.
 */
export type RangeSet = readonly (readonly RangeComparison[])[];

function rangeOpFor(op: string): RangeOp | undefined {
  switch (op) {
    case '':
    case '=':
    case '==':
      return '=';
    case '!':
    case '!=':
      return '!=';
    case '>':
    case '>=':
    case '<':
    case '<=':
      return op;
    default:
      return undefined;
  }
}

/** Whether `v` satisfies one comparison. */
export function comparisonHolds(v: SemVer, c: RangeComparison): boolean {
  const r = compareSemver(v, c.version);
  switch (c.op) {
    case '=':
      return r === 0;
    case '!=':
      return r !== 0;
    case '>':
      return r > 0;
    case '>=':
      return r >= 0;
    case '<':
      return r < 0;
    case '<=':
      return r <= 0;
  }
}

/** Whether `v` is in the range: some alternative whose comparisons all hold. */
export function rangeSetMatches(set: RangeSet, v: SemVer): boolean {
  return set.some((alt) => alt.every((c) => comparisonHolds(v, c)));
}

/**
 * Split on spaces, except a space that follows `>`, `<` or `=` (so `>= 1.0.0` stays one token);
 * then remove the spaces inside each token. Tokens of a single character are dropped, as blang's
 * tokeniser does.
 */
function splitAndTrim(s: string): string[] {
  const result: string[] = [];
  let last = 0;
  let lastChar = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch === ' ' && lastChar !== '>' && lastChar !== '<' && lastChar !== '=') {
      if (last < i - 1) result.push(s.slice(last, i));
      last = i + 1;
    } else if (ch !== ' ') {
      lastChar = ch ?? '';
    }
  }
  if (last < s.length - 1) result.push(s.slice(last));
  return result.map((p) => p.replaceAll(' ', ''));
}

function splitOrParts(parts: string[]): string[][] {
  const out: string[][] = [];
  let last = 0;
  for (let i = 0; i < parts.length; i++) {
    if (parts[i] === '||') {
      if (i === 0) throw new SemverError("First element in range is '||'");
      out.push(parts.slice(last, i));
      last = i + 1;
    }
  }
  if (last === parts.length) throw new SemverError("Last element in range is '||'");
  out.push(parts.slice(last));
  return out;
}

/** Operator = everything before the first decimal digit (trimmed); version = the rest. */
function splitComparatorVersion(s: string): [string, string] {
  const m = /\p{Nd}/u.exec(s);
  if (m === null) throw new SemverError(`Could not get version from string: ${goQuote(s)}`);
  return [s.slice(0, m.index).trim(), s.slice(m.index)];
}

/** Go strconv.Atoi, returning undefined on failure. */
function atoi(s: string): number | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : undefined;
}

function incrementPart(v: string, index: 0 | 1): string {
  const parts = v.split('.');
  const n = atoi(parts[index] ?? '');
  // blang ignores the failure and continues with an empty version, which then fails to parse.
  if (n === undefined) return '';
  parts[index] = String(n + 1);
  return parts.join('.');
}

/**
 * Expand `x` wildcards the way blang does: a token containing an `x` anywhere is rewritten, and
 * only a final `.x` component (in a 2- or 3-part version) counts as a wildcard.
 */
function expandWildcards(parts: string[][]): string[][] {
  return parts.map((p) => {
    const out: string[] = [];
    for (let ap of p) {
      if (ap.includes('x')) {
        const [op, vStr] = splitComparatorVersion(ap);
        const comps = vStr.split('.');
        const kind = comps[comps.length - 1] === 'x' ? comps.length : 0; // 2 = minor, 3 = patch
        let flat = vStr.replace('.x.x', '.x').replace('.x', '.0');
        if (flat.split('.').length === 2) flat += '.0';
        let resultOp = '';
        let increment = false;
        switch (op) {
          case '>':
            resultOp = '>=';
            increment = true;
            break;
          case '>=':
            resultOp = '>=';
            break;
          case '<':
            resultOp = '<';
            break;
          case '<=':
            resultOp = '<';
            increment = true;
            break;
          case '':
          case '=':
          case '==':
            out.push('>=' + flat);
            resultOp = '<';
            increment = true;
            break;
          case '!=':
          case '!':
            out.push('<' + flat);
            resultOp = '>=';
            increment = true;
            break;
        }
        let resultVersion = '';
        if (increment) {
          if (kind === 3) resultVersion = incrementPart(flat, 1);
          else if (kind === 2) resultVersion = incrementPart(flat, 0);
        } else {
          resultVersion = flat;
        }
        ap = resultOp + resultVersion;
      }
      out.push(ap);
    }
    return out;
  });
}

/**
 * Parse a range such as `>=1.0.0 <2.0.0 || 3.x`. Throws SemverError with blang's message.
 * Pre-release versions are compared like any other version (not excluded).
 */
export function parseRange(s: string): SemverRange {
  if (typeof s !== 'string') throw new TypeError('parseRange(s) must be a string');
  const set = parseRangeSet(s);
  return (v) => rangeSetMatches(set, v);
}

/** Parse a range into its alternatives and comparisons; throws as `parseRange` does. */
export function parseRangeSet(s: string): RangeSet {
  const expanded = expandWildcards(splitOrParts(splitAndTrim(s)));
  return expanded.map((andParts) =>
    andParts.map((ap): RangeComparison => {
      const [op, vStr] = splitComparatorVersion(ap);
      const whole = op + vStr;
      const rangeOp = rangeOpFor(op);
      if (rangeOp === undefined) {
        throw new SemverError(
          `Could not parse Range ${goQuote(ap)}: Could not parse comparator ${goQuote(op)} in ${goQuote(whole)}`,
        );
      }
      try {
        return { op: rangeOp, version: parseSemver(vStr) };
      } catch (e) {
        if (!(e instanceof SemverError)) throw e;
        throw new SemverError(
          `Could not parse Range ${goQuote(ap)}: Could not parse version ${goQuote(vStr)} in ${goQuote(whole)}: ${e.message}`,
        );
      }
    }),
  );
}

/** Parse a range and return blang's error text, or undefined when it parses. */
export function rangeError(s: string): string | undefined {
  try {
    parseRange(s);
    return undefined;
  } catch (e) {
    if (e instanceof SemverError) return e.message;
    throw e;
  }
}
