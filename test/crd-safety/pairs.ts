// The pairs of CRDs of our own: testdata/crd-safety/<scenario>/old.json and new.json, each a CRD,
// or each an array: the CRDs of two bundles, for CRDs that appear or disappear between them.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const PAIRS_DIR = path.resolve(__dirname, '../../testdata/crd-safety');

export function pairScenarios(): string[] {
  return readdirSync(PAIRS_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

export function readPair(name: string): { old: unknown; new: unknown } {
  const read = (f: string): unknown => JSON.parse(readFileSync(path.join(PAIRS_DIR, name, f), 'utf8'));
  return { old: read('old.json'), new: read('new.json') };
}

/** Whether a scenario compares two bundles' sets of CRDs rather than two CRDs. */
export function isSetPair(pair: { old: unknown; new: unknown }): pair is { old: unknown[]; new: unknown[] } {
  return Array.isArray(pair.old) && Array.isArray(pair.new);
}
