import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validateCatalog } from '../../src/action/validate.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../testdata/validate');
const cases = readdirSync(root).sort();

describe('validate fixtures (testdata/validate/<case>: catalog/ and expected.json)', () => {
  it('has one fixture per rule', () => {
    expect(cases.length).toBeGreaterThan(30);
  });

  it.each(cases)('%s', async (name) => {
    const result = await validateCatalog(path.join(root, name, 'catalog'));
    const expectedFile = path.join(root, name, 'expected.json');
    // Regenerate with UPDATE_FIXTURES=1, then review the diff.
    if (process.env.UPDATE_FIXTURES === '1' || !existsSync(expectedFile)) {
      writeFileSync(expectedFile, JSON.stringify(result, null, 2) + '\n');
    }
    const expected: unknown = JSON.parse(readFileSync(expectedFile, 'utf8'));
    expect(result).toEqual(expected);
    // Every case is named after what it shows: all but `valid` and warning-only cases fail.
    expect(result.passed).toBe(name === 'valid' || name === 'schema-warning');
  });
});
