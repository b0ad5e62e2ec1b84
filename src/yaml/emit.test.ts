import { describe, expect, it } from 'vitest';
import { RawJson } from '../go/raw-json.js';
import { GoStruct } from '../go/go-struct.js';
import { vouchNativeJson } from '../go/json-native.js';
import { emitYaml } from './emit.js';
import { compareYamlKeys } from './key-order.js';
import { plainReadsAsNonString, scalarStyle } from './scalar-style.js';

/** The line a string value is written on, as `v: <scalar>`. */
function value(s: string): string {
  return emitYaml({ v: s });
}

describe('values as go-yaml sees them', () => {
  it('writes integers in decimal and floats with FormatFloat g', () => {
    expect(emitYaml({ a: 1, b: -1, c: 1.5, d: 1e21, e: 1e-7, f: 1234567.5, g: 0.0001, h: -0 })).toBe(
      'a: 1\nb: -1\nc: 1.5\nd: 1e+21\ne: 1e-07\nf: 1.2345675e+06\ng: 0.0001\nh: 0\n',
    );
  });

  it('keeps 64-bit integers that the JSON text holds, and turns numbers ≥ 2^64 into floats', () => {
    expect(emitYaml({ a: 1e20 })).toBe('a: 1e+20\n');
    expect(emitYaml({ a: Number('12345678901234567890') })).toBe('a: 12345678901234567000\n');
    expect(emitYaml({ a: 2 ** 64 })).toBe('a: 1.8446744073709552e+19\n');
    // Go's JSON text of ±2^63 is the shortest digits padded with zeros: beyond int64, a float.
    expect(emitYaml({ a: -(2 ** 63) })).toBe('a: -9.223372036854776e+18\n');
    expect(emitYaml({ a: 2 ** 63 })).toBe('a: 9223372036854776000\n');
  });

  it('reads raw JSON number text as go-yaml does', () => {
    const raw = new RawJson(
      '{"a":4.10,"b":1E+2,"c":1.0,"d":-0.0,"e":100000000000000000000,"f":18446744073709551615,"g":-0,"h":1e400}',
    );
    expect(emitYaml(raw)).toBe(
      'a: 4.1\nb: 100\nc: 1\nd: -0\ne: 1e+20\nf: 18446744073709551615\ng: 0\nh: 1e400\n',
    );
  });

  it('writes booleans, null and empty collections inline', () => {
    expect(emitYaml({ a: true, b: false, c: null, d: {}, e: [], f: [{}, []] })).toBe(
      'a: true\nb: false\nc: null\nd: {}\ne: []\nf:\n- {}\n- []\n',
    );
  });

  it('folds a raw NEL into a space and refuses other raw C1 controls', () => {
    expect(value('a\u0085b')).toBe('v: a b\n');
    expect(value('a \u0085 b')).toBe('v: a b\n');
    expect(value('a\u0085\u0085b')).toBe('v: |-\n  a\n  b\n');
    expect(() => value('a\u007fb')).toThrow('yaml: control characters are not allowed');
    expect(() => value('\u0086')).toThrow('yaml: control characters are not allowed');
    expect(() => emitYaml({ '\uffff': 1 })).toThrow('yaml: control characters are not allowed');
  });

  it('keeps escaped characters of raw JSON and folds its raw line breaks', () => {
    // A raw U+2028 stays a line break: single-quoted, the next line indented.
    expect(emitYaml(new RawJson('{"a":"x\\u0085y","b":"x\u2028y"}'))).toBe('a: "x\\Ny"\nb: \'x\u2028  y\'\n');
    expect(() => emitYaml(new RawJson('"\\ud83d\\ude00"'))).toThrow('invalid Unicode character escape');
  });

  it('writes U+2028 as \\L in double quotes (it survives the JSON step escaped)', () => {
    expect(value('a\u2028\tb')).toBe('v: "a\\L\\tb"\n');
  });
});

