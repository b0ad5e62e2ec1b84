/**
 * Whatever style the emitter picks, its output must read back (with opm's YAML 1.1 resolution) as
 * the value written. Random values drawn from characters that exercise every style rule.
 */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../go/json-value.js';
import { emitYaml } from './emit.js';
import { parseYamlDocument } from './yaml11.js';
import { seededRandom } from '../../test/seeded-random.js';

// U+2028/U+2029 and NEL are left out: YAML 1.1 and the 1.2 reader under test disagree on them.
const ALPHABET = [
  'a',
  'b',
  'y',
  'n',
  'e',
  ' ',
  ' ',
  ':',
  '#',
  '-',
  '?',
  "'",
  '"',
  '\\',
  '\n',
  '\t',
  '0',
  '1',
  '.',
  '+',
  '_',
  '~',
  '[',
  '{',
  ',',
  '|',
  '>',
  'é',
  '😀',
  '\ufeff',
  '\u0001',
  '\u00a0',
  '\r',
];

function randomString(r: () => number): string {
  const long = r() < 0.15;
  const n = long ? 60 + Math.floor(r() * 200) : Math.floor(r() * 10);
  let s = '';
  for (let i = 0; i < n; i++) {
    // Long strings are mostly words, so that folding happens.
    if (long && r() < 0.8) s += r() < 0.2 ? ' ' : 'w';
    else s += ALPHABET[Math.floor(r() * ALPHABET.length)];
  }
  return s;
}

function randomValue(r: () => number, depth: number): JsonValue {
  const x = r();
  if (depth > 3 || x < 0.55) {
    const y = r();
    if (y < 0.75) return randomString(r);
    if (y < 0.85) return Math.floor((r() - 0.5) * 1e6);
    if (y < 0.92) return (r() - 0.5) * 10 ** Math.floor(r() * 40 - 20);
    if (y < 0.96) return r() < 0.5;
    return null;
  }
  const n = Math.floor(r() * 4);
  if (x < 0.75) return Array.from({ length: n }, () => randomValue(r, depth + 1));
  const o: Record<string, JsonValue> = {};
  for (let i = 0; i < n; i++) o[randomString(r)] = randomValue(r, depth + 1);
  return o;
}

describe('emitted YAML reads back as the value written', () => {
  it('holds for random values', () => {
    const r = seededRandom(20251122);
    for (let i = 0; i < 3000; i++) {
      const v = { k: randomValue(r, 0) };
      const text = emitYaml(v);
      let back: JsonValue | undefined;
      try {
        back = parseYamlDocument(text);
      } catch (err) {
        throw new Error(
          `case ${i}: ${JSON.stringify(v)} written as\n${text}\ndoes not read back: ${String(err)}`,
        );
      }
      expect(back, `case ${i}: ${JSON.stringify(v)} written as\n${text}`).toEqual(v);
    }
  });
});
