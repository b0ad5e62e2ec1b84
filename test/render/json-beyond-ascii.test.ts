// A JSON catalog beyond ASCII: files read one character per byte (names, keys out of order, a long
// string, a file read in parts), files read as text (an escape of a character beyond ASCII, U+2028),
// and one read by bytes, then again as text for its warning (declcfg/parse.ts ByteChars). The output
// is the reference's (test/reference/differential.test.ts).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';

const fixture = path.resolve('testdata/render/json-beyond-ascii');

describe('a JSON catalog beyond ASCII', () => {
  it.each(['json', 'yaml'])('is written as opm writes it (-o %s)', async (format) => {
    const r = await runOpm(['render', path.join(fixture, 'catalog'), '-o', format]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('zduplicate/catalog.json:41: duplicate key "ż"');
    await expect(r.stdout).toMatchFileSnapshot(path.join(fixture, `expected.${format}`));
  });
});