describe('layout', () => {
  it('nests mappings by 2 and does not indent sequences under a key', () => {
    expect(emitYaml({ a: { b: { c: 1 } }, entries: [{ name: 'x', replaces: 'w' }, 'z'] })).toBe(
      'a:\n  b:\n    c: 1\nentries:\n- name: x\n  replaces: w\n- z\n',
    );
  });

  it('writes nested sequences as "- - a"', () => {
    expect(emitYaml({ a: [['x', 'w'], ['z']] })).toBe('a:\n- - x\n  - w\n- - z\n');
    expect(emitYaml([[1]])).toBe('- - 1\n');
  });

  it('writes root scalars, sequences and an empty mapping', () => {
    expect(emitYaml('a')).toBe('a\n');
    expect(emitYaml([1, 'b'])).toBe('- 1\n- b\n');
    expect(emitYaml({})).toBe('{}\n');
    expect(emitYaml('a\nb')).toBe('|-\n  a\n  b\n');
  });

  it('omits undefined struct fields and orders every mapping by key', () => {
    expect(emitYaml(new GoStruct({ schema: 's', name: 'm', skipped: undefined, entries: null }))).toBe(
      'entries: null\nname: m\nschema: s\n',
    );
  });

  it('writes a value marked ready for JSON.stringify as the value itself', () => {
    const value = { b: ['1.0', { c: null }], a: 'yes', '2': 1 };
    expect(emitYaml(new GoStruct({ v: vouchNativeJson(value) }))).toBe(emitYaml(new GoStruct({ v: value })));
    expect(emitYaml(vouchNativeJson(value))).toBe('"2": 1\na: "yes"\nb:\n- "1.0"\n- c: null\n');
  });
});

describe('key order', () => {
  const sortYamlKeys = (keys: string[]): string[] => [...keys].sort(compareYamlKeys);

  it('orders the FBC keys as opm writes them', () => {
    expect(sortYamlKeys(['schema', 'name', 'defaultChannel', 'icon', 'description', 'properties'])).toEqual([
      'defaultChannel',
      'description',
      'icon',
      'name',
      'properties',
      'schema',
    ]);
    expect(sortYamlKeys(['name', 'replaces', 'skips', 'skipRange'])).toEqual([
      'name',
      'replaces',
      'skipRange',
      'skips',
    ]);
    expect(sortYamlKeys(['schema', 'name', 'package', 'image', 'properties', 'relatedImages'])).toEqual([
      'image',
      'name',
      'package',
      'properties',
      'relatedImages',
      'schema',
    ]);
  });

  it('compares letters by code point, non-letters first, digit runs by value', () => {
    expect(sortYamlKeys(['é', 'a', 'Z', 'A'])).toEqual(['A', 'Z', 'a', 'é']);
    expect(sortYamlKeys(['a', '_', '1', '-'])).toEqual(['-', '_', '1', 'a']);
    expect(sortYamlKeys(['a10', 'a9', 'a09'])).toEqual(['a9', 'a09', 'a10']);
    expect(sortYamlKeys(['_', '/', '.', '-'])).toEqual(['-', '.', '/', '_']);
    expect(sortYamlKeys(['ab', 'a'])).toEqual(['a', 'ab']);
  });

  it('counts leading zeros after a non-zero digit', () => {
    // After the common prefix "1", "01" and "1" both start from 1: 101 vs 11 by value.
    expect(compareYamlKeys('101', '11')).toBeGreaterThan(0);
    expect(compareYamlKeys('a01', 'a1')).toBeGreaterThan(0);
    expect(compareYamlKeys('a0', 'a00')).toBeLessThan(0);
  });
});

