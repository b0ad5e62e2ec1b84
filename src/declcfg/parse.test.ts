import { describe, expect, it } from 'vitest';
import {
  parseCatalogBytes,
  parseCatalogText,
  partCuts,
  YAML_PART_BYTES,
  type ParsedText,
  type RawBlob,
} from './parse.js';
import { NOT_BYTE_CHARS, type ByteChars } from './byte-chars.js';
import { firstInvalidUtf8 } from '../go/utf8.js';
import { scanJsonValue } from '../go/json-scan.js';

function summary(text: string): unknown {
  const r = parseCatalogText(text);
  return {
    blobs: r.blobs.map((b) => [b.line, b.value]),
    issues: r.issues.map((i) => [i.line, i.rule, i.message]),
  };
}

describe('JSON streams', () => {
  it('reads an escaped surrogate that is not half of a pair as U+FFFD, as Go does, keys included', () => {
    const text =
      '{"a":"\\ud800x","\\udc00":"\\ud83d\\ude00","b":["\\ud83d\\u0041",{"\\uDBFF\\uDBFF":"\\\\ud800"}]}\n' +
      '{"c":"\\u00e9\\ud834\\udd1e"}\n';
    const expected = [
      { a: '\ufffdx', '\ufffd': '\u{1f600}', b: ['\ufffdA', { '\ufffd\ufffd': '\\ud800' }] },
      { c: '\u00e9\u{1d11e}' },
    ];
    expect(parseCatalogText(text).blobs.map((b) => b.value)).toStrictEqual(expected);
    // Left to the caller, the checks fail for a blob with an escaped surrogate, and pass without.
    const byteChars: ByteChars = { used: false, deferChecks: true };
    const deferred = parseCatalogBytes(Buffer.from(text + '{"d":"\\u0041"}'), 1, undefined, byteChars);
    expect(byteChars.deferred).toBe(true);
    expect(deferred.blobs.map((b) => b.unchecked?.check())).toStrictEqual([false, false, true]);
    expect(parseCatalogBytes(Buffer.from(text)).blobs.map((b) => b.value)).toStrictEqual(expected);
  });

  it('takes two keys that become one for a key written twice, as Go does', () => {
    const r = parseCatalogText('{"v":{"\\ud800":1,"b":2,"\\udc00":3}}\n{"\\uDBFF":1,"\\uDFFF":2}\n');
    // Nested: the value and place of a key written twice, with its warning; a blob's own: an error.
    expect(Object.entries(r.blobs[0]?.value.v ?? {})).toStrictEqual([
      ['\ufffd', 3],
      ['b', 2],
    ]);
    expect(r.issues.map((i) => [i.line, i.severity, i.message.slice(0, 17)])).toStrictEqual([
      [1, 'warning', 'duplicate key "\ufffd"'],
      [2, 'error', 'duplicate key "\ufffd"'],
    ]);
  });

  it('splits concatenated and newline-separated objects, with lines', () => {
    expect(summary('  \n{"a":1}{"b":2}\n\n{\n  "c": 3\n}\n')).toStrictEqual({
      blobs: [
        [2, { a: 1 }],
        [2, { b: 2 }],
        [4, { c: 3 }],
      ],
      issues: [],
    });
  });

  it('is not fooled by strings holding "} {" many times', () => {
    const tricky = { schema: 'x', d: '} {'.repeat(50), e: '}\n{', f: '\\"}{' };
    const text = `${JSON.stringify(tricky)}\n${JSON.stringify({ n: 2 })}`;
    expect(summary(text)).toStrictEqual({
      blobs: [
        [1, tricky],
        [2, { n: 2 }],
      ],
      issues: [],
    });
  });

  it('cuts indented blobs at their last line, and one-line blobs before and after them', () => {
    const text =
      '{"a": {"x": 1}}\n{"b": "}"}\n{\n    "c": {\n        "e": "}\\n{"\n    }\n}\n{"d": {}}\n{"f": 3}   \n';
    expect(summary(text)).toStrictEqual({
      blobs: [
        [1, { a: { x: 1 } }],
        [2, { b: '}' }],
        [3, { c: { e: '}\n{' } }],
        [8, { d: {} }],
        [9, { f: 3 }],
      ],
      issues: [],
    });
  });

  it('reads the rest as YAML after a failure at the first or second value, as opm does', () => {
    expect(summary('{"a": 1}\n---\nb: 2\n---\nc: yes\n')).toStrictEqual({
      blobs: [
        [1, { a: 1 }],
        [3, { b: 2 }],
        [5, { c: true }],
      ],
      issues: [],
    });
    expect(summary('{a: 1, b: on}\n')).toStrictEqual({ blobs: [[1, { a: 1, b: true }]], issues: [] });
  });

  it('reports the JSON error when both readings fail, or after two values', () => {
    expect(summary('{"a": 1}\n{"b": tru}\n')).toStrictEqual({
      blobs: [
        [1, { a: 1 }],
        [2, { b: 'tru' }],
      ],
      issues: [],
    });
    expect(summary('{"a": 1}\n{"b": [}\n')).toStrictEqual({
      blobs: [[1, { a: 1 }]],
      issues: [[2, 'parse.json', "unexpected character '}'"]],
    });
    expect(summary('{"a": 1}\n{"b": 2}\n{"c": [1,\n2,,]}\n')).toStrictEqual({
      blobs: [
        [1, { a: 1 }],
        [2, { b: 2 }],
      ],
      issues: [[4, 'parse.json', "unexpected character ','"]],
    });
  });

  it('flags duplicate keys as warnings and keeps the last value', () => {
    const r = parseCatalogText('{"a": {"k": 1,\n "k": 2}, "b": "\\"k\\": 3"}');
    expect(r.blobs).toStrictEqual([{ value: { a: { k: 2 }, b: '"k": 3' }, line: 1 }]);
    expect(r.issues.map((i) => [i.line, i.severity, i.message])).toStrictEqual([
      [2, 'warning', 'duplicate key "k"; the last value is used (as opm does)'],
    ]);
  });

  it('tells strings that start with a colon from keys, and finds duplicates written with blanks', () => {
    // The key count of the text takes `": x"` for a key: the scanner then finds no duplicate.
    const colons = '{"a": ": x", "b": [" :", {"\\\\": 1}], "c": {"d" :\n ":"}}';
    expect(parseCatalogText(colons)).toStrictEqual({
      blobs: [{ value: JSON.parse(colons), line: 1 }],
      issues: [],
    });
    const spaced = parseCatalogText('{"a": ":", "o": {\n "k"\t :1, "k"\n:2}}');
    expect(spaced.blobs).toStrictEqual([{ value: { a: ':', o: { k: 2 } }, line: 1 }]);
    expect(spaced.issues.map((i) => [i.line, i.severity, i.message])).toStrictEqual([
      [2, 'warning', 'duplicate key "k"; the last value is used (as opm does)'],
    ]);
  });

  it('reports a number too large for a float64 before a duplicate key', () => {
    const r = parseCatalogText('{"a": 1, "a": 2,\n "n": [1e999]}');
    expect(r.issues.map((i) => [i.line, i.rule, i.message])).toStrictEqual([
      [
        2,
        'parse.json',
        'json: cannot unmarshal number 1e999 into Go value of type float64 (it exceeds the largest float64)',
      ],
    ]);
  });
});

