import jsYaml from 'js-yaml';
import { describe, expect, it, vi } from 'vitest';
import { parseYamlDocuments } from '../../test/yaml-documents.js';
import { goFloat32Key, parseYamlDocument, YamlError } from './yaml11.js';
import { splitYamlDocuments } from './split-documents.js';

function value(yaml: string): unknown {
  const doc = parseYamlDocument(`v: ${yaml}\n`);
  return typeof doc === 'object' && doc !== null && !Array.isArray(doc) ? doc['v'] : undefined;
}

describe('YAML 1.1 scalar resolution (go-yaml v2)', () => {
  it.each([
    ['y', true],
    ['Y', true],
    ['yes', true],
    ['Yes', true],
    ['YES', true],
    ['on', true],
    ['On', true],
    ['ON', true],
    ['true', true],
    ['True', true],
    ['TRUE', true],
    ['n', false],
    ['N', false],
    ['no', false],
    ['NO', false],
    ['off', false],
    ['Off', false],
    ['false', false],
    ['FALSE', false],
    ['tRUE', 'tRUE'],
    ['yES', 'yES'],
    ['~', null],
    ['null', null],
    ['Null', null],
    ['NULL', null],
    ['nULL', 'nULL'],
    ['', null],
    ['0', 0],
    ['-0', 0],
    ['42', 42],
    ['+42', 42],
    ['-42', -42],
    ['1_000', 1000],
    ['0x1F', 31],
    ['0X1f', 31],
    ['-0x1F', -31],
    ['0x_1F', 31],
    ['0o17', 15],
    ['0O17', 15],
    ['017', 15],
    ['-017', -15],
    ['0b101', 5],
    ['0B101', 5],
    ['-0b101', -5],
    ['08', 8],
    ['09.5', 9.5],
    ['1.10', 1.1],
    ['4.10', 4.1],
    ['1.', 1],
    ['.5', 0.5],
    ['-.5', -0.5],
    ['+.5', 0.5],
    ['1e3', 1000],
    ['1.5E-2', 0.015],
    ['1_0.5', 10.5],
    // As go-yaml (run against these inputs): ParseFloat takes `_` between digits.
    ['.5_0', 0.5],
    ['.5e1_0', 5e9],
    ['._5', '._5'],
    ['.5__0', '.5__0'],
    ['.', '.'],
    ['1e400', '1e400'],
    ['0xFFFFFFFFFFFFFFFF', Number(18446744073709551615n)],
    ['+0xFFFFFFFFFFFFFFFF', '+0xFFFFFFFFFFFFFFFF'],
    ['0x1FFFFFFFFFFFFFFFF', '0x1FFFFFFFFFFFFFFFF'],
    ['-9223372036854775809', Number(-9223372036854775809n)],
    ['0x1p-2', '0x1p-2'],
    ['1.2.3', '1.2.3'],
    ['v1.0.0', 'v1.0.0'],
    ['2001-12-14', '2001-12-14'],
    ['2001-12-14t21:59:43.10-05:00', '2001-12-14t21:59:43.10-05:00'],
    ['1:30', '1:30'],
    ['190:20:30', '190:20:30'],
    ['_1', '_1'],
    ['+', '+'],
    ['+-', '+-'],
    ['0x', '0x'],
    ['"yes"', 'yes'],
    ["'1.10'", '1.10'],
    ['!!str 1', '1'],
    ['!!int "12"', 12],
    ['!!bool "on"', true],
    ['!!null ""', null],
    ['[1, tRUE, True, off]', [1, 'tRUE', true, false]],
  ])('%s', (input, expected) => {
    expect(value(input)).toStrictEqual(expected);
  });

  it.each([['.inf'], ['-.Inf'], ['+.INF'], ['.nan'], ['.NaN']])('%s has no JSON form', (input) => {
    expect(() => value(input)).toThrow(/cannot be represented in JSON/);
  });
});