describe('scalar style requests', () => {
  it('double-quotes text that would read back as another type', () => {
    for (const s of ['', '~', 'null', 'y', 'N', 'yes', 'off', 'TRUE', '.nan', '-.Inf', '.5', '.5e3']) {
      expect(plainReadsAsNonString(s), s).toBe(true);
    }
    for (const s of ['1', '-1', '+1', '017', '0x1F', '0o17', '0b101', '1_000', '1.0', '1.', '09', '1e3']) {
      expect(plainReadsAsNonString(s), s).toBe(true);
    }
    for (const s of ['-1.5e-3', '-0b1', '1:20', '12:30:45', '1:30.5']) {
      expect(plainReadsAsNonString(s), s).toBe(true);
    }
  });

  it('leaves strings that only look a bit like other types plain', () => {
    for (const s of ['1.2.3', '0.1.0', 'v1.0', '1e', '0x', '<<', '=', '-a', '1:60', 'yes!', 'Nan', '.']) {
      expect(plainReadsAsNonString(s), s).toBe(false);
    }
    expect(plainReadsAsNonString('0x10000000000000000')).toBe(false); // beyond uint64
    expect(plainReadsAsNonString('0xFFFFFFFFFFFFFFFF')).toBe(true);
    expect(plainReadsAsNonString('1e400')).toBe(false); // ParseFloat range error
  });

  it('recognises timestamps with go-yaml v2 layouts', () => {
    for (const s of [
      '2025-10-10',
      '2025-10-10T12:43:34Z',
      '2025-10-10T12:43:34+02:00',
      '2025-10-10 12:43:34',
      '2025-1-2',
      '2025-10-10t12:43:34.123Z',
      '2024-02-29',
      '2025-10-10  1:2:3',
    ]) {
      expect(plainReadsAsNonString(s), s).toBe(true);
    }
    for (const s of [
      '2025-10-10T12:43:34',
      '2025-10-10 12:43 UTC',
      '2023-13-45',
      '2025-10',
      '10/10/2025',
      '2025-02-29',
      '2025-10-10T24:00:00Z',
      '12025-10-10',
    ]) {
      expect(plainReadsAsNonString(s), s).toBe(false);
    }
  });

  it('single-quotes strings that would not read back as plain strings', () => {
    expect(value('>=0.9.0 <=0.9.1')).toBe("v: '>=0.9.0 <=0.9.1'\n");
    expect(value('Hive: Cluster-as-a-Service')).toBe("v: 'Hive: Cluster-as-a-Service'\n");
    expect(value('[{"apiVersion":"v1"}]')).toBe('v: \'[{"apiVersion":"v1"}]\'\n');
    expect(value('- a')).toBe("v: '- a'\n");
    expect(value('a: b')).toBe("v: 'a: b'\n");
    expect(value('#a')).toBe("v: '#a'\n");
    expect(value(' leading')).toBe("v: ' leading'\n");
    expect(value('trailing ')).toBe("v: 'trailing '\n");
    expect(value('---a')).toBe("v: '---a'\n");
    expect(value("'a")).toBe("v: '''a'\n");
    expect(value('"a')).toBe("v: '\"a'\n");
    expect(value('false')).toBe('v: "false"\n');
    expect(value('1.0')).toBe('v: "1.0"\n');
    expect(value('y')).toBe('v: "y"\n');
    expect(value('')).toBe('v: ""\n');
    expect(value('a\tb')).toBe('v: "a\\tb"\n');
    expect(value('emoji 😀')).toBe('v: "emoji \\U0001F600"\n');
  });

  it('allows plain text with indicators that only matter in flow context or mid-word', () => {
    for (const s of ['a,b', 'a[b]', '-a', '?a', ':a', 'a#b', 'a:b', 'a?', 'x{y}']) {
      expect(scalarStyle(s, false), s).toBe('plain');
    }
    for (const s of ['-', '?', ': a', 'a #b', 'a:', '...x', '@a', '`a', '%a', '!a', '&a', '*a', '|a', '>a']) {
      expect(scalarStyle(s, false), s).toBe('single');
    }
  });

  it('picks double quotes where single quotes cannot hold the text', () => {
    expect(scalarStyle('a\u00a0b', false)).toBe('plain'); // NBSP is printable
    expect(scalarStyle(' a\u2028b', false)).toBe('single');
    expect(scalarStyle('a \u2028b', false)).toBe('double');
    expect(scalarStyle('a\u2028 b', false)).toBe('double');
    expect(scalarStyle('\ufeffa', false)).toBe('double');
  });

  it('double-quotes a multi-line text with a space before a newline (corpus case)', () => {
    expect(value('Hours:Minutes \n Accept cron schedule')).toBe(
      'v: "Hours:Minutes \\n Accept cron schedule"\n',
    );
  });

  it('uses literal blocks for multi-line text unless it has specials or trailing spaces', () => {
    expect(scalarStyle('a\nb', false)).toBe('literal');
    expect(scalarStyle('a\nb ', false)).toBe('double');
    expect(scalarStyle('a \nb', false)).toBe('double');
    expect(scalarStyle('a\n\tb', false)).toBe('double');
    expect(scalarStyle('a\n😀', false)).toBe('double');
    expect(scalarStyle('a\n b', false)).toBe('literal');
  });
});

