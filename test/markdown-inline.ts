/**
 * A reader of one line of inline Markdown, for tests that check what a value written into Markdown
 * turns into (no CommonMark library is among the dependencies). It follows the CommonMark rules
 * that decide whether a value can escape its place: code spans (a backtick string closed by the next
 * backtick string of the same length, one space stripped from each side when both sides have one),
 * backslash escapes of ASCII punctuation, and the entities `&amp;`, `&lt;`, `&gt;`. Anything else
 * that Markdown or GFM would interpret (links, images, emphasis, HTML, strikethrough, table cell
 * boundaries, autolinks in angle brackets) is reported as `active`, with the character.
 */

export type InlinePart =
  { kind: 'code'; content: string } | { kind: 'text'; content: string } | { kind: 'active'; content: string };

const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/;
const ACTIVE = new Set(['[', ']', '*', '_', '<', '>', '&', '|', '~', '\\']);
const ENTITY = /^&(amp|lt|gt);/;

function backtickRun(line: string, at: number): number {
  let n = 0;
  while (line[at + n] === '`') n++;
  return n;
}

/** The parts of `line` (which holds no line break), in order. */
export function readInline(line: string): InlinePart[] {
  if (/[\r\n]/.test(line)) throw new Error('readInline takes one line');
  const parts: InlinePart[] = [];
  let text = '';
  const flush = (): void => {
    if (text !== '') parts.push({ kind: 'text', content: text });
    text = '';
  };
  let i = 0;
  while (i < line.length) {
    const c = line[i] as string;
    if (c === '`') {
      const n = backtickRun(line, i);
      // The closing run: the next run of exactly n backticks.
      let j = i + n;
      let close = -1;
      while (j < line.length) {
        if (line[j] === '`') {
          const m = backtickRun(line, j);
          if (m === n) {
            close = j;
            break;
          }
          j += m;
        } else j++;
      }
      if (close === -1) {
        // No closing run: the backticks are literal text, which a value must not leave behind.
        flush();
        parts.push({ kind: 'active', content: '`'.repeat(n) });
        i += n;
        continue;
      }
      let content = line.slice(i + n, close);
      if (content.length >= 2 && content.startsWith(' ') && content.endsWith(' ') && content.trim() !== '') {
        content = content.slice(1, -1);
      }
      flush();
      parts.push({ kind: 'code', content });
      i = close + n;
      continue;
    }
    if (c === '\\' && i + 1 < line.length && ASCII_PUNCTUATION.test(line[i + 1] as string)) {
      text += line[i + 1];
      i += 2;
      continue;
    }
    if (c === '&') {
      const m = ENTITY.exec(line.slice(i));
      if (m !== null) {
        text += m[1] === 'amp' ? '&' : m[1] === 'lt' ? '<' : '>';
        i += m[0].length;
        continue;
      }
    }
    if (ACTIVE.has(c) || (c === '!' && line[i + 1] === '[')) {
      flush();
      parts.push({ kind: 'active', content: c });
      i++;
      continue;
    }
    text += c;
    i++;
  }
  flush();
  return parts;
}
