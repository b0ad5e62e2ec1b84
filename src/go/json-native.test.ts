// json.Marshal by JSON.stringify (marshalNatively) must write exactly what the piece-by-piece encoder
// writes, or decline: checked on hand-picked values, on every manifest of the corpus bundles and of
// the bundle fixtures, and on generated values full of the characters and keys where the two differ.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusDir, haveCorpus } from '../../test/corpus.js';
import { decodeFirstDocument, type FirstDocument } from '../bundle/decode.js';
import { GoStruct } from './go-struct.js';
import { JsonBytesOut } from './json-bytes-out.js';
import {
  appendIndented,
  marshal,
  marshalByParts,
  marshalIndent,
  marshalIndentByParts,
} from './json-encode.js';
import { marshalIndentNatively, marshalNatively, vouchNativeJson } from './json-native.js';
import { RawJson } from './raw-json.js';

/** Both encoders agree (same text, or the same error), with and without HTML escaping. */
function expectSame(value: unknown): void {
  for (const html of [true, false]) {
    let want: string | Error;
    try {
      want = marshalByParts(value, html);
    } catch (err) {
      want = err as Error;
    }
    if (want instanceof Error) {
      expect(() => marshal(value, html)).toThrow(want.message);
      expect(marshalNatively(value, html)).toBeUndefined();
      continue;
    }
    const native = marshalNatively(value, html);
    if (native !== undefined) expect(native).toBe(want);
    expect(marshal(value, html)).toBe(want);
    // Indented as the writers indent (opm's WriteJSON: four spaces, no HTML escaping).
    const parts: string[] = [];
    marshalIndentByParts(parts, value, '', '    ', html);
    const indented = marshalIndentNatively(value, '    ', html);
    if (indented !== undefined) expect(indented).toBe(parts.join(''));
    expect(marshalIndent(value, '', '    ', html)).toBe(parts.join(''));
    // Into bytes, where long strings are copied by the output itself.
    const bytes = new JsonBytesOut(16);
    appendIndented(bytes, value, '', '    ', html);
    expect(Buffer.from(bytes.take()).toString('utf8')).toBe(parts.join(''));
  }
}