describe('writing each style', () => {
  it('escapes in double quotes with upper-case hex', () => {
    expect(value('\u0000\u0007\b\t\u000b\f\r\u001b"\\\u2029\u0001')).toBe(
      'v: "\\0\\a\\b\\t\\v\\f\\r\\e\\"\\\\\\P\\x01"\n',
    );
    // NEL survives the JSON step only escaped (raw JSON text); typed strings have it folded.
    expect(emitYaml(new RawJson('"a\\u0085"'))).toBe('"a\\N"\n');
    expect(value('a\ufeffb\n')).toBe('v: "a\\uFEFFb\\n"\n');
    expect(value('é中\u00a0\t')).toBe('v: "é中\u00a0\\t"\n');
  });

  it('escapes every character of a string that starts with a BOM', () => {
    expect(value('\ufeffa b')).toBe('v: "\\uFEFF\\x61\\x20\\x62"\n');
  });

  it('writes literal blocks with indentation and chomping indicators', () => {
    expect(value('a\nb')).toBe('v: |-\n  a\n  b\n');
    expect(value('a\nb\n')).toBe('v: |\n  a\n  b\n');
    expect(value('a\nb\n\n')).toBe('v: |+\n  a\n  b\n\n');
    expect(value('\n')).toBe('v: |2+\n\n');
    expect(value('\nabc\n')).toBe('v: |2\n\n  abc\n');
    expect(value('  a\nb')).toBe('v: |2-\n    a\n  b\n');
    expect(value('a\n\n\nb')).toBe('v: |-\n  a\n\n\n  b\n');
  });

  it('indents block content by the enclosing key column + 2, or the dash column + 2', () => {
    expect(emitYaml({ x: { w: { description: 'a\nb' } } })).toBe(
      'x:\n  w:\n    description: |-\n      a\n      b\n',
    );
    expect(emitYaml(['a\nb'])).toBe('- |-\n  a\n  b\n');
    expect(emitYaml({ l: ['a\nb'] })).toBe('l:\n- |-\n  a\n  b\n');
  });

  it('never folds inside a literal block', () => {
    const long = 'word '.repeat(40).trim();
    expect(value(long + '\nx')).toBe(`v: |-\n  ${long}\n  x\n`);
  });

  it('writes U+2028 raw inside a literal block and indents after it', () => {
    expect(value('a\u2028b\nc')).toBe('v: |-\n  a\u2028  b\n  c\n');
  });
});

