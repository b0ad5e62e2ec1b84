import { cp, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validateCatalog } from '../../src/action/validate/validate.js';
import type { Finding } from '../../src/findings.js';
import { corpusPath, haveCorpus } from '../corpus.js';
import { runOpm } from '../run-cli.js';

const fixtures = path.resolve(import.meta.dirname, '../../testdata/validate');

describe('opm validate (CLI)', () => {
  it('prints nothing and exits 0 on a valid catalog', async () => {
    const r = await runOpm(['validate', path.join(fixtures, 'valid/catalog')]);
    expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it.each([
    [[], '2 warnings (--warnings shows them)\n'],
    [['--rule', 'blob.schema-misspelt=off'], ''],
  ])('says how many warnings it leaves unshown on a catalog with only warnings: %j', async (flags, line) => {
    const dir = path.join(fixtures, 'lint-blob-schema-misspelt/catalog');
    const r = await runOpm(['validate', dir, ...flags]);
    expect(r).toEqual({ code: 0, stdout: '', stderr: line });
    // Machine outputs keep to their documents.
    for (const o of ['json', 'yaml', 'sarif']) {
      const m = await runOpm(['validate', dir, '-o', o, ...flags]);
      expect(m.stderr).toBe('');
      expect(m.stdout).not.toContain('--warnings shows them');
    }
    const shown = await runOpm(['validate', dir, '--warnings', ...flags]);
    expect(shown.stderr).not.toContain('--warnings shows them');
    if (line !== '') expect(shown.stderr).toContain('warning: ');
  });

  it('shows a misspelt schema with the errors it explains, without --warnings; other warnings stay counted', async () => {
    const scenario = path.join(fixtures, 'schema-misspelt-explains-errors');
    const r = await runOpm(['validate', 'catalog'], { cwd: scenario });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(await readFile(path.join(scenario, 'expected-stderr.txt'), 'utf8'));
    expect(r.stderr).toContain('did you mean "olm.channel"?');
    expect(r.stderr).not.toContain('descripton');
  });

  it('counts one warning as one', async () => {
    const dir = path.join(fixtures, 'lint-blob-schema-misspelt/catalog');
    const r = await runOpm([
      'validate',
      dir,
      '--rule',
      'blob.schema-misspelt=off',
      '--rule',
      'policy.package-icon=warning',
    ]);
    expect(r.stderr).toBe('1 warning (--warnings shows them)\n');
  });

  it('prints findings grouped per package on stderr and exits 1', async () => {
    // Files are named under the catalog directory as typed, to be opened from where opm ran.
    const r = await runOpm(['validate', 'testdata/validate/multi-file/catalog'], {
      cwd: path.resolve(fixtures, '../..'),
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const file = (f: string): string => `testdata/validate/multi-file/catalog/${f}`;
    expect(r.stderr).toContain(
      `invalid index:\n├── package "bar":\n│   └── ${file('bar/catalog.yaml')}:5: error: channel "stable" has 2 heads (bundles nothing replaces or skips): bar.v1.0.0 (${file('bar/catalog.yaml')}:12)`,
    );
    expect(r.stderr).toContain(
      `└── package "foo":\n    └── ${file('foo/catalog.yaml')}:23: error: error parsing bundle "foo.v0.2.0" version "latest"`,
    );
    expect(r.stderr).toContain('[bundle.version-invalid]');
  });

  it('writes opm result document with findings for -o json', async () => {
    const r = await runOpm(['validate', path.join(fixtures, 'multi-file/catalog'), '-o', 'json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('');
    const doc: unknown = JSON.parse(r.stdout);
    expect(doc).toMatchObject({
      passed: false,
      error: {
        message: 'error parsing bundle "foo.v0.2.0" version "latest": No Major.Minor.Patch elements found',
      },
    });
    expect(r.stdout.startsWith('{\n  "passed": false,\n  "error": {\n    "message": ')).toBe(true);
    const ok = await runOpm(['validate', path.join(fixtures, 'valid/catalog'), '-o', 'json']);
    expect(ok.code).toBe(0);
    expect(ok.stderr).toBe('');
    expect(ok.stdout).toMatch(
      /^\{\n {2}"passed": true,\n {2}"tool": \{\n {4}"name": "opm-ts",\n {4}"version": "[^"]+"\n {2}\},\n {2}"base": "[^"]+valid\/catalog",\n {2}"counts": \{\n {4}"errors": 0,\n {4}"warnings": 0\n {2}\},\n {2}"findings": \[\]\n\}\n$/,
    );
  });

  it('escapes HTML characters in JSON as Go does', async () => {
    const r = await runOpm(['validate', path.join(fixtures, 'multiple-heads/catalog'), '-o', 'json']);
    expect(r.stdout).not.toContain('—>');
    const yaml = await runOpm(['validate', path.join(fixtures, 'skip-range-invalid/catalog'), '-o', 'json']);
    expect(yaml.stdout).toContain('\\u003e=v0.1.0');
  });

  it('writes sorted-key YAML for -o yaml', async () => {
    const r = await runOpm(['validate', path.join(fixtures, 'valid/catalog'), '-o', 'yaml']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^base: .*valid\/catalog\ncounts:\n {2}errors: 0\n {2}warnings: 0\nfindings: \[\]\npassed: true\ntool:\n {2}name: opm-ts\n {2}version: \S+\n\n$/,
    );
    const bad = await runOpm(['validate', path.join(fixtures, 'cycle/catalog'), '-o', 'yaml']);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('error:\n  message: |-\n    invalid index:\n');
  });

  it('writes GitHub Actions annotations for -o github', async () => {
    const dir = path.join(fixtures, 'cycle/catalog');
    const r = await runOpm(['validate', 'testdata/validate/cycle/catalog', '-o', 'github'], {
      cwd: path.resolve(fixtures, '../..'),
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      '::error file=testdata/validate/cycle/catalog/foo/catalog.yaml,line=5,title=channel.cycle::foo/stable: channel "stable" has a cycle in its replaces chain: foo.v0.2.0 -> foo.v0.1.0 -> foo.v0.2.0\n',
    );
    expect(dir).toContain('cycle');
  });

  it('exits 2 on a bad output format and 1 on a missing or non-directory path', async () => {
    const bad = await runOpm(['validate', fixtures, '-o', 'xml']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid --output value "xml", expected (json|yaml|github|sarif)');
    const missing = await runOpm(['validate', 'no/such/dir']);
    expect(missing).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: stat no/such/dir: no such file or directory\n',
    });
    const file = await runOpm(['validate', path.join(fixtures, 'valid/expected.json')]);
    expect(file.code).toBe(1);
    expect(file.stderr).toContain('is not a directory');
  });
});

describe.runIf(haveCorpus())('corpus catalogs', () => {
  it('every corpus catalog passes with nothing printed', async () => {
    const decl = corpusPath('opm-testdata', 'index-declcfgs');
    const dirs = [
      corpusPath('community-catalog-v4.21'),
      corpusPath('cool-catalog', 'catalog'),
      ...(await readdir(decl)).sort().map((d) => path.join(decl, d)),
    ];
    const results = [];
    for (const dir of dirs) results.push({ dir, ...(await runOpm(['validate', dir])) });
    // Warnings left unshown are counted in one line.
    const stderr = expect.stringMatching(/^(?:|\d+ warnings? \(--warnings shows them\)\n)$/);
    expect(results).toEqual(dirs.map((dir) => ({ dir, code: 0, stdout: '', stderr })));
  });
});

describe.runIf(haveCorpus())('mutations of a real catalog', () => {
  const temps: string[] = [];
  afterAll(async () => {
    for (const t of temps) await rm(t, { recursive: true, force: true });
  });

  const FILE = 'kube-green/catalog.yaml';

  /** Copy the kube-green package into a temp catalog, apply `mutate` to its text, validate. */
  async function mutated(
    mutate: (text: string) => string,
  ): Promise<{ text: string; findings: Finding[]; passed: boolean }> {
    const dir = await mkdtemp(path.join(tmpdir(), 'opm-validate-'));
    temps.push(dir);
    await cp(corpusPath('community-catalog-v4.21', 'kube-green'), path.join(dir, 'kube-green'), {
      recursive: true,
    });
    const file = path.join(dir, FILE);
    const text = mutate(await readFile(file, 'utf8'));
    await writeFile(file, text);
    const r = await validateCatalog(dir);
    return { text, findings: r.findings, passed: r.passed };
  }

  /** 1-based line of the first line containing `needle` (after `from`). */
  function lineOf(text: string, needle: string, from = 0): number {
    const idx = text.indexOf(needle, from);
    expect(idx).toBeGreaterThanOrEqual(0);
    return text.slice(0, idx).split('\n').length;
  }
  /** The line where the YAML document holding `needle` starts (first line after its `---`). */
  function docLine(text: string, needle: string): number {
    const idx = text.indexOf(needle);
    const sep = text.lastIndexOf('---\n', idx);
    return text.slice(0, sep + 4).split('\n').length;
  }
  function bundleDoc(text: string, name: string): { start: number; end: number } {
    const at = text.indexOf(`\nname: ${name}\n`);
    const start = text.lastIndexOf('---\n', at);
    const next = text.indexOf('---\n', at);
    return { start, end: next === -1 ? text.length : next };
  }

  it('the unmodified package passes', async () => {
    const r = await mutated((t) => t);
    expect(r.findings).toEqual([]);
  });

  it('a channel entry whose bundle is gone', async () => {
    const r = await mutated((t) => {
      const d = bundleDoc(t, 'kube-green.v0.5.0');
      return t.slice(0, d.start) + t.slice(d.end);
    });
    expect(r.passed).toBe(false);
    expect(r.findings).toEqual([
      expect.objectContaining({
        rule: 'channel.entry-bundle-missing',
        file: FILE,
        line: docLine(r.text, 'schema: olm.channel'),
        channel: 'alpha',
        bundle: 'kube-green.v0.5.0',
      }),
    ]);
  });

  it('a duplicated bundle', async () => {
    const r = await mutated((t) => {
      const d = bundleDoc(t, 'kube-green.v0.5.0');
      return t + t.slice(d.start, d.end);
    });
    // The copy is the last document: its blob starts on the line after the last `---`.
    const copyLine = r.text.slice(0, r.text.lastIndexOf('---\n') + 4).split('\n').length;
    expect(r.findings).toEqual([
      expect.objectContaining({
        rule: 'bundle.duplicate',
        file: FILE,
        line: copyLine,
        bundle: 'kube-green.v0.5.0',
      }),
    ]);
  });

  it('a broken replaces chain (two heads)', async () => {
    const r = await mutated((t) =>
      t.replace('- name: kube-green.v0.4.0\n  replaces: kube-green.v0.3.1\n', '- name: kube-green.v0.4.0\n'),
    );
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]).toMatchObject({
      rule: 'channel.multiple-heads',
      file: FILE,
      line: docLine(r.text, 'schema: olm.channel'),
      channel: 'alpha',
    });
    expect(r.findings[0]?.message).toContain('kube-green.v0.3.1 (kube-green/catalog.yaml:');
    expect(r.findings[0]?.message).toContain('kube-green.v0.7.1 (kube-green/catalog.yaml:');
  });

  it('a cycle', async () => {
    const r = await mutated((t) =>
      t.replace('- name: kube-green.v0.3.0\n', '- name: kube-green.v0.3.0\n  replaces: kube-green.v0.5.2\n'),
    );
    expect(r.findings).toEqual([
      expect.objectContaining({ rule: 'channel.cycle', line: docLine(r.text, 'schema: olm.channel') }),
    ]);
    expect(r.findings[0]?.message).toContain(
      'kube-green.v0.5.2 -> kube-green.v0.5.1 -> kube-green.v0.5.0 -> kube-green.v0.4.1 -> kube-green.v0.4.0 -> kube-green.v0.3.1 -> kube-green.v0.3.0 -> kube-green.v0.5.2',
    );
  });

  it('an invalid skipRange', async () => {
    const r = await mutated((t) =>
      t.replace(
        '  replaces: kube-green.v0.7.0\n',
        "  replaces: kube-green.v0.7.0\n  skipRange: '>=v0.1.0 <0.7.1'\n",
      ),
    );
    expect(r.findings).toEqual([
      expect.objectContaining({
        rule: 'bundle.skip-range-invalid',
        file: FILE,
        line: docLine(r.text, 'schema: olm.channel'),
        bundle: 'kube-green.v0.7.1',
      }),
    ]);
  });

  it('a bad version', async () => {
    const r = await mutated((t) => {
      const d = bundleDoc(t, 'kube-green.v0.5.0');
      return (
        t.slice(0, d.start) +
        t.slice(d.start, d.end).replace('version: 0.5.0', 'version: 0.5.0.1') +
        t.slice(d.end)
      );
    });
    expect(r.findings).toEqual([
      expect.objectContaining({
        rule: 'bundle.version-invalid',
        file: FILE,
        line: docLine(r.text, '\nname: kube-green.v0.5.0\n'),
        bundle: 'kube-green.v0.5.0',
        message:
          'error parsing bundle "kube-green.v0.5.0" version "0.5.0.1": Invalid character(s) found in patch number "0.1"',
      }),
    ]);
  });

  it('a missing default channel', async () => {
    const r = await mutated((t) => t.replace('defaultChannel: alpha', 'defaultChannel: stable'));
    expect(r.findings).toEqual([
      expect.objectContaining({
        rule: 'package.default-channel-missing',
        file: FILE,
        line: lineOf(r.text, 'defaultChannel'),
      }),
    ]);
  });

  it('a file with a YAML syntax error', async () => {
    const r = await mutated((t) => t.replace('name: alpha\n', 'name: alpha\nbroken: [unclosed\n'));
    expect(r.passed).toBe(false);
    const errors = r.findings.filter((f) => f.severity === 'error');
    expect(errors.length).toBeGreaterThanOrEqual(1);
    expect(errors[0]).toMatchObject({ rule: 'parse.yaml', file: FILE });
    const line = errors[0]?.line ?? 0;
    expect(line).toBeGreaterThanOrEqual(docLine(r.text, 'broken: [unclosed'));
    expect(line).toBeLessThanOrEqual(lineOf(r.text, 'broken: [unclosed') + 3);
  });
});
