import { describe, expect, it } from 'vitest';
import { readInline } from '../../test/markdown-inline.js';
import { mdCell, mdCode, mdText, mdVisible } from './markdown.js';

/** Values a catalog or a file name can hold that would break Markdown written naively. */
const HOSTILE = [
  'plain.v1.0.0',
  'name\n# forged heading',
  'cr\ronly',
  'crlf\r\n## heading',
  'back`tick',
  'fence```three',
  '`starts',
  'ends`',
  '``',
  ' spaced ',
  ' ',
  '',
  '[click](https://evil.example)',
  '![img](https://evil.example/x.png)',
  '<img src=x onerror=alert(1)>',
  '&lt;already escaped&gt; &amp;',
  '*bold* _em_ ~~strike~~',
  'a | b | c',
  'back\\slash\\',
  'line\u2028separator\u2029paragraph',
  'bidi\u202eevil\u2066',
  'esc\u001b[31mred\u0007\u0085nel\u007f',
  'tab\there',
  '<https://auto.link>',
  '\\`escaped backtick',
];

describe('mdVisible', () => {
  it('writes what breaks, hides or reorders lines as visible escapes', () => {
    expect(mdVisible('a\nb\rc\td\u001b\u0085\u2028\u2029\u202e\u2066')).toBe(
      'a\\nb\\rc\\td\\x1b\\x85\\u2028\\u2029\\u202e\\u2066',
    );
    for (const v of HOSTILE) {
      // eslint-disable-next-line no-control-regex -- the point
      expect(mdVisible(v)).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
    }
  });

  it('leaves other text alone', () => {
    expect(mdVisible('ünïcode ✅ `x` [y] <z>')).toBe('ünïcode ✅ `x` [y] <z>');
  });
});

describe('mdCode', () => {
  it.each(HOSTILE)('%j is one code span showing the value', (v) => {
    const md = mdCode(v);
    const parts = readInline(md);
    expect(parts).toEqual([{ kind: 'code', content: v === '' ? ' ' : mdVisible(v) }]);
  });

  it('widens the fence past the longest backtick run, padding only when needed', () => {
    expect(mdCode('a')).toBe('`a`');
    expect(mdCode('a`b')).toBe('``a`b``');
    expect(mdCode('a```b``c')).toBe('````a```b``c````');
    expect(mdCode('`x')).toBe('`` `x ``');
    expect(mdCode(' x ')).toBe('`  x  `');
  });

  it('keeps its span when text follows it on the line', () => {
    for (const v of HOSTILE) {
      const parts = readInline(`before ${mdCode(v)} after`);
      expect(parts.filter((p) => p.kind === 'code')).toHaveLength(1);
      expect(parts.filter((p) => p.kind === 'active')).toEqual([]);
    }
  });
});

describe('mdText', () => {
  it.each(HOSTILE)('%j is inert text showing the value', (v) => {
    const parts = readInline(mdText(v));
    expect(parts.filter((p) => p.kind !== 'text')).toEqual([]);
    expect(parts.map((p) => p.content).join('')).toBe(mdVisible(v));
  });

  it('escapes HTML once', () => {
    expect(mdText('<br> & &lt;')).toBe('&lt;br&gt; &amp; &amp;lt;');
  });
});

describe('mdCell', () => {
  it('breaks lines inside the cell, and nothing else', () => {
    expect(mdCell('one\ntwo\r\nthree\rfour')).toBe('one<br>two<br>three\\\\rfour');
    for (const v of HOSTILE) {
      const pieces = mdCell(v).split('<br>');
      expect(pieces).toHaveLength(v.split(/\r?\n/).length);
      for (const p of pieces) expect(readInline(p).filter((x) => x.kind !== 'text')).toEqual([]);
    }
  });
});
