// The same commands through opm-ts and through the reference opm, on our own fixtures and the
// corpus: outputs must be identical where the output is data, and verdicts must agree. Differences
// that are deliberate (docs/compatibility.md) are excluded by name, with the row that explains them.
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ours, ref } from './reference-opm.js';
import { describe, expect, it } from 'vitest';
import { corpusPath, haveCorpus } from '../corpus.js';

if (!haveCorpus()) throw new Error('the differential suite needs the corpus');

const dirs = (root: string): string[] =>
  readdirSync(root)
    .filter((d) => existsSync(path.join(root, d, 'catalog')))
    .sort();

// The validate fixtures but one, and the catalog holding what only the editor schemas reject (opm passes it).
// channel-order-in-tree: opm's order of channels in its message changes from run to run
// (compatibility row 48, data-loss.test.ts).
const validateCases = [
  ...dirs('testdata/validate')
    .filter((c) => c !== 'channel-order-in-tree')
    .map((c) => path.join('testdata/validate', c)),
  ...dirs('testdata/schemas').map((c) => path.join('testdata/schemas', c)),
];

describe('validate: same verdict and opm message', () => {
  it.each(validateCases)('%s', async (c) => {
    const dir = path.join(c, 'catalog');
    const a = await ours(['validate', dir, '-o', 'json']);
    const b = ref(['validate', dir, '-o', 'json']);
    if (c.startsWith('lint-')) {
      // Rules beyond opm (compatibility row 43): opm accepts every one of these catalogs, and
      // opm-ts with default settings fails only those whose rule is an error by default (fixtures
      // with an options.json turn on policies that are off by default, so pass here).
      expect(b.code).toBe(0);
      const fixture = path.join('testdata/validate', c);
      const expected = JSON.parse(readFileSync(path.join(fixture, 'expected.json'), 'utf8')) as {
        passed: boolean;
      };
      const configured = existsSync(path.join(fixture, 'options.json'));
      expect(a.code).toBe(expected.passed || configured ? 0 : 1);
      return;
    }
    expect(a.code).toBe(b.code);
    const message = (s: string): unknown =>
      (JSON.parse(s) as { error?: { message?: string } }).error?.message;
    expect(message(a.stdout)).toBe(message(b.stdout));
  });
});

const bundleDirs = [
  ...readdirSync('testdata/render/good').map((d) => path.join('testdata/render/good', d)),
  ...readdirSync(corpusPath('opm-testdata'))
    .filter((d) => d.includes('-bundle-'))
    .map((d) => corpusPath('opm-testdata', d)),
  corpusPath('community-bundles', 'kube-green', '0.7.1'),
];
const TEMPLATE = 'quay.io/example/{{.Package}}:{{.Version}}';
// A numeric CSV `spec.release` makes opm's migration fail; opm-ts migrates it (compatibility row 8).
const migrationDiffers = new Set(['testdata/render/good/properties-and-dependencies']);

describe('render of bundle directories: byte for byte', () => {
  const cases = bundleDirs.flatMap((d) =>
    ['json', 'yaml'].flatMap((format) =>
      [[], ['--migrate-level', 'bundle-object-to-csv-metadata']]
        .filter((m) => m.length === 0 || !migrationDiffers.has(d))
        .map((migrate) => ({
          name: `${path.basename(d)} ${format} ${migrate.join(' ')}`,
          d,
          format,
          migrate,
        })),
    ),
  );
  it.each(cases)('$name', async ({ d, format, migrate }) => {
    const args = ['render', d, '--alpha-image-ref-template', TEMPLATE, ...migrate, '-o', format];
    const a = await ours(args);
    const b = ref(args);
    expect(a.code).toBe(0);
    expect(b.code).toBe(0);
    expect(a.stdout).toBe(b.stdout);
  });
});