describe('map keys as Go stringifies them', () => {
  it.each([
    ['yes: x', 'true'],
    ['off: x', 'false'],
    ['0x10: x', '16'],
    ['017: x', '15'],
    ['1.5: x', '1.5'],
    ['1.10: x', '1.1'],
    ['1.0: x', '1'],
    ['1e6: x', '1e+06'],
    ['1e-7: x', '1e-07'],
    ['3.14159265: x', '3.1415927'],
    ['12345678901234567890: x', '12345678901234567890'],
    ['"1e6": x', '1e6'],
    ["'~': x", '~'],
  ])('%s', (input, key) => {
    expect(parseYamlDocument(input)).toStrictEqual({ [key]: 'x' });
  });

  it.each([['~: x'], ['null: x'], ['a:\n  NULL: 1']])('null key %j is an error', (input) => {
    expect(() => parseYamlDocument(input)).toThrow(/null map key/);
  });

  it('reads a document once when such scalars are only values', () => {
    const load = vi.spyOn(jsYaml, 'load');
    try {
      // The comment sends the document to js-yaml (the block reader leaves comments to it).
      const doc = 'metadata:\n  creationTimestamp: null # c\nspec:\n  ratio: 1.0\n  big: 9007199254740993\n';
      expect(parseYamlDocument(doc)).toStrictEqual({
        metadata: { creationTimestamp: null },
        spec: { ratio: 1, big: 9007199254740992 },
      });
      expect(load).toHaveBeenCalledTimes(1);
    } finally {
      load.mockRestore();
    }
  });

  it('tells a quoted "null" key from a null key, and a quoted number key from a number', () => {
    expect(parseYamlDocument('"null": 1\na: ~\n')).toStrictEqual({ null: 1, a: null });
    expect(parseYamlDocument('"1": a\nb: 1.0\n')).toStrictEqual({ 1: 'a', b: 1 });
    expect(() => parseYamlDocument('"null": 1\nb:\n  ~: 2\n')).toThrow(/null map key/);
  });

  it('keeps values exact when a document needs the exact pass', () => {
    expect(parseYamlDocument('1e6: [~, 1.5, 9007199254740993, 3.14159265]\nb: 0x10\n')).toStrictEqual({
      '1e+06': [null, 1.5, 9007199254740992, 3.14159265],
      b: 16,
    });
  });
});

