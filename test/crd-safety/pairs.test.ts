/**
 * The CRD upgrade checks on pairs of our own (testdata/crd-safety/<scenario>/old.json, new.json),
 * one scenario per check, safe and unsafe, and pairs of bundles' CRD sets where CRDs appear or
 * disappear: the problems as operator-controller's refusal lines (expected.txt beside, empty when
 * the upgrade is safe). UPDATE_FIXTURES=1 rewrites them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareCrdSets, compareCrds, crdSetOf, problemLine } from '../../src/crd-safety/index.js';
import { PAIRS_DIR, isSetPair, pairScenarios, readPair } from './pairs.js';

describe('CRD upgrade checks on pairs of our own', () => {
  for (const name of pairScenarios()) {
    it(name, () => {
      const pair = readPair(name);
      const problems = isSetPair(pair)
        ? compareCrdSets(crdSetOf(pair.old), crdSetOf(pair.new)).map((p) => ({ ...p, crd: `${p.crd} ` }))
        : compareCrds(pair.old, pair.new).map((p) => ({ ...p, crd: '' }));
      const lines = problems.map((p) => `${p.olm} ${p.crd}${problemLine(p)}\n`);
      const file = path.join(PAIRS_DIR, name, 'expected.txt');
      if (process.env.UPDATE_FIXTURES) writeFileSync(file, lines.join(''));
      expect(lines.join('')).toBe(readFileSync(file, 'utf8'));
      // The scenario's name says whether the upgrade is safe.
      expect(lines.length === 0, 'verdict').toBe(name.startsWith('safe-'));
    });
  }
});
