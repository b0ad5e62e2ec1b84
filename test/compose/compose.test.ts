// opm compose over local references (testdata/compose/<scenario>/catalog.yaml): the tree and the
// Dockerfile against the expected ones beside the scenario (UPDATE_FIXTURES=1 writes them; they were
// checked against the reference opm running the documentation's script, which
// test/reference/compose.test.ts does on images), and the refusals: unknown keys, references that do
// not render (every one reported, nothing written, the previous tree kept), an alias bomb, a catalog
// that does not validate (written, exit 1), and a file of 10,000 references.
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { compose, ComposeFailedError } from '../../src/action/compose.js';
import { OpmError } from '../../src/errors.js';
import type { ImageSource, PulledImage } from '../../src/oci/image-source.js';

const scenarios = path.resolve('testdata/compose');
let out: string;

beforeEach(() => {
  out = mkdtempSync(path.join(tmpdir(), 'opm-compose-'));
});
afterEach(() => {
  rmSync(out, { recursive: true, force: true });
});

/** Every file under `dir` (relative path → bytes), and every folder (→ null). */
function tree(dir: string, base = dir, acc = new Map<string, string | null>()): Map<string, string | null> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    const rel = path.relative(base, p);
    if (e.isDirectory()) {
      acc.set(rel, null);
      tree(p, base, acc);
    } else acc.set(rel, readFileSync(p, 'latin1'));
  }
  return acc;
}

const catalogFile = (scenario: string): string => path.join(scenarios, scenario, 'catalog.yaml');
const compose$ = (scenario: string, ...flags: string[]): ReturnType<typeof runOpm> =>
  runOpm(['compose', catalogFile(scenario), ...flags], { cwd: out });

describe('opm compose: local references', () => {
  it('writes each reference as opm render does, the Dockerfile beside, and says what each held', async () => {
    const r = await compose$('local');
    expect(r.stderr).toContain(
      'example-operator: 1 package (example-operator), 2 channels, 3 bundles → example-catalog/example-operator/index.yaml',
    );
    expect(r.stderr).toMatch(
      /^dependencies: 2 packages \(.*\), \d+ channels?, \d+ bundles? → example-catalog\/dependencies\/index.yaml$/m,
    );
    expect(r.stderr).toContain('wrote example-catalog.Dockerfile');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    const expected = path.join(scenarios, 'local', 'expected');
    if (process.env.UPDATE_FIXTURES === '1') {
      rmSync(expected, { recursive: true, force: true });
      cpSync(out, expected, { recursive: true });
    }
    expect(tree(out)).toEqual(tree(expected));
    // Folders get the mode mkdir gives them, not a temporary folder's 0700.
    expect(statSync(path.join(out, 'example-catalog')).mode & 0o777).toBe(
      statSync(path.join(out, 'example-catalog', 'example-operator')).mode & 0o777,
    );
  });

  it('--quiet leaves out the line of each reference and of the Dockerfile', async () => {
    const r = await runOpm(['--quiet', 'compose', catalogFile('local')], { cwd: out });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('');
    expect(tree(out)).toEqual(tree(path.join(scenarios, 'local', 'expected')));
  });

  it('-o yaml writes YAML into the same index.yaml files', async () => {
    const r = await compose$('local', '-o', 'yaml', '--no-dockerfile', '--no-validate');
    expect(r.code).toBe(0);
    const text = readFileSync(path.join(out, 'example-catalog/example-operator/index.yaml'), 'utf8');
    expect(text.startsWith('---\n')).toBe(true);
    expect(existsSync(path.join(out, 'example-catalog.Dockerfile'))).toBe(false);
  });

  it('a second run replaces the tree and keeps a Dockerfile with the same text', async () => {
    expect((await compose$('local')).code).toBe(0);
    writeFileSync(path.join(out, 'example-catalog', 'stale.json'), '{}');
    const again = await compose$('local');
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('example-catalog.Dockerfile is already there, unchanged');
    expect(existsSync(path.join(out, 'example-catalog', 'stale.json'))).toBe(false);
    expect(readdirSync(out).sort()).toEqual(['example-catalog', 'example-catalog.Dockerfile']);
  });

  it('a Dockerfile with another text is refused before anything is rendered', async () => {
    writeFileSync(path.join(out, 'example-catalog.Dockerfile'), 'FROM scratch\n');
    const r = await compose$('local');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^error: path ".*example-catalog\.Dockerfile": file already exists \(.*--no-dockerfile\)\n$/,
    );
    expect(readdirSync(out)).toEqual(['example-catalog.Dockerfile']);
  });

  it('a catalog that does not validate is written, with the findings, and exits 1', async () => {
    const r = await compose$('bundle-only');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('unknown package "foo" for bundle "foo.v0.1.0"');
    expect(r.stderr).toContain('example-catalog is written as composed; it does not validate');
    expect(readdirSync(path.join(out, 'example-catalog'))).toEqual(['foo']);
  });
});