describe('JSON streams taken blob by blob', () => {
  it('give the blobs and issues of the whole stream, the YAML read after a second value included', () => {
    const texts = [
      '{"a": 1}\n{"b": 2}\n{"c": 3}\n',
      '{"a": 1}\n---\nb: 2\n---\nc: yes\n', // read as YAML after the first value
      '{"a": 1}\n{"b": 2}\n{"c": \n', // an error at the third: the first two stay
      '{"a": 1}\n[1]\n{"b": {"c": 1, "c": 2}}\n{"d": 4}', // not an object, a duplicate key
      '{"a": 1}',
      '{"a": 1}\n{oops',
    ];
    for (const text of texts) {
      const taken: RawBlob[] = [];
      const streamed = parseCatalogText(text, 3, true, (b) => taken.push(b));
      const whole = parseCatalogText(text, 3, true);
      expect(streamed.blobs).toStrictEqual([]);
      expect({ blobs: taken, issues: streamed.issues }).toStrictEqual(whole);
    }
  });
});

describe('scanJsonValue', () => {
  it.each([
    ['{"a": [1, 2.5e3, -0, true, null, "x\\u00e9"]} tail', { ok: true, end: 44 }],
    ['{"a" 1}', { ok: false, at: 5, message: "unexpected character '1'; expected ':' after object key" }],
    ['{"a": "b\nc"}', { ok: false, at: 8, message: 'control character in string' }],
    ['{"a": "\\x"}', { ok: false, at: 7, message: 'invalid escape sequence in string' }],
    ['{"a": "b', { ok: false, at: 8, message: 'unterminated string' }],
    [
      '[1 2]',
      { ok: false, at: 3, message: "unexpected character '2'; expected ',' or ']' after array element" },
    ],
    ['{1: 2}', { ok: false, at: 1, message: "unexpected character '1'; expected a string as object key" }],
    ['[[[[1]]]]', { ok: false, at: 3, message: 'nesting deeper than 3 levels' }],
  ])('%j', (text, want) => {
    expect(scanJsonValue(text, 0, 3)).toStrictEqual(want);
  });
});

