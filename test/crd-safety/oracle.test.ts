/**
 * The CRD upgrade checks against OLM itself: operator-controller's preflight, built into
 * test/crd-safety/oracle by scripts/build-crd-oracle.sh, judges the same pairs of CRDs — our own
 * (testdata/crd-safety, one per check) and every CRD kept between consecutive versions of every
 * package in the corpus's bundle directories. Verdicts and the lines of the refusal must match;
 * for changes the preflight has no check for ("unhandled"), which it words as a dump of Go
 * structs, the version, field path and check must match. Pairs of two bundles' CRD sets (CRDs
 * that appear or disappear) go to the preflight as the cluster's CRDs and the new release's: it
 * passes a CRD the cluster lacks and never sees one the new bundle drops, so only our CRD removal
 * rule speaks of that one.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBundleDirSync } from '../../src/bundle/parse.js';
import {
  compareCrdSets,
  compareCrds,
  crdSetOf,
  isV1Crd,
  problemLine,
  type CrdProblem,
} from '../../src/crd-safety/index.js';
import { compareSemver, parseSemver } from '../../src/model/semver.js';
import { corpusPath, haveCorpus, projectRoot } from '../corpus.js';
import { isSetPair, pairScenarios, readPair } from './pairs.js';

const oracle = process.env.CRD_ORACLE ?? path.join(projectRoot(), '.tools/bin/crd-upgrade-oracle');
const haveOracle = existsSync(oracle);
// Why the oracle could not be built, when its source was refused (scripts/build-crd-oracle.sh).
const unavailable = existsSync(`${oracle}.unavailable`)
  ? readFileSync(`${oracle}.unavailable`, 'utf8').trim()
  : undefined;
if (!haveOracle) {
  if (process.env.CI === 'true' && unavailable === undefined)
    throw new Error(`CI runs every suite: build ${oracle} (scripts/build-crd-oracle.sh)`);
  console.warn(
    `\n*** CRD UPGRADE ORACLE NOT BUILT (${oracle}): the comparison with operator-controller is NOT running. ***\n` +
      (unavailable === undefined ? '' : `*** ${unavailable} ***\n`) +
      '*** Build it with scripts/build-crd-oracle.sh (or point CRD_ORACLE at it). ***\n',
  );
}

interface Pair {
  label: string;
  old: unknown;
  new: unknown;
}

/** The oracle's refusal lines for each pair ([] when it allows the upgrade). */
function oracleVerdicts(pairs: readonly Pair[]): string[][] {
  const input = pairs.map((p) => JSON.stringify({ old: p.old, new: p.new })).join('\n') + '\n';
  const r = spawnSync(oracle, [], { input, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`oracle failed: ${r.stderr}`);
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => {
      const v = JSON.parse(l) as { errors: string[]; fail?: string };
      if (v.fail !== undefined) {
        // An oracle built before it took sets of CRDs reads an array as a CRD and fails.
        const stale = /cannot unmarshal array/.test(v.fail)
          ? ' (rebuild it: scripts/build-crd-oracle.sh)'
          : '';
        throw new Error(`oracle could not read a pair: ${v.fail}${stale}`);
      }
      return v.errors.map((e) => e.replace(/^validating upgrade for CRD "[^"]*": /, ''));
    });
}

/**
 * A refusal line in comparable form: lists in brackets sorted (the preflight lists sets in map
 * order), and for unhandled changes only where and what.
 */
function comparable(line: string): string {
  const unhandled = /^(.*): unhandled: /.exec(line);
  if (unhandled !== null) return `${unhandled[1] ?? ''}: unhandled`;
  return line.replace(/\[([^\]]*)\]$/, (_m, items: string) => `[${items.split(' ').sort().join(' ')}]`);
}

/** Our problems the preflight has a check for: OLM v1's, the CRD removal rule apart. */
function preflightProblems(p: Pair): CrdProblem[] {
  const all = isSetPair(p) ? compareCrdSets(crdSetOf(p.old), crdSetOf(p.new)) : compareCrds(p.old, p.new);
  return all.filter((x) => x.olm === 'v1' && x.check !== 'crdRemoval');
}

function ours(p: Pair): string[] {
  return preflightProblems(p).map(problemLine);
}

/** Compares every pair; returns how many the preflight refuses. */
function expectSameVerdicts(pairs: readonly Pair[]): number {
  const theirs = oracleVerdicts(pairs);
  let refused = 0;
  pairs.forEach((p, i) => {
    const a = ours(p).map(comparable).sort();
    const b = (theirs[i] ?? []).map(comparable).sort();
    expect(a, p.label).toEqual(b);
    if (b.length > 0) refused++;
  });
  return refused;
}

/** Consecutive versions of each package's bundle directories, with the v1 CRDs both ship. */
function corpusPairs(): Pair[] {
  const root = corpusPath('community-bundles');
  const out: Pair[] = [];
  for (const pkg of readdirSync(root).sort()) {
    const versions = readdirSync(path.join(root, pkg))
      .filter((v) => existsSync(path.join(root, pkg, v, 'manifests')))
      .map((v) => ({ v, semver: parseSemver(v) }))
      .sort((a, b) => compareSemver(a.semver, b.semver));
    const crds = versions.map((x) =>
      crdSetOf(parseBundleDirSync(path.join(root, pkg, x.v)).objects.map((o) => o.object)),
    );
    for (let i = 1; i < versions.length; i++) {
      const [before, after] = [crds[i - 1]!, crds[i]!];
      for (const [name, crd] of after) {
        const old = before.get(name);
        if (old !== undefined && isV1Crd(old) && isV1Crd(crd))
          out.push({ label: `${pkg} ${versions[i - 1]!.v} -> ${versions[i]!.v} ${name}`, old, new: crd });
      }
    }
  }
  return out;
}

describe.skipIf(!haveOracle)('CRD upgrade checks against operator-controller’s preflight', () => {
  it('agrees on pairs of our own, one per check', () => {
    const pairs = pairScenarios().map((name) => ({ label: name, ...readPair(name) }));
    // Each unsafe scenario is refused, each safe one allowed; OLM v0's rule alone, and CRDs
    // dropped by the new bundle (which the preflight does not see), are allowed by it.
    const preflightSilent = ['served-version-removed', 'crd-removed', 'crd-renamed'];
    expect(preflightSilent.every((name) => pairs.some((p) => p.label === name))).toBe(true);
    expect(pairs.filter((p) => isSetPair(p)).length).toBeGreaterThanOrEqual(5);
    const unsafe = pairs.filter((p) => !p.label.startsWith('safe-') && !preflightSilent.includes(p.label));
    expect(expectSameVerdicts(pairs)).toBe(unsafe.length);
  });

  it.skipIf(!haveCorpus())(
    'agrees on consecutive versions of every package in the corpus',
    () => {
      const pairs = corpusPairs();
      expect(pairs.length).toBeGreaterThan(50);
      expectSameVerdicts(pairs);
    },
    120_000,
  );
});
