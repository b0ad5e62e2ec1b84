// Comments in YAML catalogs against the reference opm: seeded catalog files whose documents carry
// comments everywhere YAML allows them (test/yaml-comment-docs.ts), rendered by both tools as JSON
// and YAML and compared byte for byte, success and failure alike. One seed in three keeps to full-line
// comments in the block reader's subset, so that the fast reader (src/yaml/block-reader.ts, row P2 of
// docs/compatibility.md) is the one skipping them; the others go to js-yaml.
//
// One seed in five also puts tabs where go-yaml refuses most of them (after a sequence's `-`, in the
// indentation of comment lines; src/yaml/go-tabs.ts): those fail in both. Left out of the generated
// text: comment lines before a file's first `---` (an empty document: row 28 of
// docs/compatibility.md).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ours, ref } from './reference-opm.js';
import { commentedCatalog } from '../yaml-comment-docs.js';
import { resolveYaml11Scalar } from '../../src/yaml/yaml11.js';
import { splitYamlDocuments } from '../../src/yaml/split-documents.js';
import { readBlockYaml } from '../../src/yaml/block-reader.js';

const work = mkdtempSync(path.join(tmpdir(), 'opm-comments-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('YAML comments in catalog files: render byte for byte', () => {
  const seeds = Array.from({ length: 72 }, (_, i) => i + 1);
  let rendered = 0;
  let documents = 0;
  let fast = 0;
  it.each(seeds)('seed %i', async (seed) => {
    const dir = path.join(work, `c${seed}`);
    mkdirSync(dir);
    const text = commentedCatalog(seed, `fuzz${seed}`);
    writeFileSync(path.join(dir, 'catalog.yaml'), text);
    if (seed % 3 === 0) {
      for (const doc of splitYamlDocuments(text)) {
        documents++;
        if (readBlockYaml(doc.text, resolveYaml11Scalar) !== undefined) fast++;
      }
    }
    for (const format of ['json', 'yaml']) {
      const a = await ours(['render', dir, '-o', format]);
      const b = ref(['render', dir, '-o', format]);
      if (b.code === 0) rendered++;
      expect({ code: a.code === 0 ? 0 : 1, stdout: a.stdout }, `seed ${seed} -o ${format}`).toEqual({
        code: b.code === 0 ? 0 : 1,
        stdout: b.stdout,
      });
    }
  });

  it('most generated catalogs render (the comparison is of data, not of two failures)', () => {
    expect(rendered).toBeGreaterThan(seeds.length * 2 * 0.7);
  });

  it('the block reader, not js-yaml, reads most documents of the full-line seeds', () => {
    expect(documents).toBe((seeds.length / 3) * 4);
    expect(fast).toBeGreaterThan(documents / 2);
  });
});
