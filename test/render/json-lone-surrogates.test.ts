// A JSON catalog with escaped surrogates that are not half of a pair, in values and keys at every
// depth: read as U+FFFD, as Go's decoder reads them, and written as opm writes that character. The
// output is the reference's (test/reference/differential.test.ts).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';

const fixture = path.resolve('testdata/render/json-lone-surrogates');

describe('a JSON catalog with lone surrogates', () => {
  it.each(['json', 'yaml'])('is written as opm writes it (-o %s)', async (format) => {
    const r = await runOpm(['render', path.join(fixture, 'catalog'), '-o', format]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('\\ufffd');
    await expect(r.stdout).toMatchFileSnapshot(path.join(fixture, `expected.${format}`));
  });
});
