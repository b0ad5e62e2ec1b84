/**
 * Values written into Markdown (diff's pull-request comment, validate's job summary) come from the
 * catalog and the file system: a bundle name may hold a line break followed by `# heading`, a
 * backtick that closes its code span early, or `[text](url)`. Everything written from a value goes
 * through this module, which makes it inert: it shows as the characters it holds and nothing else.
 *
 * - Characters that break or hide lines (C0 and C1 controls, U+2028/U+2029) and the bidirectional
 *   controls that reorder what is shown are written as visible escapes (`\n`, `\x1b`, `\u2028`), so
 *   a value never ends a line, and a block (heading, list, quote) can only start where the writer
 *   starts one.
 * - In a code span (`mdCode`) nothing else is interpreted by CommonMark: the fence is one backtick
 *   longer than the longest run of backticks inside, padded with a space when the value starts or
 *   ends with a backtick or a space (the space CommonMark strips again). An empty value is a span
 *   of one space (an empty span cannot be written).
 * - In text (`mdText`) Markdown's inline punctuation is backslash-escaped and `&`, `<`, `>` are
 *   written as entities, once.
 */
import { visibleChar } from './visible-char.js';

// Each written as a visible escape (`\n`, `\x1b`, `\u2028`) by visibleChar.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `s` with every character that breaks, hides or reorders lines written as a visible escape. */
export function mdVisible(s: string): string {
  return s.replace(UNSAFE, visibleChar);
}

/** A value as an inline code span that shows exactly `mdVisible(s)`. */
export function mdCode(s: string): string {
  const v = mdVisible(s);
  if (v === '') return '` `';
  let longest = 0;
  for (const run of v.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = '`'.repeat(longest + 1);
  // A value of spaces only is shown as it is; CommonMark strips nothing from it.
  const pad = v.trim() !== '' && /^[ `]|[ `]$/.test(v) ? ' ' : '';
  return `${fence}${pad}${v}${pad}${fence}`;
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/**
 * A value as Markdown text (outside code spans, table cells included) that shows exactly
 * `mdVisible(s)`: no emphasis, link, image, HTML, strikethrough or cell boundary can come of it.
 * (GitHub still links a bare `https://…` it finds in text, showing the address as written; values
 * whose every character must stay plain go in code spans.)
 */
export function mdText(s: string): string {
  return mdVisible(s).replace(/[\\`*_[\]()|~!#]|[&<>]/g, (c) => ENTITIES[c] ?? `\\${c}`);
}

/**
 * A value as the text of a table cell: as `mdText`, except that its line breaks (LF or CRLF) show
 * as breaks inside the cell (`<br>`, which GitHub allows in cells); a lone CR stays an escape.
 */
export function mdCell(s: string): string {
  return s.split(/\r?\n/).map(mdText).join('<br>');
}