describe('opm compose: template references', () => {
  it('renders a template as alpha render-template does, its bundle images read from --bundle-dirs', async () => {
    const dir = path.join(scenarios, 'template');
    const r = await compose$('template', '--bundle-dirs', path.join(dir, 'bundle-dirs.yaml'));
    expect(r.stderr).toMatch(
      /^foo: 1 package \(foo\), \d+ channels?, 3 bundles → example-catalog\/foo\/index.yaml$/m,
    );
    expect(r.code, r.stderr).toBe(0);
    const direct = await runOpm(
      ['alpha', 'render-template', 'template.yaml', '--bundle-dirs', 'bundle-dirs.yaml', '-o', 'json'],
      { cwd: dir },
    );
    expect(direct.code).toBe(0);
    expect(readFileSync(path.join(out, 'example-catalog/foo/index.yaml'), 'utf8')).toBe(direct.stdout);
  });

  it('a reference with both an image and a template, or neither, is refused at its line', async () => {
    const file = path.join(out, 'both.yaml');
    writeFileSync(file, 'name: c\nreferences:\n- name: a\n  image: x\n  template: y\n');
    const both = await runOpm(['compose', file, '--output-root', out], { cwd: out });
    expect(both.stderr).toBe(
      `error: ${file}:3: reference 1 has both \`image\` and \`template\` (a reference is an image (or directory) or a template, not both)\n`,
    );
    writeFileSync(file, 'name: c\nreferences:\n- name: a\n  image: x\n- name: b\n');
    const neither = await runOpm(['compose', file, '--output-root', out], { cwd: out });
    expect(neither.stderr).toMatch(/both\.yaml:5: reference 2 has neither `image` nor `template`/);
    expect(neither.code).toBe(1);
  });
});

describe('opm compose: refusals', () => {
  it('an unknown key: one line with the file and line, nothing written', async () => {
    const r = await compose$('unknown-key');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `error: ${catalogFile('unknown-key')}:5: unknown key "imgae" in reference 1 (a reference takes name, image, template)\n`,
    );
    expect(readdirSync(out)).toEqual([]);
  });

  it.each([
    [
      'name: c\nrefrences:\n- name: a\n  image: x\n',
      2,
      'unknown key "refrences" in the catalog file: did you mean "references"?',
      'the catalog file takes name, repo, tag, references',
    ],
    [
      'name: c\nreferences:\n- name: a\n  imag: x\n',
      4,
      'unknown key "imag" in reference 1: did you mean "image"?',
      'a reference takes name, image, template',
    ],
    [
      'name: c\nreferences:\n- name: a\n  Template: x\n',
      4,
      'unknown key "Template" in reference 1: did you mean "template"?',
      'a reference takes name, image, template',
    ],
  ])(
    'a misspelt key %j is named, with the key meant, not reported as a missing one',
    async (text, line, message, hint) => {
      const file = path.join(out, 'misspelt.yaml');
      writeFileSync(file, text);
      const r = await runOpm(['compose', file, '--output-root', out], { cwd: out });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`error: ${file}:${line}: ${message} (${hint})\n`);
      expect(readdirSync(out)).toEqual(['misspelt.yaml']);
    },
  );

  it('references that fail: every one reported in the file order, nothing written, the previous tree kept', async () => {
    const previous = path.join(out, 'example-catalog', 'old');
    mkdirSync(previous, { recursive: true });
    writeFileSync(path.join(previous, 'index.yaml'), 'previous\n');
    const r = await compose$('failing');
    expect(r.code).toBe(1);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^error: .*catalog\.yaml:6: reference "missing": render reference "\.\/does-not-exist": /,
    );
    expect(lines[1]).toMatch(
      /^error: .*reference "broken": render reference "\.\.\/\.\.\/render\/bad\/fbc-broken": /,
    );
    // The broken file's position is one that opens from where the command ran.
    const at = /^error: (.*?):\d+: reference "broken"/.exec(lines[1] ?? '')?.[1] ?? '';
    expect(readFileSync(path.resolve(out, at), 'utf8')).toContain('schema');
    expect(lines[2]).toBe('error: 2 of 4 references did not render; "example-catalog" was left as it was');
    expect(tree(out)).toEqual(
      new Map([
        ['example-catalog', null],
        ['example-catalog/old', null],
        ['example-catalog/old/index.yaml', 'previous\n'],
      ]),
    );
  });

  it('an alias bomb: one line, nothing expanded, nothing written', async () => {
    const r = await compose$('alias-bomb');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: .*alias-bomb\/catalog\.yaml:\d+: document contains excessive aliasing/);
    expect(r.stderr.split('\n')).toHaveLength(2);
    expect(readdirSync(out)).toEqual([]);
  });

  it('names that are not one folder are refused', async () => {
    const file = path.join(out, 'bad.yaml');
    for (const [name, line] of [
      ['../escape', 3],
      ['a/b', 3],
      ['..', 3],
    ] as const) {
      writeFileSync(file, `name: c\nreferences:\n- name: ${JSON.stringify(name)}\n  image: x\n`);
      const r = await runOpm(['compose', file, '--output-root', out], { cwd: out });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        `bad.yaml:${line}: reference name ${JSON.stringify(name)} is not a folder name`,
      );
    }
    writeFileSync(file, 'name: c\nreferences:\n- name: a\n  image: x\n- name: a\n  image: y\n');
    const dup = await runOpm(['compose', file, '--output-root', out], { cwd: out });
    expect(dup.stderr).toContain('bad.yaml:5: reference name "a" is used twice (first on line 3)');
    expect(readdirSync(out)).toEqual(['bad.yaml']);
  });
});