describe('marshalNatively', () => {
  it('writes maps with their keys in UTF-8 byte order, whatever the insertion order', () => {
    const v = { b: 1, a: { d: [1, 'x'], c: null }, '\ue000': 1, '\u{1f600}': 2, A: true };
    expect(marshalNatively(v)).toBe(marshalByParts(v));
    expect(marshalNatively(v)).toBe('{"A":true,"a":{"c":null,"d":[1,"x"]},"b":1,"\ue000":1,"\u{1f600}":2}');
  });

  it('escapes <, >, & only with HTML escaping, and U+2028, U+2029 always', () => {
    const v = { '<k>': 'a & b <c>\u2028\u2029' };
    expect(marshalNatively(v, true)).toBe('{"\\u003ck\\u003e":"a \\u0026 b \\u003cc\\u003e\\u2028\\u2029"}');
    expect(marshalNatively(v, false)).toBe('{"<k>":"a & b <c>\\u2028\\u2029"}');
    expectSame(v);
  });

  it('writes control characters, quotes and backslashes as Go does', () => {
    expectSame({ s: '\u0000\u0001\b\f\n\r\t\u001f"\\\u007f\u0085' });
    expect(marshalNatively('\b\f\u001b')).toBe('"\\b\\f\\u001b"');
  });

  it('declines an indent that JSON.stringify cannot write as Go does', () => {
    expect(marshalIndentNatively({ a: 1 }, '')).toBeUndefined();
    expect(marshalIndent({ a: 1 }, '', '')).toBe('{\n"a": 1\n}');
    expect(marshalIndentNatively({ a: 1 }, 'x')).toBeUndefined();
    expect(marshalIndentNatively({ a: [], b: {} }, '  ')).toBe('{\n  "a": [],\n  "b": {}\n}');
    expect(marshalIndent({ a: 1 }, '>', '  ')).toBe('{\n>  "a": 1\n>}');
  });

  it('declines what JSON.stringify writes differently: lone surrogates, -0, non-finite numbers', () => {
    expect(marshalNatively({ s: 'a\ud800b' })).toBeUndefined();
    expect(marshalNatively({ s: '\udc00' })).toBeUndefined();
    expect(marshalNatively([-0])).toBeUndefined();
    expect(marshalNatively([Number.NaN])).toBeUndefined();
    expect(marshalNatively([Infinity])).toBeUndefined();
    expect(marshal({ s: 'a\ud800b' })).toBe('{"s":"a\\ufffdb"}');
    expect(marshal([-0])).toBe('[-0]');
    expect(() => marshal([Number.NaN])).toThrow('json: unsupported value: NaN');
    // A surrogate pair is one character, written as it is by both.
    expect(marshalNatively({ s: '\u{1f600}' })).toBe('{"s":"\u{1f600}"}');
  });

  it('declines class instances and index-like keys out of order', () => {
    expect(marshalNatively({ d: new Date(0) })).toBeUndefined();
    expect(marshalNatively({ 10: 'a', 9: 'b' })).toBeUndefined();
    expectSame({ 10: 'a', 9: 'b', x: 1 });
    // In order already (as V8 keeps them), index-like keys are fine.
    expect(marshalNatively({ 1: 'a', 2: 'b', x: 1 })).toBe('{"1":"a","2":"b","x":1}');
  });

  it('writes Go structs in field order, leaving out undefined fields', () => {
    const v = new GoStruct({ z: 1, a: undefined, m: { b: 2, a: 1 } });
    expect(marshalNatively(v)).toBe('{"z":1,"m":{"a":1,"b":2}}');
    expectSame(v);
    expect(marshalNatively(new GoStruct({ 1: 'x' }))).toBeUndefined();
  });

  it('takes raw JSON that JSON.stringify writes back exactly, and declines the rest', () => {
    expect(marshalNatively({ a: new RawJson('{"z":1,"a":[true,null,"<"]}') })).toBe(
      '{"a":{"z":1,"a":[true,null,"\\u003c"]}}',
    );
    for (const text of [
      '{ "z": 1 }',
      '{"v":4.10}',
      '{"v":1e3}',
      '"\\u003c"',
      '{"2":1,"1":2}',
      '"\u2028"',
      '[-0]',
    ])
      expect(marshalNatively({ a: new RawJson(text) }), text).toBeUndefined();
    for (const text of ['{"z":1,"a":[true,null,"<"]}', '{ "z": 1 }', '{"v":4.10}', '"\\u003c"', '"\u2028"'])
      expectSame({ a: new RawJson(text), b: 'x\u2028' });
  });
  it('writes long strings into bytes as the encoder does, whatever they hold', () => {
    const long = (fill: string): string => fill.repeat(Math.ceil(20000 / fill.length));
    expectSame({ a: long('QUJD'), b: 'x', c: [long('<&>'), long('\u2028\n"'), 1], d: long('é😀') });
    // A string of the value's own that looks like the mark of a long string.
    expectSame({ a: long('a'), b: '\u00000', c: '\u00001' });
    expectSame([long('a'), '\u0000', long('b\ud800')]);
    expectSame(new GoStruct({ data: long('QUJD'), raw: new RawJson(`"${long('x')}"`) }));
  });

  it('keeps an own __proto__ key as a key', () => {
    const v = JSON.parse('{"z":1,"__proto__":{"b":2,"a":1}}') as unknown;
    expectSame(v);
    expect(marshal(v)).toBe('{"__proto__":{"a":1,"b":2},"z":1}');
  });

  it('skips undefined in maps and writes null for it in arrays, as the encoder does', () => {
    expectSame({ a: undefined, b: [undefined, 1], c: 2 });
    expect(marshalNatively({ a: undefined, b: [undefined, 1] })).toBe('{"b":[null,1]}');
    expectSame(undefined);
  });

  it('agrees on generated values full of awkward keys, strings and numbers', () => {
    let seed = 12345;
    const rand = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    const chars = [
      'a',
      'Z',
      '0',
      '9',
      '<',
      '>',
      '&',
      '"',
      '\\',
      '\n',
      '\u0001',
      '\u007f',
      'é',
      '\u2028',
      '\u2029',
      '\ue000',
      '\uffff',
      '\u{1f600}',
      '\ud800',
      '\udfff',
      ' ',
      '/',
      '\b',
      '\f',
    ];
    const str = (): string => Array.from({ length: rand(6) }, () => chars[rand(chars.length)]).join('');
    const numbers = [0, -0, 1, -1, 0.5, 1e21, 1e-7, 123456789012, 5e-324, 1.7976931348623157e308, 0.1 + 0.2];
    const value = (depth: number): unknown => {
      switch (depth > 4 ? rand(4) : rand(7)) {
        case 0:
          return str();
        case 1:
          return numbers[rand(numbers.length)];
        case 2:
          return rand(2) === 0 ? null : rand(2) === 0;
        case 3:
          return String(rand(20));
        case 4:
        case 5: {
          const o: Record<string, unknown> = {};
          for (let i = rand(6); i > 0; i--) o[rand(3) === 0 ? String(rand(12)) : str()] = value(depth + 1);
          if (rand(5) === 0) return new GoStruct(o);
          // Raw JSON as the encoder writes it (taken natively), or spaced out (declined).
          if (rand(5) === 0)
            return new RawJson(marshalByParts(o, false).replace(/,/g, rand(2) === 0 ? ',' : ', '));
          return o;
        }
        default:
          return Array.from({ length: rand(5) }, () => value(depth + 1));
      }
    };
    let native = 0;
    for (let i = 0; i < 3000; i++) {
      const v = value(0);
      expectSame(v);
      if (marshalNatively(v) !== undefined) native++;
    }
    // Most values take the native way; the rest (lone surrogates, -0, index keys) are declined.
    expect(native).toBeGreaterThan(800);
  });
});

