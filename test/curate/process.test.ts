// needs-build: it runs bin/opm.js over dist/.
// The curating commands as a shell sees them: diff's exit codes (0 equal, 1 different, 2 trouble),
// and a filter that fails writes nothing, to stdout or to its output directory.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const bin = path.resolve('bin/opm.js');
const env = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' };
const fixtures = path.resolve('testdata/curate');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'opm-curate-process-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function opm(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env, cwd: fixtures });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('opm diff exit codes', () => {
  it('0 when equal, 1 when different, 1 with --fail-on impact only when there is impact', () => {
    expect(opm('diff', 'diff/old', 'diff/old').status).toBe(0);
    expect(opm('diff', 'diff/old', 'diff/new').status).toBe(1);
    expect(opm('diff', 'diff/old', 'diff/new', '--fail-on', 'impact').status).toBe(1);
    // A deprecation added: a change, but no upgrade impact.
    expect(opm('diff', 'diff/old', 'diff/deprecated').status).toBe(1);
    expect(opm('diff', 'diff/old', 'diff/deprecated', '--fail-on', 'impact').status).toBe(0);
  });

  it('2 with one line on stderr and nothing on stdout when a reference cannot be read', () => {
    const r = opm('diff', 'diff/old', 'diff/no-such-catalog/');
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^error: render reference "diff\/no-such-catalog\/"/);
  });

  it('2 for a usage error, as for every command', () => {
    expect(opm('diff', 'diff/old').status).toBe(2);
  });
});

describe('opm filter failures write nothing', () => {
  it('an unknown package: exit 1, one line, no output directory', () => {
    const out = path.join(tmp, 'out');
    const r = opm('filter', 'filter-graph/catalog', '--package', 'nope', '--output-dir', out);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('error: package "nope" (--package nope) is not in the catalog\n');
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('a filter that works writes one folder per package', () => {
    const out = path.join(tmp, 'kept');
    const r = opm(
      'alpha',
      'filter',
      'filter-graph/catalog',
      '--package',
      'bar',
      '--output-dir',
      out,
      '-o',
      'yaml',
    );
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    expect(readdirSync(out)).toEqual(['bar']);
    expect(readdirSync(path.join(out, 'bar'))).toEqual(['catalog.yaml']);
    const again = opm('filter', 'filter-graph/catalog', '--package', 'bar', '--output-dir', out);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('must be empty');
  });
});
