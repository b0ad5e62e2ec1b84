/**
 * `opm render` and `opm migrate` from the command line: output bytes, flags, one-line errors,
 * exit codes, and no partial output.
 */
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  mkdirSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { corpusPath, haveCorpus } from '../corpus.js';
import { catalogBundles } from '../render/corpus-helpers.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('opm render (CLI)', () => {
  it.runIf(haveCorpus())('writes a community bundle directory as opm wrote it into the catalog', async () => {
    const dir = corpusPath('community-bundles', 'kube-green', '0.7.0');
    const expected = catalogBundles('kube-green').get('kube-green.v0.7.0');
    const image = expected?.blob.image;
    if (typeof image !== 'string') throw new Error('no catalog blob for kube-green.v0.7.0');
    const r = await runOpm([
      'render',
      dir,
      '--alpha-image-ref-template',
      image,
      '--migrate-level',
      'bundle-object-to-csv-metadata',
      '-o',
      'yaml',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(expected?.yaml);
  });

  it.runIf(haveCorpus())('--migrate runs every migration; json output by default', async () => {
    const r = await runOpm(['render', corpusPath('opm-testdata', 'foo-bundle-v0.1.0'), '--migrate']);
    expect(r.code).toBe(0);
    const blob: unknown = JSON.parse(r.stdout);
    expect(blob).toMatchObject({ schema: 'olm.bundle', name: 'foo.v0.1.0', image: '' });
    expect(r.stdout).toContain('"type": "olm.csv.metadata"');
    expect(r.stdout).toContain('"olm.skipRange": "<0.1.0"');
  });

  it('refuses --migrate with --migrate-level', async () => {
    const r = await runOpm(['render', 'x', '--migrate', '--migrate-level', 'none']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: if any flags in the group [migrate migrate-level] are set none of the others can be; [migrate migrate-level] were all set\n',
    );
  });

  it('refuses an unknown migration level as a usage error', async () => {
    const r = await runOpm(
      ['render', 'testdata/render/good/properties-and-dependencies', '--migrate-level', 'x'],
      {
        cwd: root,
      },
    );
    // A usage error (exit 2) that lists the levels; opm says the first half and exits 1.
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: unknown migration level "x" (valid levels: none, bundle-object-to-csv-metadata, all)\n',
    );
    expect(r.stdout).toBe('');
  });

  it('refuses an unknown output format', async () => {
    const r = await runOpm(['render', 'x', '-o', 'xml']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: invalid --output value "xml", expected (json|yaml)\n');
  });

  it('refuses a bad image reference template', async () => {
    const r = await runOpm(
      [
        'render',
        'testdata/render/good/properties-and-dependencies',
        '--alpha-image-ref-template',
        'x/{{.Nope}}',
      ],
      { cwd: root },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: invalid image reference template: unsupported action \{\{\.Nope\}\}/);
  });

  it('a bad bundle directory is one line on stderr, exit 1, nothing on stdout', async () => {
    const r = await runOpm(['render', 'testdata/render/bad/two-csvs'], { cwd: root });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `error: ${readFileSync(path.join(root, 'testdata/render/bad/two-csvs/expected-error.txt'), 'utf8')}`,
    );
  });

  it('a broken FBC directory names the file and line', async () => {
    const r = await runOpm(['render', 'testdata/render/bad/fbc-broken'], { cwd: root });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `error: ${readFileSync(path.join(root, 'testdata/render/bad/fbc-broken/expected-error.txt'), 'utf8')}`,
    );
  });

  it('prints opm-tolerated problems as warnings and renders', async () => {
    const r = await runOpm(['render', 'testdata/render/bad/several-documents', '-o', 'yaml'], { cwd: root });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `warning: ${readFileSync(path.join(root, 'testdata/render/bad/several-documents/expected-warning.txt'), 'utf8')}`,
    );
    expect(r.stdout).toMatch(/^---\nimage: ""\nname: demo\.v1\.0\.0\n/);
  });
});

describe.runIf(haveCorpus())('opm migrate (CLI)', () => {
  let tmp = '';
  beforeEach(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'opm-migrate-'));
  });
  afterEach(() => {
    rmSync(tmp, { recursive: true, force: true });
  });

  it('writes one folder per package, migrated', async () => {
    const out = path.join(tmp, 'out');
    const r = await runOpm([
      'migrate',
      corpusPath('opm-testdata', 'foo-index-v0.2.0-declcfg'),
      out,
      '-o',
      'yaml',
      '--migrate-level',
      'all',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(readdirSync(out)).toEqual(['foo']);
    expect(readdirSync(path.join(out, 'foo'))).toEqual(['catalog.yaml']);
    const text = readFileSync(path.join(out, 'foo', 'catalog.yaml'), 'utf8');
    expect(text.startsWith('---\ndefaultChannel: beta\n')).toBe(true);
    expect(text).toContain('type: olm.csv.metadata');
    expect(text).not.toContain('olm.bundle.object');
    // Nothing but the output directory is left beside it.
    expect(readdirSync(tmp)).toEqual(['out']);
  });

  it('accepts an existing empty output directory', async () => {
    const out = path.join(tmp, 'out');
    mkdirSync(out);
    const r = await runOpm(['migrate', corpusPath('opm-testdata', 'foo-index-v0.2.0-declcfg'), out]);
    expect(r.code).toBe(0);
    expect(readdirSync(path.join(out, 'foo'))).toEqual(['catalog.json']);
  });

  it('refuses a non-empty output directory and leaves it alone', async () => {
    const out = path.join(tmp, 'out');
    mkdirSync(out);
    writeFileSync(path.join(out, 'keep.txt'), 'x');
    const r = await runOpm(['migrate', corpusPath('opm-testdata', 'foo-index-v0.2.0-declcfg'), out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`error: output dir "${out}" must be empty\n`);
    expect(readdirSync(out)).toEqual(['keep.txt']);
  });

  it('refuses a bundle directory and writes nothing', async () => {
    const out = path.join(tmp, 'out');
    const ref = corpusPath('opm-testdata', 'foo-bundle-v0.2.0');
    const r = await runOpm(['migrate', ref, out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `error: render reference "${ref}": cannot render bundle directory "${ref}": not allowed\n`,
    );
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('a catalog that fails to load writes nothing', async () => {
    const out = path.join(tmp, 'out');
    const r = await runOpm(['migrate', 'testdata/render/bad/fbc-broken', out], { cwd: root });
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')).toHaveLength(2);
    expect(existsSync(out)).toBe(false);
  });
});