describe('goFloat32Key', () => {
  it.each([
    [1e6, '1e+06'],
    [123456, '123456'],
    [1234567, '1.234567e+06'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [1.1, '1.1'],
    [100, '100'],
    [1e21, '1e+21'],
    [-2.5e-10, '-2.5e-10'],
    [16777217, '1.6777216e+07'],
    [-0, '-0'],
  ])('%d', (x, s) => {
    expect(goFloat32Key(x)).toBe(s);
  });
});

describe('errors', () => {
  it.each([
    ['a: 1\na: 2\n', 2, /duplicated mapping key/],
    ['a:\n  b: 1\n  c: [1, 2\n', 4, /flow collection/],
    ['a: b: c\n', 1, /bad indentation|mapping/],
    ['a: !!binary aGVsbG8\n', 1, /binary/],
    ['a: !!timestamp yesterday\n', 1, /timestamp/],
    ['a: !!int 1.5\n', 1, /int/],
  ])('%j', (input, line, reason) => {
    let caught: unknown;
    try {
      parseYamlDocument(input);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(YamlError);
    if (caught instanceof YamlError) {
      expect(caught.line).toBe(line);
      expect(caught.reason).toMatch(reason);
    }
  });

  it('reports lines relative to the first line given', () => {
    expect(() => parseYamlDocument('a: 1\na: 2\n', 10)).toThrow(/^line 11: duplicated mapping key/);
  });

  it('refuses deep nesting without overflowing the stack', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    expect(() => parseYamlDocument(deep)).toThrow(YamlError);
  });

  it('accepts a thousand levels', () => {
    expect(parseYamlDocument('['.repeat(900) + ']'.repeat(900))).toBeDefined();
  });
});

describe('document splitting', () => {
  it('splits at --- lines and gives each document its first content line', () => {
    const text = '# head\n\n---\na: 1\n---   # note\n# only a comment\n---\n\nb: 2\nc: 3\n---\n';
    expect(splitYamlDocuments(text)).toStrictEqual([
      { text: 'a: 1\n', line: 4, index: 1 },
      { text: 'b: 2\nc: 3\n', line: 9, index: 3 },
    ]);
    expect(parseYamlDocuments(text)).toStrictEqual([
      { value: { a: 1 }, line: 4 },
      { value: { b: 2, c: 3 }, line: 9 },
    ]);
  });

  it('counts blank documents but not empty ones, as Go reads the stream', () => {
    expect(splitYamlDocuments('---\n---\na: 1\n')).toStrictEqual([{ text: 'a: 1\n', line: 3, index: 0 }]);
    expect(splitYamlDocuments('\n---\na: 1\n')).toStrictEqual([{ text: 'a: 1\n', line: 3, index: 1 }]);
  });

  it('handles CRLF, a missing final newline and a leading byte-order mark', () => {
    expect(parseYamlDocuments('\ufeffa: 1\r\n---\r\nb: 2')).toStrictEqual([
      { value: { a: 1 }, line: 1 },
      { value: { b: 2 }, line: 3 },
    ]);
  });

  it('does not split at --- inside a line', () => {
    expect(parseYamlDocuments('a: x --- y\nb: |\n  z\n  ---\n')).toStrictEqual([
      { value: { a: 'x --- y', b: 'z\n---\n' }, line: 1 },
    ]);
  });

  it.each([['---x\n'], ['a: 1\n--- {b: 1}\n'], ['----\n']])('refuses separator %j as opm does', (text) => {
    expect(() => splitYamlDocuments(text)).toThrow(/invalid Yaml document separator/);
  });

  it('yields nothing for empty and comment-only streams', () => {
    expect(parseYamlDocuments('')).toStrictEqual([]);
    expect(parseYamlDocuments('\n\n# x\n---\n---\n')).toStrictEqual([]);
  });
});

describe('YAML 1.1 tags as go-yaml v2 reads them', () => {
  it.each([
    ['a: !!binary aGVsbG8=\n', { a: 'hello' }],
    ['a: !!binary |\n  aGVs\n  bG8=\n', { a: 'hello' }],
    ['a: !!binary /w==\n', { a: '\ufffd' }],
    ['a: !!set {p, q}\n', { a: { p: null, q: null } }],
    ['a: !!omap [{p: 1}, {q: 2}]\n', { a: [{ p: 1 }, { q: 2 }] }],
    ['a: !!pairs [{x: 1}, {x: 2}]\n', { a: [{ x: 1 }, { x: 2 }] }],
    ['a: !!timestamp 2001-12-14t21:59:43.10-05:00\n', { a: '2001-12-14t21:59:43.10-05:00' }],
    ['a: !!value =\n', { a: '=' }],
    ['a: !local 5\n', { a: '5' }],
    ['a: !<tag:example.com,2000:x> true\n', { a: 'true' }],
    ['a: !!str {x: 1}\n', { a: { x: 1 } }],
    ['a: !!map [1]\n', { a: [1] }],
    ['a: !!int 0x1F\n', { a: 31 }],
  ])('%j', (input, expected) => {
    expect(parseYamlDocument(input)).toEqual(expected);
  });
});

describe('alias expansion', () => {
  const bomb = (levels: number): string => {
    let doc = 'a0: &a0 [x, x, x, x, x, x, x, x, x]\n';
    for (let i = 1; i <= levels; i++)
      doc += `a${i}: &a${i} [${Array(9)
        .fill(`*a${i - 1}`)
        .join(', ')}]\n`;
    return doc;
  };

  it('refuses a document whose aliases expand beyond what go-yaml allows', () => {
    expect(() => parseYamlDocument(bomb(9), 5)).toThrow(/^line 5: document contains excessive aliasing/);
    expect(() => parseYamlDocument(bomb(4), 1)).toThrow(/excessive aliasing/);
  });

  it('reads ordinary use of anchors and aliases', () => {
    const v = parseYamlDocument(bomb(2)) as Record<string, unknown[]>;
    expect(v['a2']).toHaveLength(9);
    const shared = 'base: &b {k: v}\n' + Array.from({ length: 200 }, (_, i) => `m${i}: *b\n`).join('');
    expect(Object.keys(parseYamlDocument(shared) as object)).toHaveLength(201);
  });
});
