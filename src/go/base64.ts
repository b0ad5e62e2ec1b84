/**
 * Go's base64.StdEncoding as a checker: where Go's decoder stops on a string, for its error
 * `illegal base64 data at input byte N` (a byte offset). Line breaks are skipped, padding is
 * required, and the URL-safe alphabet is refused.
 */

/** Largest scratch buffer kept between checks; longer strings are decoded into a fresh buffer. */
const SCRATCH_MAX = 16 * 1024 * 1024;
let scratch = Buffer.alloc(0);

/**
 * Whether `s` is padded standard base64 without line breaks: the common case, checked at native
 * speed (bundle objects are most of a catalog's bytes). Node's decoder skips characters outside the
 * alphabet, so a string it decodes to fewer bytes than its length implies holds one; it also takes
 * the URL-safe `-` and `_`, which standard base64 refuses. The bytes are decoded into a reused
 * buffer: a fresh one per payload costs as much again in allocation and collection.
 */
function isCleanBase64(s: string): boolean {
  if (s.length % 4 !== 0) return false;
  const pad = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0;
  const full = (s.length / 4) * 3;
  let written: number;
  if (full <= SCRATCH_MAX) {
    if (scratch.length < full) scratch = Buffer.allocUnsafe(Math.min(SCRATCH_MAX, Math.max(full, 64 * 1024)));
    written = scratch.write(s, 'base64');
  } else {
    written = Buffer.from(s, 'base64').length;
  }
  return written === full - pad && !s.includes('-') && !s.includes('_');
}

const ALPHABET = /[A-Za-z0-9+/]/;

function isLineBreak(b: number | undefined): boolean {
  return b === 0x0a || b === 0x0d;
}

/**
 * The byte offset at which Go's base64.StdEncoding refuses `text` (as in `illegal base64 data at
 * input byte N`), or undefined when it decodes. Go reads quanta of four characters skipping line
 * breaks; a short last quantum is refused at its start, a `=` too early or not followed by its
 * partner where it stands, and anything after the padding where it starts.
 */
export function base64ErrorAt(text: string): number | undefined {
  if (isCleanBase64(text)) return undefined;
  const src = Buffer.from(text, 'utf8');
  let si = 0;
  for (;;) {
    let j = 0;
    while (j < 4) {
      if (si === src.length) {
        if (j === 0) return undefined;
        return si - j;
      }
      const b = src[si] ?? 0;
      si++;
      if (isLineBreak(b)) continue;
      if (b === 0x3d) {
        if (j < 2) return si - 1;
        if (j === 2) {
          while (si < src.length && isLineBreak(src[si])) si++;
          if (si === src.length) return src.length;
          if (src[si] !== 0x3d) return si - 1;
          si++;
        }
        while (si < src.length && isLineBreak(src[si])) si++;
        return si < src.length ? si : undefined;
      }
      if (b > 0x7f || !ALPHABET.test(String.fromCharCode(b))) return si - 1;
      j++;
    }
  }
}
