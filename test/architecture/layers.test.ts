// integration: runs the dependency checker on two trees (about 15 s).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const depcruise = path.join(root, 'node_modules', '.bin', 'depcruise');
const depcruiseFmt = path.join(root, 'node_modules', '.bin', 'depcruise-fmt');
const config = path.join(root, '.dependency-cruiser.cjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

/**
 * Runs the dependency checker once on `src/` of a tree: the violations from its JSON report, and
 * the exit status `npm run lint` would have (its `err` report), from that same report.
 */
function check(tree: string): { status: number | null; violations: Violation[] } {
  const run = spawnSync(depcruise, ['src', '--config', config, '--output-type', 'json'], {
    cwd: tree,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const report = JSON.parse(run.stdout) as { summary: { violations: Violation[] } };
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'opm-layers-'));
  try {
    const saved = path.join(tmp, 'report.json');
    writeFileSync(saved, run.stdout);
    const asLint = spawnSync(depcruiseFmt, ['--output-type', 'err', '--exit-code', saved], {
      encoding: 'utf8',
    });
    return { status: asLint.status, violations: report.summary.violations };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
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
    const { scripts } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      scripts: { lint: string };
    };
    expect(scripts.lint).toContain('depcruise src --config .dependency-cruiser.cjs');
  });
});
