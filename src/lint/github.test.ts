import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readInline } from '../../test/markdown-inline.js';
import type { Finding } from '../findings.js';
import { markdownSummary } from './github.js';

/** Cells of a GFM table row: split at pipes that are not escaped. */
function cells(row: string): string[] {
  expect(row.startsWith('| ') && row.endsWith(' |')).toBe(true);
  return row
    .slice(2, -2)
    .split(/(?<!\\) \| /)
    .map((c) => c.trim());
}

const hostile: Finding[] = [
  {
    rule: 'bundle.version-invalid',
    severity: 'error',
    message: 'bundle "x\n# forged" has <b>bad</b> version: `1.0` [click](https://evil.example)',
    file: 'pkg|evil/catalog.json',
    line: 3,
    package: 'p\r## hidden',
    bundle: 'b\u2028c',
  },
  {
    rule: 'channel.multiple-heads',
    severity: 'warning',
    message: 'first line\r\nsecond line | with a pipe & an &amp; entity',
    file: 'dir_with_underscores/a*b*.yaml',
  },
];

describe('markdownSummary', () => {
  // Any absolute folder: the summary names files under shownDir, not under it.
  const catalogDir = path.resolve('catalog');
  const md = markdownSummary(hostile, {
    shownDir: 'cat`alog\n# dir',
    catalogDir,
    base: catalogDir,
    passed: false,
  });
  const lines = md.split('\n');

  it('has one heading and one table row per finding, whatever the values hold', () => {
    expect(lines.filter((l) => l.startsWith('#'))).toEqual(['### ❌ opm validate ``cat`alog\\n# dir``']);
    const rows = lines.filter((l) => l.startsWith('| '));
    expect(rows).toHaveLength(2 + hostile.length);
    for (const row of rows.slice(2)) expect(cells(row)).toHaveLength(4);
    // eslint-disable-next-line no-control-regex -- the point
    expect(md).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u2028\u2029]/);
  });

  it('writes each value as inert text, HTML escaped once, line breaks as cell breaks', () => {
    const rows = lines.filter((l) => l.startsWith('| ')).slice(2);
    const [loc, message] = cells(rows[0] as string).slice(2);
    expect(loc).toBe('pkg\\|evil/catalog.json:3');
    expect(message).toBe(
      'p\\\\r\\#\\# hidden/b\\\\u2028c: bundle "x<br>\\# forged" has &lt;b&gt;bad&lt;/b&gt; version: \\`1.0\\` \\[click\\]\\(https://evil.example\\)',
    );
    const second = cells(rows[1] as string);
    expect(second[2]).toBe('dir\\_with\\_underscores/a\\*b\\*.yaml');
    expect(second[3]).toBe('first line<br>second line \\| with a pipe &amp; an &amp;amp; entity');
    for (const row of rows) {
      for (const cell of cells(row).slice(2)) {
        for (const piece of cell.split('<br>')) {
          expect(
            readInline(piece).filter((p) => p.kind !== 'text'),
            piece,
          ).toEqual([]);
        }
      }
    }
    expect(md).not.toContain('&lt;br');
  });
});
