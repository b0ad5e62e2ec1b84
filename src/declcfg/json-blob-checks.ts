/**
 * The checks of a JSON blob that JSON.parse lets through (opm's decoder refuses or reports what it
 * reads otherwise): a number too large for a float64, nesting deeper than MAX_DEPTH, and duplicate
 * keys.
 */
import { MAX_YAML_DEPTH } from '../yaml/yaml11.js';
import { countKeysInText, scanJsonValue } from '../go/json-scan.js';
import { isJsonObject, type JsonValue } from '../go/json-value.js';

/** Deepest nesting accepted in a blob (JSON or YAML), so later recursive code cannot overflow. */
export const MAX_DEPTH = MAX_YAML_DEPTH;

/** `nonFinite` is set by {@link countKeys} when the value it walked holds a number that is not finite. */
const walked = { nonFinite: false };

/**
 * Number of object keys in a parsed value, or -1 when it nests deeper than `budget` (the walk stops
 * there, so it cannot overflow the stack). A number that is not finite sets `walked.nonFinite`, so that
 * one walk serves both checks of a parsed value (checkParsed).
 */
function countKeys(v: JsonValue, budget: number): number {
  if (typeof v !== 'object' || v === null) {
    if (typeof v === 'number' && !Number.isFinite(v)) walked.nonFinite = true;
    return 0;
  }
  if (budget <= 0) return -1;
  let n = 0;
  if (Array.isArray(v)) {
    for (const x of v) {
      const c = countKeys(x, budget - 1);
      if (c < 0) return -1;
      n += c;
    }
    return n;
  }
  for (const k in v) {
    n++;
    const x = v[k];
    const c = x === undefined ? 0 : countKeys(x, budget - 1);
    if (c < 0) return -1;
    n += c;
  }
  return n;
}

/** {@link countKeys} of a value from the top, and whether it saw a number that is not finite. */
function walkParsed(v: JsonValue): { keys: number; nonFinite: boolean } {
  walked.nonFinite = false;
  const keys = countKeys(v, MAX_DEPTH);
  return { keys, nonFinite: walked.nonFinite };
}

// A number JSON.parse turns into ±Infinity has an exponent of three digits or 309 digits at least.
const BIG_NUMBER = /-?\d+(?:\.\d+)?[eE]\+?\d{3,}|-?\d{309,}(?:\.\d+)?/g;

/** Whether `v` holds a number that is not finite; with a stack of its own, as `v` may be deep. */
function hasInfinity(v: JsonValue): boolean {
  const todo: JsonValue[] = [v];
  for (let x = todo.pop(); x !== undefined; x = todo.pop()) {
    if (typeof x === 'number') {
      if (!Number.isFinite(x)) return true;
    } else if (Array.isArray(x)) {
      for (const y of x) todo.push(y);
    } else if (isJsonObject(x)) {
      for (const y of Object.values(x)) todo.push(y);
    }
  }
  return false;
}

/**
 * A number too large for a float64, which JSON.parse reads as Infinity: opm's decoder refuses it
 * (and no JSON writer can write it back), so it is an error at load, where its line is known. Called
 * only for a value that holds an Infinity, and the pattern only run on that value's own text (run
 * on the rest of the file from each blob, it took time quadratic in the file's size, and seconds on
 * a catalog of large payloads).
 */
function overflowingNumber(
  text: string,
  from: number,
  to: number,
): { at: number; message: string; duplicate?: string; topLevel?: boolean } | undefined {
  const own = text.slice(from, to);
  BIG_NUMBER.lastIndex = 0;
  let m: RegExpExecArray | null;
  let first: RegExpExecArray | undefined;
  while ((m = BIG_NUMBER.exec(own)) !== null) {
    if (!Number.isFinite(Number(m[0]))) {
      first = m;
      break;
    }
  }
  if (first === undefined) return undefined;
  return {
    at: from + first.index,
    message: `json: cannot unmarshal number ${first[0]} into Go value of type float64 (it exceeds the largest float64)`,
  };
}

/**
 * Problems JSON.parse lets through: a number too large for a float64, nesting deeper than MAX_DEPTH,
 * and duplicate keys (JSON.parse keeps the last), in that order. One walk of the parsed value counts
 * its keys and notes an Infinity. Duplicates are found by comparing the keys written with the keys
 * parsed (the count of the text may be too high, never too low: countKeysInText); only then is the
 * value scanned again, and the scanner says whether a key is there twice and which.
 */
export function checkParsed(
  text: string,
  from: number,
  to: number,
  value: JsonValue,
): { at: number; message: string; duplicate?: string; topLevel?: boolean } | undefined {
  const { keys: parsedKeys, nonFinite } = walkParsed(value);
  // Too deep, the walk stopped early: the whole value is searched for an Infinity as before.
  if (nonFinite || (parsedKeys < 0 && hasInfinity(value))) {
    const overflow = overflowingNumber(text, from, to);
    if (overflow !== undefined) return overflow;
  }
  if (parsedKeys < 0) return { at: from, message: `nesting deeper than ${MAX_DEPTH} levels` };
  if (parsedKeys === countKeysInText(text, from, to)) return undefined;
  const scan = scanJsonValue(text, from, MAX_DEPTH, true);
  if (scan.ok) return undefined;
  return {
    at: scan.at,
    message: scan.message,
    duplicate: scan.duplicate ?? '',
    ...(scan.topLevel === undefined ? {} : { topLevel: scan.topLevel }),
  };
}
