/**
 * The block reader against js-yaml with our YAML 1.1 schema: wherever it gives a value, js-yaml gives
 * the same value; wherever js-yaml fails, it gives up (so errors, warnings and their positions always
 * come from js-yaml). Checked on hand-picked cases, on every YAML document of the corpus, and on
 * generated and mutated documents.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import jsYaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { corpusDir, haveCorpus } from '../../test/corpus.js';
import { seededRandom } from '../../test/seeded-random.js';
import type { JsonValue } from '../go/json-value.js';
import { marshalIndentByParts } from '../go/json-encode.js';
import { readBlockYaml, type BlockFacts } from './block-reader.js';
import { usualAscii } from './block-chars.js';
import { emitYaml } from './emit.js';
import { resolveYaml11Scalar, YAML11_SCHEMA } from './yaml11.js';
import { splitYamlDocuments } from './split-documents.js';

type Oracle = { ok: true; value: unknown } | { ok: false; reason: string };

function jsYamlRead(text: string): Oracle {
  try {
    return { ok: true, value: jsYaml.load(text, { schema: YAML11_SCHEMA }) };
  } catch (err) {
    return { ok: false, reason: err instanceof jsYaml.YAMLException ? err.reason : String(err) };
  }
}

const read = (text: string): JsonValue | undefined => readBlockYaml(text, resolveYaml11Scalar);

/** The block reader agrees with js-yaml on `text`; returns whether it read it (did not give up). */
function agrees(text: string, label: string): boolean {
  const fast = read(text);
  if (fast === undefined) return false;
  const oracle = jsYamlRead(text);
  if (!oracle.ok)
    throw new Error(`${label}: js-yaml fails (${oracle.reason}) but the block reader read\n${text}`);
  expect(fast, `${label}:\n${text}`).toStrictEqual(oracle.value);
  return true;
}

