import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';

const fixtures = path.resolve('testdata/init');
const cases = readdirSync(fixtures).filter((c) => existsSync(path.join(fixtures, c, 'args.json')));

describe('opm init', () => {
  // Each case: args.json, input files, and expected.out (stdout) or expected.err (stderr, exit 1).
  it.each(cases)('%s', async (name) => {
    const dir = path.join(fixtures, name);
    const args = JSON.parse(readFileSync(path.join(dir, 'args.json'), 'utf8')) as string[];
    const r = await runOpm(['init', ...args], { cwd: dir });
    const expectedFile = r.code === 0 ? 'expected.out' : 'expected.err';
    await expect(r.code === 0 ? r.stdout : r.stderr).toMatchFileSnapshot(path.join(dir, expectedFile));
    if (r.code === 0) expect(r.stderr).toBe('');
    else {
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it.each([
    ['', 'error: package name must not be empty (opm init <packageName>)\n'],
    ['Bad_Name', 'error: invalid package name "Bad_Name": a lowercase RFC 1123 label'],
  ])('rejects the package name %j', async (pkgName, message) => {
    const r = await runOpm(['init', pkgName]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.startsWith(message)).toBe(true);
  });

  it('rejects a missing icon file with its path', async () => {
    const r = await runOpm(['init', 'widget-operator', '-i', 'missing.png']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: open icon file "missing.png": no such file or directory\n');
  });

  it('rejects an unknown output format with exit 2', async () => {
    const r = await runOpm(['init', 'widget-operator', '-o', 'xml']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: invalid --output value "xml", expected (json|yaml)\n');
  });
});