/** Every .yaml, .yml and .json file under `dir`. */
function manifestFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...manifestFiles(p));
    else if (/\.(ya?ml|json)$/.test(e.name)) out.push(p);
  }
  return out.sort();
}

/** Both encoders agree on the first document of every manifest file under `dir` that decodes. */
function checkManifests(dir: string): { checked: number; marked: number } {
  let checked = 0;
  let marked = 0;
  for (const file of manifestFiles(dir)) {
    let doc: FirstDocument;
    try {
      doc = decodeFirstDocument(readFileSync(file, 'utf8'));
    } catch {
      continue; // files that do not decode are the decoder's tests' business
    }
    if (doc.value === undefined) continue;
    // As the bundle reader marshals it: marked ready by the YAML reader where it found it so.
    expect(marshal(doc.native ?? doc.value, true), file).toBe(marshalByParts(doc.value, true));
    checked++;
    if (doc.native !== undefined) marked++;
  }
  return { checked, marked };
}

describe('NativeJson', () => {
  it('is taken by the JSON.stringify path as it is, unwalked', () => {
    // A value vouched for wrongly (keys out of Go's order) shows what the mark means: the native
    // path trusts it, while the piece-by-piece encoder writes its value as any other.
    const wrong = vouchNativeJson({ b: 1, a: [{ d: 1, c: 2 }] });
    expect(marshalNatively(wrong)).toBe('{"b":1,"a":[{"d":1,"c":2}]}');
    expect(marshalNatively(new GoStruct({ v: wrong }))).toBe('{"v":{"b":1,"a":[{"d":1,"c":2}]}}');
    expect(marshalNatively([wrong])).toBe('[{"b":1,"a":[{"d":1,"c":2}]}]');
    expect(marshalByParts(wrong)).toBe('{"a":[{"c":2,"d":1}],"b":1}');
  });

  it('writes what its value writes, when vouched for rightly', () => {
    const value = { '<': '\u2028', a: ['x', { c: null, d: 1.5 }], b: 'long '.repeat(5000) };
    const ready = vouchNativeJson(value);
    for (const html of [true, false]) {
      expect(marshal(ready, html)).toBe(marshalByParts(value, html));
      expect(marshalIndent(new GoStruct({ v: ready }), '', '    ', html)).toBe(
        marshalIndent(new GoStruct({ v: value }), '', '    ', html),
      );
      const bytes = new JsonBytesOut(16);
      appendIndented(bytes, [ready], '', '  ', html);
      expect(Buffer.from(bytes.take()).toString('utf8')).toBe(marshalIndent([value], '', '  ', html));
    }
  });
});

describe('marshal on real manifests', () => {
  it('agrees with the encoder on every manifest of the bundle fixtures', () => {
    const { checked, marked } = checkManifests(path.resolve('testdata/render'));
    expect(checked).toBeGreaterThan(20);
    expect(marked).toBeGreaterThan(0);
  });

  it.runIf(haveCorpus())('agrees with the encoder on every manifest of the corpus bundles', () => {
    const { checked, marked } = checkManifests(path.join(corpusDir ?? '', 'community-bundles'));
    expect(checked).toBeGreaterThan(100);
    expect(marked).toBeGreaterThan(0);
  });
});
