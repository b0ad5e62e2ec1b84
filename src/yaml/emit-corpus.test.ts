/**
 * Conformance with real opm output: every document of every catalog.yaml that opm wrote for the
 * community catalog is read back and written again, and must come out byte for byte the same.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { corpusPath, haveCorpus } from '../../test/corpus.js';
import { parseYamlDocument } from './yaml11.js';
import { emitYaml } from './emit.js';

const CATALOG = 'community-catalog-v4.21';

/** The documents of a file opm wrote: each starts with a `---` line. */
export function opmDocuments(text: string): string[] {
  expect(text.startsWith('---\n')).toBe(true);
  return text
    .slice(4)
    .split(/^---\n/m)
    .map((d) => '---\n' + d);
}

describe('YAML emitter against opm-written catalogs', () => {
  if (!haveCorpus()) {
    it('has no corpus on this machine', () => {
      expect(haveCorpus()).toBe(false);
    });
    return;
  }

  const packages = readdirSync(corpusPath(CATALOG)).sort();

  it('finds the 33 catalog files', () => {
    expect(packages.length).toBe(33);
  });

  it('writes every document byte for byte as opm did', () => {
    let total = 0;
    let equal = 0;
    const failures: string[] = [];
    for (const pkg of packages) {
      const text = readFileSync(corpusPath(CATALOG, pkg, 'catalog.yaml'), 'utf8');
      for (const [i, doc] of opmDocuments(text).entries()) {
        total++;
        const value = parseYamlDocument(doc.slice(4));
        const out = '---\n' + emitYaml(value);
        if (out === doc) equal++;
        else if (failures.length < 5) failures.push(`${pkg} document ${i}:\n${firstDifference(doc, out)}`);
      }
    }
    console.log(`YAML corpus conformance: ${equal}/${total} documents byte-equal`);
    expect(failures).toEqual([]);
    expect(total).toBe(856);
    expect(equal).toBe(total);
  });
});

function firstDifference(expected: string, actual: string): string {
  let i = 0;
  while (i < expected.length && expected[i] === actual[i]) i++;
  const lineStart = expected.lastIndexOf('\n', i - 1) + 1;
  return (
    `expected: ${JSON.stringify(expected.slice(lineStart, i + 120))}\n` +
    `actual:   ${JSON.stringify(actual.slice(lineStart, i + 120))}`
  );
}
