// JSON catalogs whose blobs' checks (duplicate keys, numbers too large for a float64, nesting) are
// left to the comparison of each blob's output with its bytes by render's file-by-file path
// (declcfg/parse.ts UncheckedBlob): the output and the messages are those of the checks made as the
// file is read. The clean catalog's output is the reference's (test/reference/differential.test.ts).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';

const fixture = path.resolve('testdata/render/json-checks');

describe('JSON catalogs whose checks are left to the output', () => {
  it('are written as opm writes them, with the warning of a duplicate key', async () => {
    const r = await runOpm(['render', path.join(fixture, 'clean'), '-o', 'json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('nested-duplicate.json:34: duplicate key "a"; the last value is used');
    expect(r.stderr).toContain('unknown-field.json:16: unknown field "extra" is ignored');
    await expect(r.stdout).toMatchFileSnapshot(path.join(fixture, 'expected.json'));
  });

  it.each([
    ['top-level-duplicate', 'catalog.json:4: ', 'duplicate key "name" in the blob\'s own keys'],
    [
      'overflowing-number',
      'catalog.json:28: ',
      'cannot unmarshal number 1e999 into Go value of type float64',
    ],
    ['too-deep', 'catalog.json:6: ', 'nesting deeper than 1000 levels'],
  ])('report %s with its line', async (name, at, message) => {
    const r = await runOpm(['render', path.join(fixture, 'errors', name), '-o', 'json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(at);
    expect(r.stderr).toContain(message);
  });
});