describe('YAML streams', () => {
  it('skips empty and comment-only documents and keeps going after a bad document', () => {
    expect(summary('# head\n---\na: 1\n---\n# nothing\n---\nb: [\n---\nc: 0x10\n')).toStrictEqual({
      blobs: [
        [3, { a: 1 }],
        [9, { c: 16 }],
      ],
      issues: [[8, 'parse.yaml', 'unexpected end of the stream within a flow collection']],
    });
  });
});

describe('bytes', () => {
  it('finds the first invalid UTF-8 sequence', () => {
    expect(firstInvalidUtf8(Buffer.from('ok é ✓ 😀'))).toBe(-1);
    expect(firstInvalidUtf8(Buffer.from([0x61, 0xc3]))).toBe(1);
    expect(firstInvalidUtf8(Buffer.from([0x61, 0xc0, 0x80]))).toBe(1);
    expect(firstInvalidUtf8(Buffer.from([0xed, 0xa0, 0x80]))).toBe(0);
    expect(firstInvalidUtf8(Buffer.from([0x61, 0x62, 0xff]))).toBe(2);
  });

  it('refuses NUL bytes and invalid UTF-8 with their line', () => {
    expect(parseCatalogBytes(Buffer.from('a: 1\nb: \u0000\n')).issues).toStrictEqual([
      {
        rule: 'parse.binary',
        severity: 'error',
        message: 'file contains a NUL byte at offset 8; binary files are not catalog files',
        line: 2,
      },
    ]);
    expect(parseCatalogBytes(Buffer.from([0x61, 0x0a, 0x0a, 0xff]), 10).issues[0]?.line).toBe(12);
  });

  it('strips a byte-order mark before choosing JSON', () => {
    expect(parseCatalogBytes(Buffer.from('\ufeff{"a": 1}')).blobs).toStrictEqual([
      { value: { a: 1 }, line: 1 },
    ]);
  });
});