describe('block reader: values as js-yaml reads them', () => {
  it.each([
    [
      'scalars',
      'a: 1\nb: yes\nc: ~\nd: 0x1F\ne: 1.10\nf: 2024-01-02\ng: "q\\u00e9 \\"x\\""\nh: \'it\'\'s\'\ni: -1\nj: -x\n',
    ],
    ['empty value and collections', 'a:\nb: []\nc: {}\nd: ""\n'],
    ['sequences at the key indentation', 'a:\n- x\n- p: 1\n  q: 2\nb: 2\n'],
    ['sequences indented', 'a:\n  - x\n  - p: 1\n    q:\n      - 3\n'],
    ['literal blocks', 'a: |\n  one\n\n  two\n   three\nb: |-\n  x\n\n\nc: |+\n  y\n\nd: 1\n'],
    ['indentation indicators', 'a: |2\n\n   x\nb:\n  c: |2-\n       y\n\nk:\n- |+1\n   z\n\n'],
    ['folded plain scalar', 'a: one two\n  three\n  four\nb: x\n'],
    ['folded quoted scalars', 'a: \'one\n  two\n\n  three\'\nb: "x \\\n  y\n  z"\n'],
    ['escapes', 'a: "\\t\\n\\x41\\U0001F600\\N\\_\\/"\n'],
    ['keys with colons and quotes', "a:b: 1\nit's: 2\nurl: http://x:80/y\n"],
    ['trailing spaces', 'a: x   \nb:   \n  c: 1\n'],
    ['comment lines', '# head\na: 1\n# c\n  # deeper\nb:\n  # inside\n  c: 2\n#\n# tail\n'],
    ['comment lines in sequences', 'a:\n# c\n- x\n    # c\n- p: 1\n  # c\n  q: 2\n# c\nb: 1\n'],
    ['a comment line ending a plain scalar', 'a: one\n  two\n  # c\nb: x\n'],
    ['a comment line after a blank line', 'a: one\n\n  # c\n\nb: x\n'],
    ['a comment line before a nested value', 'a:\n    # c\n  b: 1\nc:\n# c\n'],
    [
      'comment lines in and after literal blocks',
      'a: |\n  # text\n  x\n # c\nb: |+\n  y\n\n# c\n\nc: |-\n    z\n  # c\n',
    ],
    ['comment lines in quoted scalars', 'a: "x\n  # text\n  y"\nb: \'p\n  # q\'\n# c\n'],
    [
      'an annotations file',
      'annotations:\n  # Core bundle annotations.\n  a.b/c: registry+v1\n\n  # More.\n  d: 4.14-4.17\n    # Indented.\n  e: tests/\n',
    ],
  ])('%s', (label, text) => {
    expect(agrees(text, label)).toBe(true);
  });

  it('tells apart keys of the same length and end characters (one slot of the key cache)', () => {
    expect(read('abcd: 1\nazzd: 2\nsub:\n  azzd: 3\n  abcd: 4\n')).toStrictEqual({
      abcd: 1,
      azzd: 2,
      sub: { azzd: 3, abcd: 4 },
    });
    // `tame` and `true` share a slot: the boolean key is still left to js-yaml.
    expect(read('tame: 1\n')).toStrictEqual({ tame: 1 });
    expect(read('tame: 1\ntrue: 2\n')).toBeUndefined();
    // A key met before is still a duplicate when written twice.
    expect(read('tame: 1\ntame: 2\n')).toBeUndefined();
  });

  it.each([
    ['a comment', 'a: 1 # c\n'],
    ['a comment after a key', 'a: # c\n  b: 1\n'],
    ['a comment line inside a plain scalar', 'a: one\n  # c\n  two\n'],
    ['a comment line first in a literal block, too shallow', 'a:\n  b: |\n  # c\n    x\n'],
    ['a comment line indented by a tab', 'a: 1\n\t# c\nb: 2\n'],
    ['an anchor and an alias', 'a: &x 1\nb: *x\n'],
    ['a tag', 'a: !!binary aGVsbG8=\n'],
    ['a local tag', 'a: !foo x\n'],
    ['a flow sequence', 'a: [1, 2]\n'],
    ['a flow mapping', 'a: {b: 1}\n'],
    ['a folded block', 'a: >\n  x\n'],
    ['a zero indentation indicator', 'a: |0\n   x\n'],
    ['a duplicate key', 'a: 1\na: 2\n'],
    ['a nested duplicate key', 'a:\n  b: 1\n  b: 2\n'],
    ['a merge key', 'a: 1\n<<: {b: 2}\n'],
    ['a non-string key', '1: a\n'],
    ['a null key', '~: a\n'],
    ['a boolean key', 'yes: a\n'],
    ['a quoted key', '"a": 1\n'],
    ['an explicit key', '? a\n: 1\n'],
    ['a tab in the indentation', 'a:\n\tb: 1\n'],
    ['a tab in a value', 'a: x\ty\n'],
    ['a carriage return', 'a: 1\r\n'],
    ['a control character', 'a: x\u0001\n'],
    // Built at run time: a lone surrogate cannot be written in a UTF-8 source file.
    ['an unpaired surrogate', `a: x${String.fromCharCode(0xd800)}\n`],
    ['a nested sequence item', 'a:\n- - x\n'],
    ['a byte-order mark', '\ufeffa: 1\n'],
    ['no final line break', 'a: 1'],
    ['infinity', 'a: .inf\n'],
    ['not a mapping', '- a\n'],
    ['a scalar document', 'hello\n'],
    ['bad indentation', 'a: 1\n b: 2\n'],
    ['a continuation that is a key', 'a: x\n  b: 2\n'],
    ['a directive', '%YAML 1.1\na: 1\n'],
    ['a document end', 'a: 1\n...\n'],
    ['__proto__', '__proto__: 1\n'],
    ['a spaces-only line in a literal', 'a: |\n  x\n   \n  y\n'],
    ['an empty literal', 'a: |\nb: 1\n'],
    ['an unknown escape', 'a: "\\q"\n'],
    ['an unclosed quote', 'a: "x\n'],
  ])('gives up on %s', (_label, text) => {
    expect(read(text)).toBeUndefined();
  });
});

function yamlFiles(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yamlFiles(p, out);
    else if (/\.ya?ml$/.test(e.name)) out.push(p);
  }
  return out;
}

describe.runIf(haveCorpus())('block reader on every YAML document of the corpus', () => {
  it('agrees with js-yaml, and reads nearly all catalog documents itself', () => {
    let docs = 0;
    let catalogDocs = 0;
    let catalogRead = 0;
    for (const file of yamlFiles(corpusDir ?? '')) {
      let parts;
      try {
        parts = splitYamlDocuments(readFileSync(file, 'utf8'));
      } catch {
        continue; // a stream opm refuses; nothing for either reader
      }
      const catalog = file.includes(`${path.sep}community-catalog-`);
      for (const d of parts) {
        docs++;
        const ok = agrees(d.text, `${file}:${d.line}`);
        if (catalog) {
          catalogDocs++;
          if (ok) catalogRead++;
        }
      }
    }
    expect(docs).toBeGreaterThan(1000);
    // The catalog is written by opm (go-yaml): the fast path must be the common path.
    expect(catalogRead / catalogDocs).toBeGreaterThan(0.95);
  });
});

