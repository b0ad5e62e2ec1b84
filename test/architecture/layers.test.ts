import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const depcruise = path.join(root, 'node_modules', '.bin', 'depcruise');
const config = path.join(root, '.dependency-cruiser.cjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

/**
 * Runs the dependency checker on `src/` of a tree: its exit status as `npm run lint` runs it, and
 * the violations from its JSON report.
 */
function check(tree: string): { status: number | null; violations: Violation[] } {
  const run = (outputType: string) =>
    spawnSync(depcruise, ['src', '--config', config, '--output-type', outputType], {
      cwd: tree,
      encoding: 'utf8',
    });
  const report = JSON.parse(run('json').stdout) as { summary: { violations: Violation[] } };
  return { status: run('err').status, violations: report.summary.violations };
}

describe('layer rule (.dependency-cruiser.cjs)', () => {
  it('success/the sources of opm-ts keep it', () => {
    const { status, violations } = check(root);
    expect(violations).toEqual([]);
    expect(status).toBe(0);
  });

  it('fail/an upward import, a cycle and the core importing the command line', async () => {
    const fixture = path.join(root, 'testdata', 'architecture', 'upward-import-and-cycle');
    const { status, violations } = check(fixture);
    expect(status).not.toBe(0);
    const lines = violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
    await expect(lines.join('\n') + '\n').toMatchFileSnapshot(path.join(fixture, 'expected.txt'));
  });

  it('success/npm run lint runs the checker', () => {
    const scripts = JSON.parse(
      execFileSync('npm', ['pkg', 'get', 'scripts'], { cwd: root, encoding: 'utf8' }),
    ) as {
      lint: string;
    };
    expect(scripts.lint).toContain('depcruise src --config .dependency-cruiser.cjs');
  });
});