describe('large YAML files read part by part', () => {
  /** A catalog file of `n` bundles, the 7th over YAML_PART_BYTES on its own, with what varies between files. */
  function bigFile(n: number, nl = '\n', extra: (i: number) => string = () => ''): string {
    const docs = ['# a comment before the first document', ''];
    for (let i = 0; i < n; i++) {
      const size = i === 7 ? 70_000 : 2_000 + ((i * 7919) % 30_000);
      docs.push(
        i % 3 === 0 ? '--- # bundle' : i % 3 === 1 ? '---  ' : '---',
        'schema: olm.bundle',
        `name: pkg.v0.${i}.0`,
        'package: pkg',
        'description: |',
        ...Array.from(
          { length: Math.ceil(size / 60) },
          (_, k) => `  line ${k} of bundle ${i}: ${'x'.repeat(40)}`,
        ),
        `image: quay.io/pkg/bundle:v0.${i}.0${extra(i)}`,
        '',
      );
    }
    return docs.join(nl);
  }

  /** What the parse gives with blobs taken one by one (the parts, when it may) and all at once (the whole text). */
  function both(text: string | Buffer, firstLine = 5): { parts: unknown; whole: unknown } {
    const buf = typeof text === 'string' ? Buffer.from(text) : text;
    const taken: RawBlob[] = [];
    const parts = parseCatalogBytes(buf, firstLine, (b) => taken.push(b));
    const whole = parseCatalogBytes(buf, firstLine);
    expect(parts.blobs).toStrictEqual([]);
    return {
      parts: { blobs: taken, issues: parts.issues },
      whole: { blobs: whole.blobs, issues: whole.issues },
    };
  }

  it('cuts before --- lines into parts of at most YAML_PART_BYTES, a longer document a part of its own', () => {
    const buf = Buffer.from(bigFile(40));
    const cuts = partCuts(buf, YAML_PART_BYTES) ?? [];
    expect(cuts.length).toBeGreaterThan(6);
    expect(cuts[0]).toBe(0);
    expect(cuts.at(-1)).toBe(buf.length);
    const sizes = cuts.slice(1).map((c, i) => c - (cuts[i] as number));
    // One part is the long document alone; the others fit.
    expect(sizes.filter((s) => s > YAML_PART_BYTES)).toHaveLength(1);
    for (const c of cuts.slice(1, -1)) expect(buf.toString('latin1', c, c + 3)).toBe('---');
  });

  it('gives the blobs, lines and issues of the whole text', () => {
    const ascii = both(bigFile(40));
    expect((ascii.whole as { blobs: unknown[] }).blobs).toHaveLength(40);
    expect(ascii.parts).toStrictEqual(ascii.whole);
    // Line ends of Windows, text outside ASCII (and a byte-order mark), problems in some documents.
    const crlf = both(bigFile(30, '\r\n'));
    expect(crlf.parts).toStrictEqual(crlf.whole);
    const utf8 = both('\ufeff' + bigFile(30, '\n', (i) => (i % 4 === 0 ? '\nlabel: "é✓😀"' : '')));
    expect(utf8.parts).toStrictEqual(utf8.whole);
    const bad = both(bigFile(30, '\n', (i) => (i === 5 ? '\nx: [' : i === 20 ? '\nname: again' : '')));
    expect((bad.whole as { issues: unknown[] }).issues).toHaveLength(2);
    expect(bad.parts).toStrictEqual(bad.whole);
  });

  it('leaves a file whose separator would end the parse, invalid UTF-8 or JSON to the whole text', () => {
    const text = bigFile(30);
    const separator = both(text + '\n--- not a separator\na: 1\n');
    expect((separator.whole as { issues: { message: string }[] }).issues[0]?.message).toMatch(/separator/);
    expect(separator.parts).toStrictEqual(separator.whole);
    expect(partCuts(Buffer.from(text + '\n--- x\n'), YAML_PART_BYTES)).toBeUndefined();
    const invalid = both(
      Buffer.concat([Buffer.from(text), Buffer.from([0x0a, 0x61, 0x3a, 0x20, 0xff, 0x0a])]),
    );
    expect(invalid.parts).toStrictEqual(invalid.whole);
    const json = both(
      ' \n' + JSON.stringify({ schema: 'olm.package', name: 'p', d: 'x\n---\n'.repeat(20_000) }),
    );
    expect((json.whole as { blobs: unknown[] }).blobs).toHaveLength(1);
    expect(json.parts).toStrictEqual(json.whole);
  });
});

