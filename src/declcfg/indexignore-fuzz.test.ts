/**
 * The `.indexignore` matcher against hostile and random patterns: a crafted pattern cannot make it
 * backtrack, and on random globs it agrees with a RegExp translation of Go's filepath.Match.
 */
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/seeded-random.js';
import { componentPattern, IndexIgnore } from './indexignore.js';

/** Oracle for short inputs only: the backtracking RegExp translation of a simple glob alphabet. */
function oracle(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] ?? '';
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const end = glob.indexOf(']', i);
      re += glob.slice(i, end + 1);
      i = end;
    } else re += c;
  }
  return new RegExp(`^${re}$`, 'u');
}

describe('indexignore matcher', () => {
  it('answers the pattern that made a backtracking matcher run for minutes, in bounded steps', () => {
    // Each extra `*a` multiplied a backtracking matcher's work; this one finishes in microseconds.
    const glob = `${'*a'.repeat(40)}b`;
    const name = 'a'.repeat(200);
    const m = componentPattern(glob);
    const deadline = Date.now() + 10_000; // generous for any machine; a backtracking matcher needs years
    expect(m?.test(name)).toBe(false);
    expect(m?.test(`${name}b`)).toBe(true);
    const ig = new IndexIgnore();
    ig.add('', `${glob}\n${'*a'.repeat(12)}*b\n`);
    for (let i = 0; i < 100; i++) expect(ig.ignores(`dir/${'a'.repeat(40 + i)}`)).toBe(false);
    expect(Date.now()).toBeLessThan(deadline);
  });

  it('agrees with a RegExp translation on 5,000 random globs and names', () => {
    const rnd = seededRandom(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
    const parts = ['a', 'b', 'é', '*', '?', '[ab]', '[^a]', '[a-c]', '**'];
    for (let k = 0; k < 5000; k++) {
      const glob = Array.from({ length: 1 + Math.floor(rnd() * 6) }, () => pick(parts)).join('');
      const name = Array.from({ length: Math.floor(rnd() * 8) }, () => pick(['a', 'b', 'c', 'é'])).join('');
      expect(componentPattern(glob)?.test(name), `${glob} ${name}`).toBe(oracle(glob).test(name));
    }
  });
});
