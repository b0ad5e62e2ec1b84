// The readers against the reference opm: our own fixtures for what opm reads in its own way, and
// seeded generated YAML documents rendered by both tools and compared byte for byte.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ours, ref } from './reference-opm.js';
import { describe, expect, it } from 'vitest';
import { fuzzBundles } from '../yaml-fuzz-docs.js';

const tmp = (): string => mkdtempSync(path.join(tmpdir(), 'opm-readers-'));

describe('what opm reads in its own way: same output', () => {
  it.each([
    ['a bundle whose manifests write keys twice', ['render', 'testdata/render/good/duplicate-keys']],
    ['invalid UTF-8 in a JSON catalog file', ['render', 'testdata/load/invalid-utf8-json/catalog']],
    ['keys that fold to a field name (U+017F, U+212A)', ['render', 'testdata/load/folded-keys/catalog']],
    ['YAML 1.1 standard, local and verbatim tags', ['render', 'testdata/load/yaml11-tags/catalog']],
    ['two separators in a row inside a file', ['render', 'testdata/load/doubled-separator/catalog']],
    ['tabs where go-yaml reads them', ['render', 'testdata/load/tabs-go-yaml-reads/catalog']],
    [
      'a basic template with a key written twice',
      ['alpha', 'render-template', 'basic', 'testdata/templates/duplicate-keys/template.yaml'],
    ],
  ])('%s', async (_name, args) => {
    for (const format of ['json', 'yaml']) {
      const a = await ours([...args, '-o', format]);
      const b = ref([...args, '-o', format]);
      expect(b.code).toBe(0);
      expect(a.code).toBe(0);
      expect(a.stdout).toBe(b.stdout);
    }
  });

  it.each([
    'testdata/load/invalid-utf8-json/catalog',
    'testdata/load/folded-keys/catalog',
    'testdata/load/yaml11-tags/catalog',
    'testdata/load/doubled-separator/catalog',
  ])('validate %s: both pass', async (dir) => {
    expect((await ours(['validate', dir])).code).toBe(0);
    expect(ref(['validate', dir]).code).toBe(0);
  });
});

describe('what opm refuses: refused too', () => {
  it('tabs where go-yaml refuses them (js-yaml reads them): nothing on stdout, exit 1', async () => {
    const args = ['render', 'testdata/load/tabs-go-yaml-refuses/catalog'];
    const a = await ours(args);
    const b = ref(args);
    expect(b).toEqual({ code: 1, stdout: '' });
    expect(a).toEqual({ code: 1, stdout: '' });
  });
});

describe('where opm-ts does better (docs/compatibility.md, "Reading input")', () => {
  it('an SVG icon starting with a byte-order mark: opm refuses it, opm-ts reads it', async () => {
    const dir = path.resolve('testdata/init/svg-icon-with-bom');
    const args = ['init', 'widget-operator', '-i', 'icon.svg'];
    expect(ref(args, dir).code).not.toBe(0);
    expect((await ours(args, dir)).code).toBe(0);
  });

  it('an empty document at the start of a file: opm fails, opm-ts skips it', async () => {
    const dir = tmp();
    cpSync('testdata/load/doubled-separator/catalog', dir, { recursive: true });
    const file = path.join(dir, 'catalog.yaml');
    writeFileSync(file, '---\n---\n' + readFileSync(file, 'utf8'));
    expect(ref(['validate', dir]).code).not.toBe(0);
    expect((await ours(['validate', dir])).code).toBe(0);
  });

  it.each([
    ['a bare double quote', 'a=say "hi"', 'refused by both'],
    ['a line break', 'a=line1\nline2', 'opm drops the second line'],
  ])('a Dockerfile label with %s: opm-ts refuses it and writes nothing', async (_what, label, _opm) => {
    const dir = tmp();
    cpSync('testdata/examples/catalog', path.join(dir, 'bar'), { recursive: true });
    const r = await ours(['generate', 'dockerfile', path.join(dir, 'bar'), '-l', label]);
    expect(r.code).toBe(1);
    expect(existsSync(path.join(dir, 'bar.Dockerfile'))).toBe(false);
  });

  it('a label with a bare double quote is refused by opm too', () => {
    const dir = tmp();
    cpSync('testdata/examples/catalog', path.join(dir, 'bar'), { recursive: true });
    expect(ref(['generate', 'dockerfile', path.join(dir, 'bar'), '-l', 'a=say "hi"']).code).not.toBe(0);
  });
});

describe('generated YAML documents: render -o json byte for byte', () => {
  // Each seed is one catalog of a few bundles whose property values hold the YAML that go-yaml v2
  // reads in its own way. A fixed number of seeds keeps the run short and reproducible.
  const seeds = Array.from({ length: 80 }, (_, i) => i + 1);
  let rendered = 0;
  it.each(seeds)('seed %i', async (seed) => {
    const dir = tmp();
    mkdirSync(path.join(dir, 'c'));
    const docs = fuzzBundles(seed, 3, `fuzz${seed}`);
    writeFileSync(path.join(dir, 'c', 'catalog.yaml'), docs.map((d) => `---\n${d}`).join(''));
    const a = await ours(['render', path.join(dir, 'c'), '-o', 'json']);
    const b = ref(['render', path.join(dir, 'c'), '-o', 'json']);
    if (b.code === 0) rendered++;
    expect({ code: a.code === 0 ? 0 : 1, stdout: a.stdout }).toEqual({
      code: b.code === 0 ? 0 : 1,
      stdout: b.stdout,
    });
  });

  it('most generated catalogs render (the comparison is of data, not of two failures)', () => {
    expect(rendered).toBeGreaterThan(seeds.length / 2);
  });
});