// Characters that exercise every rule of both readers.
const ALPHABET = [...'abynoe  :#-?\'"\\\n\t01.+_~[{,|>&*!%@`é', '😀', '\u00a0', '\u0085'];

function randomString(r: () => number): string {
  const long = r() < 0.15;
  const n = long ? 60 + Math.floor(r() * 200) : Math.floor(r() * 10);
  let s = '';
  for (let i = 0; i < n; i++) {
    if (long && r() < 0.8) s += r() < 0.2 ? ' ' : 'w';
    else s += ALPHABET[Math.floor(r() * ALPHABET.length)] ?? '';
  }
  return s;
}

function randomValue(r: () => number, depth: number): JsonValue {
  const x = r();
  if (depth > 4 || x < 0.5) {
    const y = r();
    if (y < 0.75) return randomString(r);
    if (y < 0.85) return Math.floor((r() - 0.5) * 1e6);
    if (y < 0.92) return (r() - 0.5) * 10 ** Math.floor(r() * 40 - 20);
    if (y < 0.96) return r() < 0.5;
    return null;
  }
  const n = Math.floor(r() * 4);
  if (x < 0.72) return Array.from({ length: n }, () => randomValue(r, depth + 1));
  const o: Record<string, JsonValue> = {};
  for (let i = 0; i < n; i++)
    o[r() < 0.7 ? `k${Math.floor(r() * 20)}` : randomString(r)] = randomValue(r, depth + 1);
  return o;
}

/** One random edit: a character inserted, deleted or replaced, or a line doubled or re-indented. */
function mutate(text: string, r: () => number): string {
  const at = Math.floor(r() * text.length);
  const ch = ALPHABET[Math.floor(r() * ALPHABET.length)] ?? ' ';
  const k = r();
  if (k < 0.3) return text.slice(0, at) + ch + text.slice(at);
  if (k < 0.5) return text.slice(0, at) + text.slice(at + 1);
  if (k < 0.7) return text.slice(0, at) + ch + text.slice(at + 1);
  const lines = text.split('\n');
  const i = Math.floor(r() * lines.length);
  if (k < 0.85) lines.splice(i, 0, lines[i] ?? '');
  else lines[i] = (r() < 0.5 ? ' ' : '') + (lines[i] ?? '').replace(/^ {0,2}/, '');
  return lines.join('\n');
}

describe('block reader on generated documents', () => {
  it('reads what the go-yaml-style emitter writes, as js-yaml does', () => {
    const r = seededRandom(1212);
    let read = 0;
    for (let i = 0; i < 3000; i++) {
      const v = { k: randomValue(r, 0), name: randomString(r) };
      if (agrees(emitYaml(v), `case ${i}`)) read++;
    }
    // Strings with control characters, tabs or odd escapes are left to js-yaml; most are read.
    expect(read).toBeGreaterThan(1500);
  });

  it('never reads a mutated document differently from js-yaml, and gives up wherever js-yaml fails', () => {
    const r = seededRandom(4242);
    let readMutated = 0;
    for (let i = 0; i < 6000; i++) {
      let text = emitYaml({ k: randomValue(r, 0), l: randomValue(r, 1) });
      for (let m = Math.floor(r() * 3); m >= 0; m--) text = mutate(text, r);
      if (agrees(text, `mutation ${i}`)) readMutated++;
    }
    expect(readMutated).toBeGreaterThan(500);
  });

  it('reads documents with comment lines anywhere, at any indentation, as js-yaml does', () => {
    const r = seededRandom(3131);
    let readCommented = 0;
    for (let i = 0; i < 6000; i++) {
      const lines = emitYaml({ k: randomValue(r, 0), l: randomValue(r, 1) }).split('\n');
      for (let m = 1 + Math.floor(r() * 3); m > 0; m--) {
        const text = randomString(r).replaceAll('\n', ' ');
        const at = Math.floor(r() * lines.length);
        lines.splice(at, 0, `${' '.repeat(Math.floor(r() * 7))}#${r() < 0.5 ? ' ' : ''}${text}`);
      }
      let text = lines.join('\n');
      if (!text.endsWith('\n')) text += '\n';
      if (r() < 0.3) text = mutate(text, r);
      if (agrees(text, `commented ${i}`)) readCommented++;
    }
    expect(readCommented).toBeGreaterThan(1500);
  });
});