describe('catalog views: byte for byte', () => {
  const list = corpusPath('opm-testdata', 'list-index');
  const catalog = corpusPath('community-catalog-v4.21');
  const kubeGreen = path.join(catalog, 'kube-green', 'catalog.yaml');
  it.each([
    ['render', catalog, '-o', 'yaml'],
    ['render', catalog, '-o', 'json'],
    ['render', 'testdata/render/json-property-values/catalog', '-o', 'json'],
    ['render', 'testdata/render/json-property-values/catalog', '-o', 'yaml'],
    ['render', 'testdata/render/json-beyond-ascii/catalog', '-o', 'json'],
    ['render', 'testdata/render/json-beyond-ascii/catalog', '-o', 'yaml'],
    ['render', 'testdata/render/json-checks/clean', '-o', 'json'],
    ['render', 'testdata/render/json-lone-surrogates/catalog', '-o', 'json'],
    ['render', 'testdata/render/json-lone-surrogates/catalog', '-o', 'yaml'],
    ['alpha', 'list', 'packages', catalog],
    ['alpha', 'list', 'channels', catalog],
    ['alpha', 'list', 'bundles', catalog],
    ['alpha', 'list', 'bundles', list, 'foo'],
    ['alpha', 'render-graph', catalog],
    ['alpha', 'render-graph', list, '--draw-v0-semantics'],
    ['alpha', 'render-graph', list, '--minimum-edge', 'foo.v0.2.0'],
    ['alpha', 'convert-template', 'basic', kubeGreen, '-o', 'yaml'],
    ['alpha', 'convert-template', 'substitutes', kubeGreen],
  ])('%s %s %s', async (...args) => {
    const a = await ours(args);
    const b = ref(args);
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(b.stdout);
  });

  it('migrate writes the same files', async () => {
    const tmp = mkdtempSync(path.join(tmpdir(), 'opm-diff-migrate-'));
    const mine = path.join(tmp, 'mine');
    const theirs = path.join(tmp, 'theirs');
    expect((await ours(['migrate', catalog, mine, '-o', 'yaml'])).code).toBe(0);
    expect(ref(['migrate', catalog, theirs, '-o', 'yaml']).code).toBe(0);
    const files = (root: string): string[] => readdirSync(root, { recursive: true, encoding: 'utf8' }).sort();
    expect(files(mine)).toEqual(files(theirs));
    for (const f of files(mine).filter((f) => f.endsWith('.yaml'))) {
      expect(readFileSync(path.join(mine, f), 'utf8')).toBe(readFileSync(path.join(theirs, f), 'utf8'));
    }
  });
});

describe('authoring commands: byte for byte', () => {
  it.each(
    readdirSync('testdata/init').filter(
      // opm refuses an SVG that starts with a byte-order mark; opm-ts reads it (readers.test.ts).
      (c) => existsSync(path.join('testdata/init', c, 'expected.out')) && c !== 'svg-icon-with-bom',
    ),
  )('init %s', async (c) => {
    const dir = path.resolve('testdata/init', c);
    const args = ['init', ...(JSON.parse(readFileSync(path.join(dir, 'args.json'), 'utf8')) as string[])];
    expect((await ours(args, dir)).stdout).toBe(ref(args, dir).stdout);
  });

  it.each(
    readdirSync('testdata/generate-dockerfile').filter((c) =>
      existsSync(path.join('testdata/generate-dockerfile', c, 'args.json')),
    ),
  )('generate dockerfile %s', async (c) => {
    const flags = JSON.parse(
      readFileSync(path.join('testdata/generate-dockerfile', c, 'args.json'), 'utf8'),
    ) as string[];
    const texts: string[] = [];
    for (const run of [ours, async (a: string[]) => Promise.resolve(ref(a))]) {
      const tmp = mkdtempSync(path.join(tmpdir(), 'opm-diff-gen-'));
      cpSync('testdata/examples/catalog', path.join(tmp, 'bar'), { recursive: true });
      expect((await run(['generate', 'dockerfile', path.join(tmp, 'bar'), ...flags])).code).toBe(0);
      texts.push(readFileSync(path.join(tmp, 'bar.Dockerfile'), 'utf8'));
    }
    expect(texts[0]).toBe(texts[1]);
  });
});
