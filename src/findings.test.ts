import { describe, expect, it } from 'vitest';
import { sortFindings, type Finding } from './findings.js';

const at = (file: string, line = 1): Finding => ({
  rule: 'parse.yaml',
  severity: 'error',
  message: 'm',
  file,
  line,
});

describe('sortFindings', () => {
  it('orders files by UTF-8 bytes, as Go sorts strings, then by line', () => {
    // U+1F600 is a surrogate pair in UTF-16, before U+E000 there; in UTF-8 it comes after.
    const sorted = sortFindings([
      at('\u{1F600}.yaml'),
      at('\uE000.yaml', 9),
      at('\uE000.yaml', 2),
      at('a.yaml'),
    ]);
    expect(sorted.map((f) => `${f.file ?? ''}:${f.line ?? 0}`)).toEqual([
      'a.yaml:1',
      '\uE000.yaml:2',
      '\uE000.yaml:9',
      '\u{1F600}.yaml:1',
    ]);
  });
});