describe('large JSON files read part by part', () => {
  /** A JSON stream of `n` blobs as opm writes them (four spaces, one value after another), with `extra` in some. */
  function bigJson(n: number, extra: (i: number) => string = () => ''): string {
    const values: string[] = [];
    for (let i = 0; i < n; i++) {
      const blob = {
        schema: 'olm.bundle',
        name: `pkg.v0.${i}.0`,
        package: 'pkg',
        properties: [
          { type: 'olm.csv.metadata', value: { description: `${'d'.repeat(3000 + ((i * 7919) % 9000))}\n` } },
        ],
      };
      values.push(JSON.stringify(blob, null, 4) + extra(i));
    }
    return values.join('\n') + '\n';
  }

  function both(text: string | Buffer): { parts: unknown; whole: unknown } {
    const buf = typeof text === 'string' ? Buffer.from(text) : text;
    const taken: RawBlob[] = [];
    const parts = parseCatalogBytes(buf, 5, (b) => taken.push(b));
    const whole = parseCatalogBytes(buf, 5);
    expect(parts.blobs).toStrictEqual([]);
    return {
      parts: { blobs: taken, issues: parts.issues },
      whole: { blobs: whole.blobs, issues: whole.issues },
    };
  }

  it('gives the blobs, lines and issues of the whole text', () => {
    const plain = both(bigJson(60));
    expect((plain.whole as { blobs: unknown[] }).blobs).toHaveLength(60);
    expect(plain.parts).toStrictEqual(plain.whole);
    // Outside ASCII, a byte-order mark, a duplicate key, a value that is not an object.
    const odd = both(
      '\ufeff' +
        bigJson(60, (i) => (i === 20 ? '\n["not an object"]' : i === 40 ? '\n{"a": 1, "a": "é✓😀"}' : '')),
    );
    expect((odd.whole as { issues: unknown[] }).issues).toHaveLength(2);
    expect(odd.parts).toStrictEqual(odd.whole);
    // White space longer than a part before the first value.
    const spaced = both(' '.repeat(70_000) + '\n' + bigJson(20));
    expect(spaced.parts).toStrictEqual(spaced.whole);
  });

  it('reads a value that runs on past a part, and what follows an error, as the whole text does', () => {
    // An object starting a line inside a value, where the first part is cut (past YAML_PART_BYTES).
    const first = JSON.stringify({ schema: 'x', pad: 'p'.repeat(YAML_PART_BYTES - 2_000) });
    const inner = `{"schema": "y", "pad": "${'q'.repeat(5_000)}", "inner":\n{"a": 1}}`;
    expect(first.length + 1 + inner.indexOf('\n{')).toBeGreaterThan(YAML_PART_BYTES);
    const nested = both(`${first}\n${inner}\n${bigJson(20)}`);
    expect((nested.whole as { blobs: unknown[] }).blobs).toHaveLength(22);
    expect(nested.parts).toStrictEqual(nested.whole);
    // An error in the middle: the blobs before it, one issue, nothing after.
    const broken = both(bigJson(40, (i) => (i === 25 ? '\n{"schema": oops}' : '')));
    expect((broken.whole as { issues: unknown[] }).issues).toHaveLength(1);
    expect(broken.parts).toStrictEqual(broken.whole);
    // A failure at the second value: the rest is read as YAML.
    const yaml = both(
      bigJson(1) + '---\n' + Array.from({ length: 3000 }, (_, i) => `k${i}: v${i}`).join('\n') + '\n',
    );
    expect((yaml.whole as { blobs: unknown[] }).blobs).toHaveLength(2);
    expect(yaml.parts).toStrictEqual(yaml.whole);
  });
});

describe('JSON files beyond ASCII read one character per byte', () => {
  /** The file parsed blob by blob with ByteChars asked for: blobs, issues and whether it was read so. */
  function byBytes(text: string): { blobs: RawBlob[]; issues: ParsedText['issues']; used: boolean } {
    const asked: ByteChars = { used: false };
    const blobs: RawBlob[] = [];
    const parsed = parseCatalogBytes(Buffer.from(text), 1, (b) => blobs.push(b), asked);
    return { blobs, issues: parsed.issues, used: asked.used };
  }
  /** A string of the text's UTF-8 bytes, one character per byte. */
  const bytesOf = (s: string): string => Buffer.from(s).toString('latin1');

  it('holds each string as its UTF-8 bytes, small files and files read in parts', () => {
    const blob = { schema: 'olm.package', name: 'é✓😀', description: 'naïve ✓ 😀' };
    const small = byBytes(JSON.stringify(blob, null, 4) + '\n');
    expect(small.used).toBe(true);
    expect(small.issues).toStrictEqual([]);
    expect(small.blobs.map((b) => b.value)).toStrictEqual([
      { schema: 'olm.package', name: bytesOf('é✓😀'), description: bytesOf('naïve ✓ 😀') },
    ]);
    const pad = 'p'.repeat(YAML_PART_BYTES);
    const large = byBytes([1, 2, 3].map((i) => JSON.stringify({ ...blob, pad, i }, null, 4)).join('\n'));
    expect(large.used).toBe(true);
    expect(large.blobs.map((b) => [b.line, b.value.i, b.value.name])).toStrictEqual([
      [1, 1, bytesOf('é✓😀')],
      [8, 2, bytesOf('é✓😀')],
      [15, 3, bytesOf('é✓😀')],
    ]);
  });

  it('reads as text what one character per byte would read otherwise', () => {
    const text = (s: string): boolean => byBytes(`{"schema": "x", "v": ${JSON.stringify(s)}, "w": "é"}`).used;
    expect(text('plain')).toBe(true);
    // Escapes of ASCII characters give one character either way; others one, where the bytes give several.
    expect(byBytes('{"schema": "x", "v": "\\u0041\\u007f", "w": "é"}').used).toBe(true);
    expect(byBytes('{"schema": "x", "v": "\\u00e9", "w": "é"}').used).toBe(false);
    expect(byBytes('{"schema": "x", "v": "\\ud83d\\ude00", "w": "é"}').used).toBe(false);
    // Go escapes the separators; the Kelvin sign lower-cases to `k`; a byte-order mark; YAML.
    expect(text('a\u2028b')).toBe(false);
    expect(text('a\u2029b')).toBe(false);
    expect(text('\u212a')).toBe(false);
    expect(byBytes('\ufeff{"schema": "x", "w": "é"}').used).toBe(false);
    expect(byBytes('schema: x\nw: é\n').used).toBe(false);
    // ASCII files are read one character per byte as always, without being told.
    expect(byBytes('{"schema": "x"}').used).toBe(false);
  });

  it('stops at a key beyond ASCII at the top of a blob, and reads no YAML after a failure', () => {
    const key = byBytes('{"schema": "x", "w": "é"}\n{"schema": "y", "é": 1}\n');
    expect(key.used).toBe(true);
    expect(key.issues).toStrictEqual([
      { rule: 'parse.json', severity: 'error', message: NOT_BYTE_CHARS, line: 2 },
    ]);
    // Nested keys beyond ASCII are values like any other.
    expect(byBytes('{"schema": "y", "v": {"é": 1}}').issues).toStrictEqual([]);
    // Text read as text goes on as YAML after a failure at the second value; read by bytes, it fails.
    const yaml = '{"schema": "x", "w": "é"}\n---\nschema: y\n';
    expect(parseCatalogText(yaml).blobs).toHaveLength(2);
    expect(byBytes(yaml).issues.map((i) => i.rule)).toStrictEqual(['parse.json']);
  });
});

