/**
 * A character that would break, hide or reorder a line, written as a visible escape: `\n`, `\r`,
 * `\t`, `\xNN` below U+0100, `\uNNNN` above. One spelling for human text (cli/escape.ts) and
 * Markdown (markdown.ts).
 */
export function visibleChar(c: string): string {
  switch (c) {
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    case '\t':
      return '\\t';
    default: {
      const code = c.charCodeAt(0);
      return code < 0x100
        ? `\\x${code.toString(16).padStart(2, '0')}`
        : `\\u${code.toString(16).padStart(4, '0')}`;
    }
  }
}
