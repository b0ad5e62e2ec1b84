/**
 * The order go-yaml v2 writes mapping keys in (`keyList.Less` in its `sorter.go`): rune by rune;
 * letters by code point; a non-letter before a letter; runs of digits compared by value (so `a9`
 * before `a10`), a run with a non-zero digit before it counting leading zeros; a prefix first.
 */

const LETTER = /^\p{L}$/u;
const DIGIT = /^\p{Nd}$/u;

function isLetter(c: number): boolean {
  if (c < 0x80) return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
  return LETTER.test(String.fromCodePoint(c));
}

function isDigit(c: number): boolean {
  if (c < 0x80) return c >= 0x30 && c <= 0x39;
  return DIGIT.test(String.fromCodePoint(c));
}

function codePoints(s: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        out.push(((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000);
        i++;
        continue;
      }
    }
    // A lone surrogate reaches go-yaml as U+FFFD (the JSON step replaced it).
    out.push(c >= 0xd800 && c <= 0xdfff ? 0xfffd : c);
  }
  return out;
}

const ASCII_ONLY = /^[\p{ASCII}]*$/u;

// Keys repeat a great deal (every property has `type` and `value`): keep their runes.
const runeCache = new Map<string, ArrayLike<number>>();
const RUNE_CACHE_MAX = 20_000;

function toRunes(s: string): ArrayLike<number> {
  let r = runeCache.get(s);
  if (r === undefined) {
    r = computeRunes(s);
    if (runeCache.size >= RUNE_CACHE_MAX) runeCache.clear();
    runeCache.set(s, r);
  }
  return r;
}

function computeRunes(s: string): ArrayLike<number> {
  if (ASCII_ONLY.test(s)) {
    const out = new Array<number>(s.length);
    for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
    return out;
  }
  return codePoints(s);
}

/** Value of the digit run starting at i, as Go's int64 arithmetic computes it (wrapping). */
function digitRun(r: ArrayLike<number>, i: number, start: number): { value: bigint | number; end: number } {
  let j = i;
  while (j < r.length && isDigit(r[j] as number)) j++;
  if (j - i <= 14) {
    let v = start;
    for (let k = i; k < j; k++) v = v * 10 + ((r[k] as number) - 0x30);
    // Non-ASCII digits have large "values" (code point minus '0'); fall back to exact arithmetic.
    if (Number.isSafeInteger(v)) return { value: v, end: j };
  }
  let b = BigInt(start);
  for (let k = i; k < j; k++) b = BigInt.asIntN(64, b * 10n + BigInt((r[k] as number) - 0x30));
  return { value: b, end: j };
}

function less(ar: ArrayLike<number>, br: ArrayLike<number>): boolean {
  const n = Math.min(ar.length, br.length);
  for (let i = 0; i < n; i++) {
    const a = ar[i] as number;
    const b = br[i] as number;
    if (a === b) continue;
    const al = isLetter(a);
    const bl = isLetter(b);
    if (al && bl) return a < b;
    if (al || bl) return bl;
    let start = 0;
    if (a === 0x30 || b === 0x30) {
      for (let j = i - 1; j >= 0 && isDigit(ar[j] as number); j--) {
        if (ar[j] !== 0x30) {
          start = 1;
          break;
        }
      }
    }
    const x = digitRun(ar, i, start);
    const y = digitRun(br, i, start);
    if (x.value !== y.value) {
      if (typeof x.value === typeof y.value) return x.value < y.value;
      return BigInt(x.value) < BigInt(y.value);
    }
    if (x.end !== y.end) return x.end < y.end;
    return a < b;
  }
  return ar.length < br.length;
}

/**
 * Comparator for go-yaml v2's key order (for string keys). Go sorts with an unstable sort; for the
 * key sets where this comparison is not a consistent order (some sets mixing digit runs, such as
 * `99/`, `9É1` and `36`) Go's own output varies between runs, so any deterministic result is as
 * good as another there.
 */
export function compareYamlKeys(a: string, b: string): number {
  if (a === b) return 0;
  const ar = toRunes(a);
  const br = toRunes(b);
  if (less(ar, br)) return -1;
  if (less(br, ar)) return 1;
  return 0;
}
