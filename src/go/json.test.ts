import { describe, expect, it } from 'vitest';
import { RawJson } from './raw-json.js';
import { GoStruct } from './go-struct.js';
import { marshal, marshalIndent } from './json-encode.js';
import { formatGoFloatG, formatGoJsonNumber } from './json-number.js';
import { quoteGoString } from './json-quote.js';
import { compareUtf8 } from './utf8.js';
import { field, goFieldFor, goFold } from './json-decode.js';

describe('quoteGoString', () => {
  it('escapes quote, backslash and the short control escapes', () => {
    expect(quoteGoString('a"b\\c', false)).toBe('"a\\"b\\\\c"');
    expect(quoteGoString('\n\r\t\b\f', false)).toBe('"\\n\\r\\t\\b\\f"');
  });

  it('writes other C0 controls as \\u00xx with lower-case hex', () => {
    expect(quoteGoString('\u001b', false)).toBe('"\\u001b"');
    expect(quoteGoString('\u0000\u0001\u001f', false)).toBe('"\\u0000\\u0001\\u001f"');
  });

  it('always escapes U+2028 and U+2029', () => {
    expect(quoteGoString('a\u2028b\u2029', false)).toBe('"a\\u2028b\\u2029"');
  });

  it('replaces lone surrogates (invalid UTF-8 on the Go side) with \\ufffd and keeps pairs', () => {
    expect(quoteGoString('a\ud800b', false)).toBe('"a\\ufffdb"');
    expect(quoteGoString('\udc00', false)).toBe('"\\ufffd"');
    expect(quoteGoString('😀', false)).toBe('"😀"');
  });

  it('writes <, >, & raw without HTML escaping and as \\u003c etc. with it', () => {
    expect(quoteGoString('<a & b>', false)).toBe('"<a & b>"');
    expect(quoteGoString('<a & b>', true)).toBe('"\\u003ca \\u0026 b\\u003e"');
  });

  it('mixes escapes of every kind in one string', () => {
    expect(quoteGoString('a\n\u2028"\ud800\u0001', false)).toBe('"a\\n\\u2028\\"\\ufffd\\u0001"');
    expect(quoteGoString('<\n>&', true)).toBe('"\\u003c\\n\\u003e\\u0026"');
    expect(quoteGoString('<\n>&', false)).toBe('"<\\n>&"');
  });

  it('writes DEL and other non-ASCII characters raw', () => {
    expect(quoteGoString('\u007f\u0085é中\u00a0', true)).toBe('"\u007f\u0085é中\u00a0"');
  });
});

describe('number formatting', () => {
  it('writes float64 as encoding/json does', () => {
    expect(formatGoJsonNumber(1)).toBe('1');
    expect(formatGoJsonNumber(1.5)).toBe('1.5');
    expect(formatGoJsonNumber(-0)).toBe('-0');
    expect(formatGoJsonNumber(0.000001)).toBe('0.000001');
    expect(formatGoJsonNumber(1e-7)).toBe('1e-7');
    expect(formatGoJsonNumber(1e20)).toBe('100000000000000000000');
    expect(formatGoJsonNumber(1e21)).toBe('1e+21');
    expect(formatGoJsonNumber(1.5e300)).toBe('1.5e+300');
    expect(formatGoJsonNumber(Number('12345678901234567890'))).toBe('12345678901234567000');
  });

  it('refuses NaN and infinities as Go does', () => {
    expect(() => formatGoJsonNumber(NaN)).toThrow('json: unsupported value: NaN');
    expect(() => formatGoJsonNumber(Infinity)).toThrow('json: unsupported value: +Inf');
  });

  it("formats like strconv.FormatFloat(x, 'g', -1, 64)", () => {
    expect(formatGoFloatG(1e-7)).toBe('1e-07');
    expect(formatGoFloatG(1e-5)).toBe('1e-05');
    expect(formatGoFloatG(1234567.5)).toBe('1.2345675e+06');
    expect(formatGoFloatG(12345678.5)).toBe('1.23456785e+07');
    expect(formatGoFloatG(1e20)).toBe('1e+20');
    expect(formatGoFloatG(1e21)).toBe('1e+21');
    expect(formatGoFloatG(1.5)).toBe('1.5');
    expect(formatGoFloatG(0.0001)).toBe('0.0001');
    expect(formatGoFloatG(123456.5)).toBe('123456.5');
    expect(formatGoFloatG(1)).toBe('1');
    expect(formatGoFloatG(100)).toBe('100');
    expect(formatGoFloatG(-0)).toBe('-0');
    expect(formatGoFloatG(-2.5e-10)).toBe('-2.5e-10');
    expect(formatGoFloatG(1e100)).toBe('1e+100');
  });
});