/** The longest string among the values of `v` (keys apart). */
function longestString(v: JsonValue): number {
  if (typeof v === 'string') return v.length;
  if (v === null || typeof v !== 'object') return 0;
  const items = Array.isArray(v) ? v : Object.values(v);
  return items.reduce<number>((m, x) => Math.max(m, longestString(x)), 0);
}

/** What Go's encoder writes for `v` as WriteJSON indents it, by the encoder of our own. */
function goIndented(v: JsonValue): string {
  const parts: string[] = [];
  marshalIndentByParts(parts, v, '', '    ', false);
  return parts.join('');
}

/** The value and facts of a document the block reader reads, or undefined when it gives up. */
function readWithFacts(text: string): { value: JsonValue; facts: BlockFacts } | undefined {
  const facts: BlockFacts = { stringifiesAsGo: false, longestString: -1 };
  const value = readBlockYaml(text, resolveYaml11Scalar, false, facts);
  return value === undefined ? undefined : { value, facts };
}

describe('what the block reader tells of a document', () => {
  it.each([
    ['keys out of order', 'b: 1\na: 2\n'],
    ['nested keys out of order', 'a:\n  q: 1\n  p: 2\n'],
    ['keys out of order in a list item', 'a:\n- q: 1\n  p: 2\n'],
    ['a key with a leading digit', 'a: 1\n1b: 2\n'],
    ['a key with a surrogate pair', 'a: 1\nb\u{1F600}: 2\n'],
    ['-0.0', 'a: -0.0\n'],
    ['-0.0 in a list', 'a:\n- x\n- -0.0\n'],
  ])('%s: JSON.stringify would not write what Go writes', (_, text) => {
    const r = readWithFacts(text);
    expect(r).toBeDefined();
    expect(r?.facts.stringifiesAsGo).toBe(false);
  });

  it('keys in order, ASCII or not: JSON.stringify writes what Go writes', () => {
    const r = readWithFacts('a: 0\nb:\n  c: \u00e9t\u00e9\n  \u00e9: [1]\n'.replace('[1]', '\n  - 1'));
    expect(r?.facts).toStrictEqual({ stringifiesAsGo: true, longestString: 3 });
    expect(JSON.stringify(r?.value, null, 4)).toBe(goIndented(r?.value ?? null));
  });

  it('on generated and mutated documents: when it says so, JSON.stringify writes what Go writes', () => {
    const r = seededRandom(777);
    let said = 0;
    let notSaid = 0;
    for (let i = 0; i < 4000; i++) {
      // Top-level entries in a random order, some documents mutated further.
      const entries = Array.from({ length: 1 + Math.floor(r() * 4) }, () =>
        emitYaml({ [r() < 0.8 ? `k${Math.floor(r() * 30)}` : randomString(r)]: randomValue(r, 1) }),
      );
      let text = [...new Set(entries)].join('');
      if (i % 3 === 0) text = mutate(text, r);
      const got = readWithFacts(text);
      if (got === undefined) continue;
      expect(got.facts.longestString, text).toBe(longestString(got.value));
      if (!got.facts.stringifiesAsGo) {
        notSaid++;
        continue;
      }
      said++;
      expect(JSON.stringify(got.value, null, 4), text).toBe(goIndented(got.value));
    }
    expect(said).toBeGreaterThan(500);
    expect(notSaid).toBeGreaterThan(500);
  });
});

describe('usualAscii', () => {
  it('refuses only ASCII characters the reader leaves to js-yaml, and the reader told so reads the same', () => {
    let passed = 0;
    for (let c = 1; c < 0x80; c++) {
      const ch = String.fromCharCode(c);
      for (const text of [`a: b\n# ${ch}\n`, `a: x${ch}y\n`, `a: "x${ch}y"\n`, `- |\n  x${ch}y\n`]) {
        const usual = usualAscii(Buffer.from(text));
        const read = readBlockYaml(text, resolveYaml11Scalar, true);
        if (!usual) expect([c, text, read]).toStrictEqual([c, text, undefined]);
        expect([c, text, readBlockYaml(text, resolveYaml11Scalar, true, undefined, usual)]).toStrictEqual([
          c,
          text,
          read,
        ]);
      }
      if (usualAscii(Buffer.from([c]))) passed++;
    }
    // Printable ASCII, tab and line feed: 97 of the 127.
    expect(passed).toBe(97);
  });
});
