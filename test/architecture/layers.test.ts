// integration: runs the dependency checker on two trees (about 7 s of CPU time; ten times that in wall time on a loaded machine).
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
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

const run = promisify(execFile);

/** A program's stdout and exit status (0, or the status it failed with). */
async function exitOf(
  file: string,
  args: string[],
  cwd: string,
): Promise<{ status: number; stdout: string }> {
  try {
    const { stdout } = await run(file, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
    return { status: 0, stdout };
  } catch (err) {
    const e = err as { code?: unknown; stdout?: string };
    if (typeof e.code !== 'number') throw err;
    return { status: e.code, stdout: e.stdout ?? '' };
  }
}

/**
 * Runs the dependency checker once on `src/` of a tree: the violations from its JSON report, and
 * the exit status `npm run lint` would have (its `err` report), from that same report. The checker
 * parses every source file, seconds of CPU time: it runs as a child process waited for without
 * blocking, so the test runner stays responsive however long a loaded machine makes it take.
 */
async function check(tree: string): Promise<{ status: number | null; violations: Violation[] }> {
  const cruised = await exitOf(depcruise, ['src', '--config', config, '--output-type', 'json'], tree);
  const report = JSON.parse(cruised.stdout) as { summary: { violations: Violation[] } };
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'opm-layers-'));
  try {
    const saved = path.join(tmp, 'report.json');
    writeFileSync(saved, cruised.stdout);
    const asLint = await exitOf(depcruiseFmt, ['--output-type', 'err', '--exit-code', saved], tree);
    return { status: asLint.status, violations: report.summary.violations };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

describe('layer rule (.dependency-cruiser.cjs)', () => {
  it('success/the sources of opm-ts keep it', async () => {
    const { status, violations } = await check(root);
    expect(violations).toEqual([]);
    expect(status).toBe(0);
  });

  it('fail/an upward import, a cycle and the core importing the command line', async () => {
    const fixture = path.join(root, 'testdata', 'architecture', 'upward-import-and-cycle');
    const { status, violations } = await check(fixture);
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

  // A folder left out of the layer list is checked by no layer rule: its imports go unseen.
  it('success/every folder and module of src/ has its layer', () => {
    const cruiser = createRequire(import.meta.url)(config) as {
      forbidden: { name: string; from: { path?: string } }[];
    };
    const layered = cruiser.forbidden
      .filter((r) => r.name.startsWith('layer-') && r.from.path !== undefined)
      .map((r) => new RegExp(r.from.path as string));
    const unplaced = readdirSync(path.join(root, 'src'), { withFileTypes: true })
      .filter((e) => e.isDirectory() || (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')))
      .map((e) => `src/${e.name}${e.isDirectory() ? '/' : ''}`)
      .filter((entry) => !layered.some((re) => re.test(entry)));
    // The top layer (the library entry) has no rule of its own: nothing may import it.
    expect(unplaced.filter((e) => e !== 'src/index.ts')).toEqual([]);
  });
});