describe('compareUtf8', () => {
  it('orders like Go string comparison', () => {
    expect(compareUtf8('a', 'b')).toBeLessThan(0);
    expect(compareUtf8('x.v0.10.0', 'x.v0.3.0')).toBeLessThan(0);
    expect(compareUtf8('B', 'a')).toBeLessThan(0);
    expect(compareUtf8('ab', 'a')).toBeGreaterThan(0);
  });

  it('puts astral characters after U+E000..U+FFFF, as UTF-8 bytes do', () => {
    // UTF-16 code units would put U+1F600 (surrogates D83D…) before U+FF01.
    const utf16Less = (a: string, b: string): boolean => a < b;
    expect(utf16Less('😀', '\uff01')).toBe(true);
    expect(compareUtf8('😀', '\uff01')).toBeGreaterThan(0);
    expect(compareUtf8('\ud7ff', '😀')).toBeLessThan(0);
  });
});

describe('marshal / marshalIndent', () => {
  it('sorts map keys byte-wise and keeps struct field order', () => {
    const v = { b: 1, a: new GoStruct({ z: 1, y: 'x', skipped: undefined }), B: [] };
    expect(marshal(v)).toBe('{"B":[],"a":{"z":1,"y":"x"},"b":1}');
  });

  it('lays out like json.MarshalIndent, with compact empty containers', () => {
    const v = { a: [1, { b: null }], c: {}, d: [] };
    expect(marshalIndent(v, '', '    ')).toBe(
      '{\n    "a": [\n        1,\n        {\n            "b": null\n        }\n    ],\n    "c": {},\n    "d": []\n}',
    );
  });

  it('puts the prefix on every line but the first', () => {
    expect(marshalIndent({ a: 1 }, '> ', '  ')).toBe('{\n>   "a": 1\n> }');
  });

  it('keeps raw JSON text: key order, number text, escapes', () => {
    const raw = new RawJson('{ "z" : 4.10, "a":[ 1e2 , "\\u00e9<" ], "e": { } }');
    expect(marshal({ v: raw }, false)).toBe('{"v":{"z":4.10,"a":[1e2,"\\u00e9<"],"e":{}}}');
    expect(marshalIndent(raw, '', '  ', false)).toBe(
      '{\n  "z": 4.10,\n  "a": [\n    1e2,\n    "\\u00e9<"\n  ],\n  "e": {}\n}',
    );
  });

  it('HTML-escapes raw text when escaping is on, as json.Compact does', () => {
    expect(marshal(new RawJson('"<&>\u2028"'), true)).toBe('"\\u003c\\u0026\\u003e\\u2028"');
    expect(marshal(new RawJson('"<&>\u2028"'), false)).toBe('"<&>\u2028"');
  });

  it('escapes HTML in keys and values by default, like json.Marshal', () => {
    expect(marshal({ '<k>': '&' })).toBe('{"\\u003ck\\u003e":"\\u0026"}');
  });
});

describe('matching keys to fields as Go does, ignoring case', () => {
  it('folds U+017F to s and U+212A to k, and nothing else beyond ASCII to ASCII', () => {
    const names = ['description', 'package', 'image'] as const;
    expect(goFieldFor('de\u017fcription', names)).toBe('description');
    expect(goFieldFor('PAC\u212aAGE', names)).toBe('package');
    expect(goFieldFor('\u0131mage', names)).toBeUndefined();
    expect(goFieldFor('\u0130mage', names)).toBeUndefined();
    expect(goFold('\u017fS\u212aK')).toBe('sskk');
    expect(field({ Verſion: '1', other: '2' }, 'version')).toBe('1');
  });
});
