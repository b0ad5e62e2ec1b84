import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validateCatalog } from '../../src/action/validate/validate.js';
import { isRuleId, type RuleId } from '../../src/rules.js';
import { fixtureOptions } from './fixture-options.js';

/** `lint-<rule with dashes>[-ok]` names the rule a fixture triggers (or must not). */
function lintRuleOf(name: string): RuleId | undefined {
  const m = /^lint-([a-z]+)-(.*?)(-ok)?$/.exec(name);
  if (m === null) return undefined;
  const id = `${m[1] ?? ''}.${m[2] ?? ''}`;
  if (!isRuleId(id)) throw new Error(`fixture ${name} names no rule (${id})`);
  return id;
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../testdata/validate');
const cases = readdirSync(root).sort();

describe('validate fixtures (testdata/validate/<case>: catalog/ and expected.json)', () => {
  it('has one fixture per rule', () => {
    expect(cases.length).toBeGreaterThan(30);
  });

  it.each(cases)('%s', async (name) => {
    const result = await validateCatalog(
      path.join(root, name, 'catalog'),
      fixtureOptions(path.join(root, name)),
    );
    const expectedFile = path.join(root, name, 'expected.json');
    // The counts follow from the findings; the expected files hold the rest.
    const { counts, ...shown } = result;
    const errors = result.findings.filter((f) => f.severity === 'error').length;
    expect(counts).toEqual({ errors, warnings: result.findings.length - errors });
    // Regenerate with UPDATE_FIXTURES=1, then review the diff.
    if (process.env.UPDATE_FIXTURES === '1' || !existsSync(expectedFile)) {
      writeFileSync(expectedFile, JSON.stringify(shown, null, 2) + '\n');
    }
    const expected: unknown = JSON.parse(readFileSync(expectedFile, 'utf8'));
    expect(shown).toEqual(expected);
    const rule = lintRuleOf(name);
    if (rule !== undefined) {
      // `lint-<rule>` triggers the rule (and fails only when it is an error); `-ok` does not.
      const hits = result.findings.filter((f) => f.rule === rule);
      if (name.endsWith('-ok')) {
        expect(hits).toEqual([]);
        expect(result.findings.filter((f) => f.severity === 'error')).toEqual([]);
      } else {
        expect(hits.length).toBeGreaterThan(0);
      }
      expect(result.passed).toBe(!result.findings.some((f) => f.severity === 'error'));
      return;
    }
    // Every other case is named after what it shows: all but `valid…` and warning-only cases fail.
    expect(result.passed).toBe(name.startsWith('valid') || name === 'schema-warning');
  });
});
