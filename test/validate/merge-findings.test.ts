/**
 * Validate sorts only its own findings and merges them into the loader's, already sorted: the
 * result must be what sorting all of them at once gives, ties included.
 */
import { describe, expect, it } from 'vitest';
import { mergeSortedFindings, sortFindings, type Finding } from '../../src/findings.js';
import { seededRandom } from '../seeded-random.js';

function randomFindings(rand: () => number, n: number, tag: string): Finding[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const out: Finding[] = [];
  for (let i = 0; i < n; i++) {
    const f: Finding = {
      rule: pick(['channel.cycle', 'bundle.duplicate'] as const),
      severity: pick(['error', 'warning'] as const),
      // Few distinct messages, so that ties happen; the tag and index tell equal findings apart.
      message: pick(['m1', 'm2']),
      bundle: `${tag}${i}`,
    };
    const file = pick([undefined, 'a.yaml', 'b/c.json', 'é.yaml']);
    if (file !== undefined) f.file = file;
    if (rand() < 0.8) f.line = Math.floor(rand() * 5);
    out.push(f);
  }
  return out;
}

describe('mergeSortedFindings', () => {
  it('gives what sorting both lists one after the other gives', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const rand = seededRandom(seed);
      const a = randomFindings(rand, Math.floor(rand() * 30), 'a');
      const b = randomFindings(rand, Math.floor(rand() * 30), 'b');
      expect(mergeSortedFindings(sortFindings(a), sortFindings(b))).toEqual(sortFindings([...a, ...b]));
    }
  });
});