describe('JSON blobs whose checks are left to the caller', () => {
  function deferred(text: string): { blobs: RawBlob[]; issues: ParsedText['issues'] } {
    const blobs: RawBlob[] = [];
    const parsed = parseCatalogBytes(Buffer.from(text), 1, (b) => blobs.push(b), {
      used: false,
      deferChecks: true,
    });
    return { blobs, issues: parsed.issues };
  }

  it('hands over each object with its bytes and the checks, which report nothing themselves, without lines', () => {
    const text = '{"schema": "a"}\n  {"schema": "b", "v": {"k": 1, "k": 2}}\n[1]\n';
    const { blobs, issues } = deferred(text);
    expect(issues.map((i) => i.rule)).toStrictEqual(['parse.not-object']);
    // Lines are left uncounted with the checks (0): the caller reads the file again to say anything.
    expect(blobs.map((b) => [b.line, b.value.schema])).toStrictEqual([
      [0, 'a'],
      [0, 'b'],
    ]);
    const [a, b] = blobs.map((x) => x.unchecked);
    expect(text.slice(a?.from, a?.to)).toBe('{"schema": "a"}');
    expect(text.slice(b?.from, b?.to)).toBe('{"schema": "b", "v": {"k": 1, "k": 2}}');
    expect(a?.check()).toBe(true);
    expect(b?.check()).toBe(false);
  });

  it('gives the offsets in the file of blobs read in parts, and none beyond ASCII unless read by bytes', () => {
    const values = [1, 2, 3].map((i) =>
      JSON.stringify({ schema: 'x', i, pad: 'p'.repeat(YAML_PART_BYTES) }, null, 4),
    );
    const text = values.join('\n') + '\n';
    const { blobs } = deferred(text);
    expect(blobs.map((b) => text.slice(b.unchecked?.from, b.unchecked?.to))).toStrictEqual(values);
    // Text beyond ASCII read as text: offsets in it are not offsets in the bytes.
    expect(deferred('{"schema": "x", "v": "\\u00e9é"}').blobs[0]?.unchecked).toBeUndefined();
    expect(deferred('{"schema": "x", "v": "é"}').blobs[0]?.unchecked?.to).toBe(
      Buffer.from('{"schema": "x", "v": "é"}').length,
    );
    // Said of a JSON file only: a YAML file is read as usual, with its lines.
    const said = (text: string): boolean | undefined => {
      const asked: ByteChars = { used: false, deferChecks: true };
      parseCatalogBytes(Buffer.from(text), 1, () => undefined, asked);
      return asked.deferred;
    };
    expect(said('{"schema": "x"}')).toBe(true);
    expect(said('schema: x\n')).toBeUndefined();
  });
});
