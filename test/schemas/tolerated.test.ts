/**
 * What the editor schemas reject but opm accepts (empty optional strings, an empty GVK group, an
 * empty property type, an empty package on a custom blob): `opm validate` passes and warns on each
 * such blob.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateCatalog } from '../../src/action/validate/validate.js';
import { projectRoot } from '../corpus.js';
import { unwarnedViolations } from './schema-files.js';

const fixture = path.join(projectRoot(), 'testdata/schemas/tolerated');
const catalog = path.join(fixture, 'catalog');

describe('strict schemas, tolerant validate', () => {
  it('rejects in the editor schema what validate reports as warnings', async () => {
    const r = await unwarnedViolations(catalog);
    expect(r.passed).toBe(true);
    expect(r.violations.map((v) => v.line)).toEqual([5, 15, 30, 42]);
    expect(r.unwarned).toEqual([]);
  });

  it('gives the expected findings', async () => {
    const result = await validateCatalog(catalog);
    const expectedFile = path.join(fixture, 'expected.json');
    // Regenerate with UPDATE_FIXTURES=1, then review the diff.
    if (process.env.UPDATE_FIXTURES === '1' || !existsSync(expectedFile)) {
      writeFileSync(expectedFile, JSON.stringify(result, null, 2) + '\n');
    }
    expect(result).toEqual(JSON.parse(readFileSync(expectedFile, 'utf8')));
  });
});
