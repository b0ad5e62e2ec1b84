// The curating commands (filter, diff, list images) on the scenarios of testdata/curate: each
// scenario folder holds its catalogs, a cases.json of command lines (run in that folder), and the
// expected exit code, stdout and stderr of each case in expected/<case>.txt.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../testdata/curate');

interface Case {
  name: string;
  args: string[];
}

const scenarios = readdirSync(root)
  .sort()
  .flatMap((scenario) => {
    const cases = JSON.parse(readFileSync(path.join(root, scenario, 'cases.json'), 'utf8')) as Case[];
    return cases.map((c) => ({ scenario, ...c }));
  });

describe('curate fixtures (testdata/curate/<scenario>/cases.json)', () => {
  it.each(scenarios)('$scenario: $name', async ({ scenario, name, args }) => {
    const dir = path.join(root, scenario);
    const r = await runOpm(args, { cwd: dir });
    const actual = `exit: ${r.code}\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`;
    const expectedFile = path.join(dir, 'expected', `${name}.txt`);
    // Regenerate with UPDATE_FIXTURES=1, then review the diff.
    if (process.env.UPDATE_FIXTURES === '1' || !existsSync(expectedFile)) {
      mkdirSync(path.dirname(expectedFile), { recursive: true });
      writeFileSync(expectedFile, actual);
    }
    expect(actual).toBe(readFileSync(expectedFile, 'utf8'));
  });
});
