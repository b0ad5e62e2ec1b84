// Property values of a JSON catalog, in the cases where JSON.stringify would not write them as Go
// does (keys out of order, -0, `__proto__`, index-like keys, keys out of UTF-16 order but in UTF-8
// order, a duplicate key, a long string, a payload) and one where it would: the JSON writer's checks
// (go/json-native.ts) send each to the right encoder, and the output is the reference's
// (test/reference/differential.test.ts).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';

const fixture = path.resolve('testdata/render/json-property-values');

describe('property values of a JSON catalog', () => {
  it.each(['json', 'yaml'])('are written as opm writes them (-o %s)', async (format) => {
    const r = await runOpm(['render', path.join(fixture, 'catalog'), '-o', format]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('duplicate key "a"');
    await expect(r.stdout).toMatchFileSnapshot(path.join(fixture, `expected.${format}`));
  });
});