describe('folding at width 80', () => {
  it('breaks at a space only once the line has passed column 80', () => {
    // "v: " + 77 characters: the space is at column 80 and stays; the next one is past it.
    expect(value('x'.repeat(77) + ' a b')).toBe(`v: ${'x'.repeat(77)} a\n  b\n`);
    expect(value('x'.repeat(78) + ' a')).toBe(`v: ${'x'.repeat(78)}\n  a\n`);
    const s = "Suspend your pods when no-one's using them to save energy and restore when necessary";
    expect(emitYaml({ a: { b: { description: s } } })).toBe(
      "a:\n  b:\n    description: Suspend your pods when no-one's using them to save energy and restore\n      when necessary\n",
    );
  });

  it('matches the corpus example', () => {
    const s = "Suspend your pods when no-one's using them to save energy and restore when necessary";
    const out = emitYaml({ x: { w: { z: { description: s } } } });
    expect(out).toBe(
      "x:\n  w:\n    z:\n      description: Suspend your pods when no-one's using them to save energy and restore\n        when necessary\n",
    );
  });

  it('does not break unbroken words, nor at runs of spaces in plain text', () => {
    const word = 'x'.repeat(100);
    expect(value(`${word} ${word}`)).toBe(`v: ${word}\n  ${word}\n`);
    expect(value(`${word}  y`)).toBe(`v: ${word}  y\n`);
    expect(value(`${word}  y z`)).toBe(`v: ${word}  y\n  z\n`);
  });

  it('folds single-quoted text, never at its first or last character', () => {
    const s = '#' + 'x'.repeat(90) + ' y';
    expect(value(s)).toBe(`v: '${'#' + 'x'.repeat(90)}\n  y'\n`);
  });

  it('keeps a following space in double quotes with a backslash', () => {
    const s = 'x'.repeat(90) + '  yy\t';
    expect(value(s)).toBe(`v: "${'x'.repeat(90)}\n  \\ yy\\t"\n`);
  });

  it('counts escape sequences as written characters', () => {
    // `v: "` is 4 columns and 40 `\t` escapes 80 more: the space is past column 80.
    expect(value('\t'.repeat(40) + ' a')).toBe(`v: "${'\\t'.repeat(40)}\n  a"\n`);
    expect(value('\t'.repeat(38) + ' a')).toBe(`v: "${'\\t'.repeat(38)} a"\n`);
  });

  it('counts code points, not bytes', () => {
    const s = 'é'.repeat(76) + ' b c';
    // "v: " + 76 é = column 79, then " b" reaches 81, and the space before "c" is at column 81.
    expect(value(s)).toBe(`v: ${'é'.repeat(76)} b\n  c\n`);
  });

  it('never folds simple keys', () => {
    const k = 'word '.repeat(20).trim();
    expect(emitYaml({ [k]: 1 })).toBe(`${k}: 1\n`);
  });
});

describe('mapping keys', () => {
  it('quotes keys by the same rules', () => {
    expect(emitYaml({ y: 1, '1': 'x', '': 'v', 'a: b': 'v' })).toBe('"": v\n"1": x\n\'a: b\': v\n"y": 1\n');
  });

  it('writes long and multi-line keys as "? key" then ": value"', () => {
    const long = 'k'.repeat(129);
    expect(emitYaml({ [long]: 'v' })).toBe(`? ${long}\n: v\n`);
    expect(emitYaml({ 'a\nb': 'v' })).toBe('? |-\n  a\n  b\n: v\n');
    expect(emitYaml({ ['k'.repeat(128)]: 'v' })).toBe(`${'k'.repeat(128)}: v\n`);
    // 43 three-byte characters are 129 bytes.
    expect(emitYaml({ ['中'.repeat(43)]: 1 })).toBe(`? ${'中'.repeat(43)}\n: 1\n`);
  });

  it('folds a long "? key" like a value', () => {
    const words = (n: number): string => Array.from({ length: n }, () => 'word').join(' ');
    expect(emitYaml({ [words(30)]: 1 })).toBe(`? ${words(16)}\n  ${words(14)}\n: 1\n`);
  });

  it('starts the value of a "? key" on the ": " line', () => {
    const long = 'k'.repeat(129);
    expect(emitYaml({ [long]: { a: 1, b: 2 } })).toBe(`? ${long}\n: a: 1\n  b: 2\n`);
    expect(emitYaml({ [long]: ['x', 'w'] })).toBe(`? ${long}\n: - x\n  - w\n`);
  });
});
