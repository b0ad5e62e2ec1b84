// Catalog names written into `opm diff -o markdown` cannot forge structure in a pull-request
// comment: testdata/curate/markdown-injection holds two catalogs (both valid, for opm too) whose
// package, channel, bundle and property type names and deprecation message hold line breaks, `#`,
// backticks, links, HTML, pipes and U+2028. The expected output itself is in that folder's
// expected/markdown.txt (fixtures.test.ts); this checks its structure line by line.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mdVisible } from '../../src/util/markdown.js';
import { readInline } from '../markdown-inline.js';
import { runOpm } from '../run-cli.js';

const dir = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../testdata/curate/markdown-injection',
);

/** Every string value of the catalogs' blobs (names, types, messages), deduplicated. */
function catalogStrings(): Set<string> {
  const out = new Set<string>();
  const walk = (v: unknown): void => {
    if (typeof v === 'string') out.add(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === 'object' && v !== null) Object.values(v).forEach(walk);
  };
  for (const side of ['old', 'new']) {
    const text = readFileSync(path.join(dir, side, 'catalog.json'), 'utf8');
    for (const blob of text.split(/\n(?=\{)/)) walk(JSON.parse(blob));
  }
  return out;
}

describe('diff -o markdown with hostile names', () => {
  it('keeps its own headings and list items, each value one code span', async () => {
    const r = await runOpm(['diff', 'old', 'new', '-o', 'markdown'], { cwd: dir });
    expect(r.code).toBe(1);
    const lines = r.stdout.split('\n');
    expect(lines.at(-1)).toBe('');
    // No line is broken by a value: each is a heading this writer starts, a list item (or one
    // nested under it), or blank.
    const headings = lines.filter((l) => l.startsWith('#'));
    expect(headings).toEqual([
      '## Catalog diff',
      '### ⚠️ Upgrade impact: 1 bundle can no longer upgrade',
      '### package `inj`',
    ]);
    const spans = new Set<string>();
    for (const line of lines) {
      if (line === '' || line.startsWith('#')) continue;
      // A list item, or a line nested under one: what a changed list gained and lost.
      expect(line).toMatch(/^(- (users on |(added|removed|changed): )| {2}- `)/);
      const parts = readInline(line.replace(/^ *- /, ''));
      expect(
        parts.filter((p) => p.kind === 'active'),
        line,
      ).toEqual([]);
      for (const p of parts) if (p.kind === 'code') spans.add(p.content);
    }
    // Every hostile value the diff names is shown whole, as one span.
    const hostile = [...catalogStrings()].filter((s) => /[\n\r`#<[|\u2028]/.test(s));
    expect(hostile.length).toBeGreaterThanOrEqual(6);
    for (const s of hostile) {
      const shown = s.startsWith('old\n') ? mdVisible(JSON.stringify(s)) : mdVisible(s);
      expect(spans, JSON.stringify(s)).toContain(shown);
    }
  });
});
