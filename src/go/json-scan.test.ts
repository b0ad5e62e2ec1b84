// The one JSON scanner: the tree it builds keeps where each value sits in the text, and its errors
// read as Go encoding/json words them (bundle files) or as the catalog reader words them.
import { describe, expect, it } from 'vitest';
import {
  JsonScanError,
  nodeText,
  nodeValue,
  scanJson,
  scanJsonDocument,
  scanJsonValue,
} from './json-scan.js';

function goMessage(text: string): string {
  try {
    scanJsonDocument(text);
  } catch (err) {
    expect(err).toBeInstanceOf(JsonScanError);
    return (err as Error).message;
  }
  throw new Error(`${text} scanned`);
}

describe('scanJson', () => {
  it('keeps each value with its text, and the last of duplicate keys as Go does', () => {
    const text = ' {"a": [1, 2.50, {"b": "\\u003c"}], "e": { }, "a": true}';
    const node = scanJson(text);
    expect(nodeText(text, node)).toBe(text.trim());
    if (node.kind !== 'object') throw new Error('not an object');
    expect(node.entries.map(([k, v]) => [k, nodeText(text, v)])).toEqual([
      ['a', '[1, 2.50, {"b": "\\u003c"}]'],
      ['e', '{ }'],
      ['a', 'true'],
    ]);
    expect(nodeValue(node)).toEqual({ a: true, e: {} });
    expect(nodeValue(scanJson('[1, [2, ["<"]], {}]'))).toEqual([1, [2, ['<']], {}]);
  });

  it('reads nesting deeper than the call stack allows', () => {
    const depth = 100_000;
    const node = scanJson('['.repeat(depth) + ']'.repeat(depth));
    expect(node.end).toBe(2 * depth);
  });

  // The character is shown as JSON.stringify writes it, where Go puts it in single quotes.
  it('words syntax errors as Go does', () => {
    expect(goMessage('{"a":1,}')).toBe('invalid character "}" looking for beginning of object key string');
    expect(goMessage('{"a" 1}')).toBe('invalid character "1" after object key');
    expect(goMessage('{"a":1 "b":2}')).toBe('invalid character "\\"" after object key:value pair');
    expect(goMessage('[1 2]')).toBe('invalid character "2" after array element');
    expect(goMessage('[+1]')).toBe('invalid character "+" looking for beginning of value');
    expect(goMessage('{"a":[1,')).toBe('unexpected end of JSON input');
    expect(goMessage('"abc\\')).toBe('unexpected end of JSON input');
    expect(goMessage('"a\u0001b"')).toBe(`invalid character "\\u0001" in string literal`);
    expect(goMessage('["a\\qb"]')).toBe('invalid character "\\"" in string escape code');
    expect(goMessage('["\\\u0001"]')).toBe('invalid character "\\"" in string escape code');
    expect(goMessage('{} x')).toBe('invalid character after top-level value at offset 3');
  });
});

describe('scanJsonValue', () => {
  it('finds where a value ends, and words errors by what was expected', () => {
    expect(scanJsonValue('  {"a": "x\\"y"} {"b": 1}', 0, 10)).toEqual({ ok: true, end: 15 });
    expect(scanJsonValue('{"a":1,}', 0, 10)).toEqual({
      ok: false,
      at: 7,
      message: `unexpected character '}'; expected a string as object key`,
    });
    expect(scanJsonValue('"a\\qb"', 0, 10)).toEqual({
      ok: false,
      at: 2,
      message: 'invalid escape sequence in string',
    });
    expect(scanJsonValue('[[[]]]', 0, 2)).toEqual({
      ok: false,
      at: 2,
      message: 'nesting deeper than 2 levels',
    });
    expect(scanJsonValue('{"a":{"b":1,"b":2},"a":3}', 0, 10, true)).toEqual({
      ok: false,
      at: 19,
      message: 'duplicate key "a"',
      duplicate: '"a"',
      topLevel: true,
    });
  });
});
