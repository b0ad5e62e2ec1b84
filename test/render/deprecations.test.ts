import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';

const fixture = path.resolve('testdata/render/deprecations-without-entries');

describe('olm.deprecations without entries', () => {
  it.each(['json', 'yaml'])('writes entries as null, as opm does (-o %s)', async (format) => {
    const r = await runOpm(['render', path.join(fixture, 'catalog'), '-o', format]);
    expect(r.code).toBe(0);
    await expect(r.stdout).toMatchFileSnapshot(path.join(fixture, `expected.${format}`));
  });
});
