// needs-build: it runs bin/opm.js as a program over dist/, beside the reference opm.
// `opm render <bundle dir>...` against the reference opm: seeded registry+v1 bundle directories
// (test/bundle-dir-fuzz.ts: YAML with comments everywhere, JSON manifests, annotations, properties
// and dependencies files), one to three per command line, with every form of the output flag,
// rendered by bin/opm.js run as a program and by the reference: stdout byte for byte, the same exit
// status. As a program, bin/opm.js renders a clean `render <dir>... [-o|--output json|yaml]` from a
// bundle of its own (row P13 of docs/compatibility.md) and leaves everything else to the command
// line. A copy of the package without the command line tells which: there, only that render can
// succeed, and a command line it declines says the command line is missing, and is then run by the
// whole package.
//
// Seeds broken on purpose: a manifest that is no YAML (opm skips it, opm-ts refuses the bundle: row
// 4), a key written twice, a manifest of several documents and an `olm.properties` annotation that
// is not JSON (the same output; opm-ts warns, rows 5 and 29, so the fast render declines), no
// annotations file (both fail). Kept out of the generated
// text: a CRD whose schema holds a value of another type than Kubernetes' (opm decodes the whole CRD
// into its types and fails, `error decoding v1 CRD: json: cannot unmarshal …`; opm-ts reads only the
// fields it uses and renders), tabs where go-yaml refuses them (two cases of their own below, in the
// CSV and the annotations file; yaml-comments.test.ts compares them at length; in another manifest
// they meet row 4 again), and what yaml-comments.test.ts leaves out.
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ref } from './reference-opm.js';
import { writeFuzzBundleDir, type Breakage } from '../bundle-dir-fuzz.js';
import { seededRandom } from '../seeded-random.js';

const work = mkdtempSync(path.join(tmpdir(), 'opm-bundle-dirs-'));
const bin = path.resolve('bin/opm.js');
// The package as installed, without the command line's bundles: only the fast render is left.
const fastOnly = path.join(work, 'fast-only', 'bin', 'opm.js');
const MISSING = 'is missing: build opm-ts';

beforeAll(() => {
  const installed = path.join(work, 'fast-only');
  for (const d of ['bin', 'dist', 'schemas'])
    cpSync(path.resolve(d), path.join(installed, d), { recursive: true });
  cpSync(path.resolve('package.json'), path.join(installed, 'package.json'));
  symlinkSync(path.resolve('node_modules'), path.join(installed, 'node_modules'));
  for (const f of ['opm.cjs', 'opm-short.cjs']) rmSync(path.join(installed, 'dist', f));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Run as a program: this Node.js first in PATH, as npm's link finds it; caches in the work folder. */
function program(opm: string, args: string[], cwd: string): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(opm, args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    env: {
      PATH: [path.dirname(process.execPath), process.env.PATH ?? ''].join(path.delimiter),
      HOME: work,
      OLM_CACHE_DIR: work,
    },
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const BREAKAGES: readonly Breakage[] = [
  'none',
  'none',
  'none',
  'none',
  'broken-manifest',
  'duplicate-key',
  'several-documents',
  'properties-not-json',
  'no-annotations',
];

// The forms of the output flag; the last two are read by the command line only.
const FORMS: readonly string[][] = [
  [],
  ['-o', 'json'],
  ['-o', 'yaml'],
  ['--output', 'json'],
  ['--output', 'yaml'],
  ['--output=json'],
  ['--output=yaml'],
  ['-oyaml'],
  ['-o=json'],
];
const PLAIN_FORMS = 7;

describe('bundle directories: render as a program, byte for byte', () => {
  const seeds = Array.from({ length: 64 }, (_, i) => i + 1);
  let rendered = 0;
  let fast = 0;
  it.each(seeds)('seed %i', (seed) => {
    const rnd = seededRandom(seed * 7919);
    const root = path.join(work, `s${seed}`);
    const breakage = BREAKAGES[seed % BREAKAGES.length] ?? 'none';
    const count = 1 + Math.floor(rnd() * 3);
    // The broken directory is one of those on the command line.
    const broken = Math.floor(rnd() * count);
    const dirs = Array.from({ length: count }, (_, i) =>
      writeFuzzBundleDir(root, seed, i, `pkg${seed}`, i === broken ? breakage : 'none'),
    );
    // Relative to the working folder now and then, as typed.
    const refs = rnd() < 0.3 ? dirs.map((d) => path.relative(root, d)) : dirs;
    const formIndex = Math.floor(rnd() * FORMS.length);
    const form = FORMS[formIndex] ?? [];
    const args = rnd() < 0.3 ? ['render', ...form, ...refs] : ['render', ...refs, ...form];
    const what = args.join(' ');

    const theirs = ref(args, root);
    const tried = program(fastOnly, args, root);
    const declined = tried.code !== 0 && tried.stderr.includes(MISSING);
    const mine = declined ? program(bin, args, root) : tried;
    if (!declined) fast++;
    if (theirs.code === 0) rendered++;

    if (breakage === 'broken-manifest') {
      // Row 4 of docs/compatibility.md: opm drops the file and renders the rest; opm-ts refuses.
      expect(theirs.code, what).toBe(0);
      expect({ code: mine.code, stdout: mine.stdout }, what).toEqual({ code: 1, stdout: '' });
      expect(mine.stderr, what).toContain('manifests/zz-broken.yaml: is not valid YAML or JSON');
    } else {
      expect({ code: mine.code, stdout: mine.stdout }, what).toEqual({
        code: theirs.code,
        stdout: theirs.stdout,
      });
    }
    // The fast render takes every clean plain command line, and nothing that warns or fails.
    expect(declined, what).toBe(breakage !== 'none' || formIndex >= PLAIN_FORMS);
  });

  it.each([
    ['the CSV', 'manifests/demo.clusterserviceversion.yaml', '\t# a comment line indented with a tab\n'],
    ['the annotations file', 'metadata/annotations.yaml', '  \t# a comment line indented with a tab\n'],
  ])('a tab go-yaml refuses in %s: both fail, nothing on stdout', (_what, file, line) => {
    const dir = path.join(work, `tab-${path.basename(file)}`);
    cpSync(path.resolve('testdata/render/good/properties-and-dependencies'), dir, { recursive: true });
    appendFileSync(path.join(dir, file), line);
    const mine = program(bin, ['render', dir], work);
    expect(ref(['render', dir], work)).toEqual({ code: 1, stdout: '' });
    expect({ code: mine.code, stdout: mine.stdout }).toEqual({ code: 1, stdout: '' });
  });

  it('most command lines render (the comparison is of data, not of two failures)', () => {
    expect(rendered).toBeGreaterThan(seeds.length * 0.6);
    expect(fast).toBeGreaterThan(seeds.length / 3);
  });
});
