import { describe, expect, it } from 'vitest';
import { RawJson } from '../go/raw-json.js';
import { GoStruct } from '../go/go-struct.js';
import { JsonBytesOut } from '../go/json-bytes-out.js';
import { appendIndented, marshalIndent } from '../go/json-encode.js';

/** What JsonBytesOut writes for `value`, as text. */
function viaBytes(value: unknown, escapeHTML = false, initialBytes?: number): string {
  const out = new JsonBytesOut(initialBytes);
  appendIndented(out, value, '', '    ', escapeHTML);
  return Buffer.from(out.take()).toString('utf8');
}

function base64Of(bytes: number, seed: number): string {
  const b = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) b[i] = (i * 2654435761 + seed) >>> 24;
  return b.toString('base64');
}

/** Long strings around the edges of the straight-copy test: each must come out as marshalIndent writes it. */
const LONG_STRINGS: string[] = [
  base64Of(3000, 1),
  base64Of(3001, 2), // one `=`
  base64Of(3002, 3), // two `=`
  base64Of(3000, 4).replace(/=*$/, '') + 'A', // length 1 mod 4
  base64Of(3000, 5).replace(/\+/g, '-').replace(/\//g, '_'), // URL alphabet
  base64Of(3000, 6) + '\n' + base64Of(30, 7), // a line break (escaped)
  'A'.repeat(500) + '"' + 'B'.repeat(500), // quote
  'A'.repeat(500) + '\\' + 'B'.repeat(500), // backslash
  'A'.repeat(500) + '\u0001' + 'B'.repeat(499), // control character
  'A'.repeat(500) + '=' + 'B'.repeat(499), // `=` inside
  'A'.repeat(600) + '<>&', // HTML characters
  'A'.repeat(600) + 'é', // non-ASCII, two bytes
  'A'.repeat(597) + '€é', // non-ASCII whose bytes make up the length
  'A'.repeat(600) + '\u2028', // escaped by Go, not by JSON.stringify
  'A'.repeat(600) + '\ud800', // lone surrogate
  'A'.repeat(600) + '😀', // surrogate pair
  '\u0141'.repeat(800), // low bytes that are base64 letters
  'plain text with spaces, '.repeat(40),
  '='.repeat(600),
];

describe('JsonBytesOut', () => {
  it('writes what marshalIndent writes, long strings of every kind included', () => {
    for (const s of LONG_STRINGS) {
      for (const escapeHTML of [false, true]) {
        const value = new GoStruct({ a: s, b: [s, { [s]: 1 }], c: { data: s } });
        expect(viaBytes(value, escapeHTML)).toBe(marshalIndent(value, '', '    ', escapeHTML));
      }
    }
  });

  it('grows past its initial size and keeps what it had', () => {
    const value = { x: LONG_STRINGS.slice(0, 6), y: 'short', z: new RawJson('{"b": 4.10, "a": [ ]}') };
    expect(viaBytes(value, false, 16)).toBe(marshalIndent(value, '', '    ', false));
  });

  it('reuses its buffer: take starts it again empty, and truncate drops text after a mark', () => {
    const out = new JsonBytesOut(64);
    out.text('{"a": ');
    out.string(LONG_STRINGS[0] ?? '', false);
    const mark = out.mark();
    out.text(', broken');
    out.truncate(mark);
    out.text('}');
    expect(Buffer.from(out.take()).toString('utf8')).toBe(`{"a": "${LONG_STRINGS[0] ?? ''}"}`);
    expect(out.size).toBe(0);
    out.text('[]');
    expect(Buffer.from(out.take()).toString('utf8')).toBe('[]');
  });
});