describe('a catalog file of 10,000 references', () => {
  const N = 10_000;
  const file = (): string => {
    const lines = ['name: big', 'references:'];
    for (let i = 0; i < N; i++) lines.push(`- name: op-${i}`, `  image: registry.invalid/op-${i}:v1`);
    const f = path.join(out, 'big.yaml');
    writeFileSync(f, lines.join('\n') + '\n');
    return f;
  };

  it('pulls a few at a time, opens few files, reports every failure in order and writes nothing', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    let pulls = 0;
    const fds = (): number => readdirSync('/proc/self/fd').length;
    const fdsBefore = fds();
    let maxFds = fdsBefore;
    // A source whose every pull fails after a turn of the event loop (the image is not there).
    const imageSource: ImageSource = {
      async pull(ref: string): Promise<PulledImage> {
        inFlight++;
        pulls++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        if (pulls % 500 === 0) maxFds = Math.max(maxFds, fds());
        await new Promise((resolve) => setImmediate(resolve));
        inFlight--;
        throw new OpmError(`${ref}: manifest unknown`);
      },
    };
    const err = await compose({
      catalogFile: file(),
      outputRoot: out,
      imageSource,
      concurrency: 4,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ComposeFailedError);
    const failures = (err as ComposeFailedError).failures;
    expect(failures).toHaveLength(N);
    expect(failures.map((f) => f.reference.name)).toEqual(Array.from({ length: N }, (_, i) => `op-${i}`));
    expect(failures[1]?.error.message).toBe(
      'reference "op-1": render reference "registry.invalid/op-1:v1": registry.invalid/op-1:v1: manifest unknown',
    );
    expect(pulls).toBe(N);
    expect(maxInFlight).toBe(4);
    expect(maxFds - fdsBefore).toBeLessThan(50);
    expect(readdirSync(out)).toEqual(['big.yaml']);
  });
});

describe('stopping opm compose', () => {
  it('an abort while references render rejects with its reason and leaves nothing, not even the staging folder', async () => {
    const file = path.join(out, 'catalog.yaml');
    // The example catalog renders first, into the staging folder; the images wait until the run is
    // stopped (the second pull stops it).
    const images = Array.from(
      { length: 6 },
      (_, i) => `- name: op-${i}\n  image: registry.invalid/op-${i}:v1\n`,
    );
    writeFileSync(
      file,
      `name: c\nreferences:\n- name: local\n  image: ${path.resolve('testdata/examples/catalog')}\n${images.join('')}`,
    );
    const controller = new AbortController();
    let started = 0;
    const imageSource: ImageSource = {
      pull(): Promise<PulledImage> {
        started++;
        if (started === 2) setImmediate(() => controller.abort(new Error('stopped by the test')));
        return new Promise((_resolve, reject) => {
          controller.signal.addEventListener('abort', () => reject(new OpmError('pull cancelled')), {
            once: true,
          });
        });
      },
    };
    const err = await compose({
      catalogFile: file,
      outputRoot: out,
      imageSource,
      concurrency: 2,
      signal: controller.signal,
    }).catch((e: unknown) => e);
    expect(err).toBe(controller.signal.reason);
    expect(started).toBe(2);
    expect(readdirSync(out)).toEqual(['catalog.yaml']);
  });
});
