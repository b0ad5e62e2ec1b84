import { mkdtempSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { corpusPath, haveCorpus } from '../../test/corpus.js';
import { OpmError } from '../errors.js';
import type { Finding } from '../findings.js';
import { loadCatalogDir, loadCatalogDirOrThrow, type LoadResult } from './load.js';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../testdata/load');
const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

function tempCatalog(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'opm-load-'));
  temps.push(dir);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

function errors(r: LoadResult): Finding[] {
  return r.findings.filter((f) => f.severity === 'error');
}

describe('fixtures under testdata/load', () => {
  const cases = readdirSync(fixtures, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();

  it.each(cases)('%s', async (name) => {
    const r = await loadCatalogDir(path.join(fixtures, name, 'catalog'));
    const golden = JSON.stringify({ findings: r.findings, cfg: r.cfg }, null, 2) + '\n';
    await expect(golden).toMatchFileSnapshot(path.join(fixtures, name, 'expected.json'));
  });
});

describe('file system problems are findings', () => {
  it('symlink loop, symlink to a directory, dangling symlink; symlinked files are followed', async () => {
    const dir = tempCatalog({
      'real/package.yaml': 'schema: olm.package\nname: linked-operator\n',
    });
    symlinkSync('loop-b', path.join(dir, 'loop-a'));
    symlinkSync('loop-a', path.join(dir, 'loop-b'));
    symlinkSync('real', path.join(dir, 'dir-link'));
    symlinkSync('missing.yaml', path.join(dir, 'dangling.yaml'));
    symlinkSync('real/package.yaml', path.join(dir, 'file-link.yaml'));
    const r = await loadCatalogDir(dir);
    expect(r.findings.map((f) => [f.file, f.rule])).toStrictEqual([
      ['dangling.yaml', 'load.unreadable'],
      ['dir-link', 'load.symlink-dir'],
      ['loop-a', 'load.symlink-loop'],
      ['loop-b', 'load.symlink-loop'],
    ]);
    expect(r.cfg.packages.map((p) => p.loc?.file)).toStrictEqual(['file-link.yaml', 'real/package.yaml']);
  });

  it('ignored symlinks are not reported', async () => {
    const dir = tempCatalog({ '.indexignore': 'loop\n', 'a.yaml': 'schema: olm.package\nname: a\n' });
    symlinkSync('loop', path.join(dir, 'loop'));
    const r = await loadCatalogDir(dir);
    expect(r.findings).toStrictEqual([]);
  });

  it('a missing directory or a file argument is a one-line OpmError', async () => {
    const dir = tempCatalog({ 'a.yaml': 'schema: olm.package\nname: a\n' });
    await expect(loadCatalogDir(path.join(dir, 'nope'))).rejects.toThrow(/does not exist/);
    await expect(loadCatalogDir(path.join(dir, 'a.yaml'))).rejects.toThrow(/is not a directory/);
    await expect(loadCatalogDir(path.join(dir, 'nope'))).rejects.toBeInstanceOf(OpmError);
  });
});

describe('input that could crash or hang a parser', () => {
  it('deep nesting in JSON and YAML is reported, not a stack overflow', async () => {
    const n = 200_000;
    const dir = tempCatalog({
      'deep.json': `{"schema":"olm.package","name":"deep","x":${'['.repeat(n)}${']'.repeat(n)}}\n`,
      'deep.yaml': `schema: olm.package\nname: deep\nx: ${'['.repeat(n)}${']'.repeat(n)}\n`,
      'deep-block.yaml':
        'schema: olm.package\nname: deep\nx:\n' +
        Array.from({ length: 3000 }, (_, i) => `${' '.repeat(i + 1)}- `).join('\n') +
        '1\n',
    });
    const r = await loadCatalogDir(dir);
    expect(r.findings.map((f) => [f.file, f.line, f.rule, f.message])).toStrictEqual([
      ['deep-block.yaml', 1003, 'parse.yaml', 'nesting exceeded maxDepth (1000)'],
      ['deep.json', 1, 'parse.json', 'nesting deeper than 1000 levels'],
      ['deep.yaml', 3, 'parse.yaml', 'nesting exceeded maxDepth (1000)'],
    ]);
  });

  it('a 100 MB single-line JSON file with a huge payload loads, and payloads can be elided', async () => {
    const payload = Buffer.alloc(75 * 1024 * 1024, 'catalog').toString('base64');
    const bundle = {
      schema: 'olm.bundle',
      package: 'big-operator',
      name: 'big-operator.v1.0.0',
      image: 'quay.io/example/big:v1.0.0',
      properties: [
        { type: 'olm.package', value: { packageName: 'big-operator', version: '1.0.0' } },
        { type: 'olm.bundle.object', value: { data: payload } },
      ],
    };
    const text = JSON.stringify({ schema: 'olm.package', name: 'big-operator' }) + JSON.stringify(bundle);
    expect(text.length).toBeGreaterThan(100_000_000);
    const dir = tempCatalog({ 'catalog.json': text });
    const elided = await loadCatalogDir(dir, { elidePayloads: true });
    expect(elided.findings).toStrictEqual([]);
    const b = elided.cfg.bundles[0];
    expect(b?.payloadsElided).toBe(true);
    expect(b?.properties?.[1]).toStrictEqual({ type: 'olm.bundle.object', value: {} });
    expect(b?.loc).toStrictEqual({ file: 'catalog.json', line: 1 });
    const kept = await loadCatalogDir(dir);
    expect(kept.cfg.bundles[0]?.properties?.[1]?.value).toStrictEqual({ data: payload });
  });

  it.each(['json', 'yaml'])(
    'a %s file larger than one part is read in parts with exact lines',
    async (kind) => {
      const description = 'x'.repeat(100_000);
      const blobs = Array.from({ length: 900 }, (_, i) => ({
        schema: 'olm.package',
        name: `pkg-${i}`,
        description,
      }));
      const text =
        kind === 'json'
          ? blobs.map((b) => JSON.stringify(b, null, 2)).join('\n')
          : blobs
              .map((b) => `---\nschema: ${b.schema}\nname: ${b.name}\ndescription: ${b.description}\n`)
              .join('');
      expect(text.length).toBeGreaterThan(64 * 1024 * 1024);
      const dir = tempCatalog({
        [`catalog.${kind}`]: text + (kind === 'json' ? '\n{"schema": 5}\n' : '---\nschema: [\n'),
      });
      const r = await loadCatalogDir(dir);
      expect(r.cfg.packages.map((p) => p.name)).toStrictEqual(blobs.map((b) => b.name));
      const linesPerBlob = kind === 'json' ? 5 : 4;
      const start = kind === 'json' ? 1 : 2;
      expect(r.cfg.packages.map((p) => p.loc?.line)).toStrictEqual(
        blobs.map((_, i) => start + i * linesPerBlob),
      );
      // JSON: the bad blob is on the line after the last package; YAML: js-yaml reports the end of input.
      expect(errors(r).map((f) => f.line)).toStrictEqual([kind === 'json' ? 900 * 5 + 1 : 900 * 4 + 3]);
    },
  );
});

describe('options', () => {
  it('the result does not depend on the number of threads', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++)
      files[`p${String(i).padStart(2, '0')}/catalog.yaml`] = `schema: olm.package\nname: p${i}\n`;
    files['p07/bad.yaml'] = 'a: [\n';
    const dir = tempCatalog(files);
    const one = await loadCatalogDir(dir, { threads: 1 });
    const many = await loadCatalogDir(dir, { threads: 3, workerMinBytes: 0 });
    expect(many).toStrictEqual(one);
    expect(one.cfg.packages).toHaveLength(40);
  });
});

describe('throwing variants', () => {
  it('loadCatalogDirOrThrow throws the first error with its position, and passes warnings on', async () => {
    const warned: string[] = [];
    const ok = tempCatalog({ 'a.yaml': 'schema: olm.package\nname: a\nextra: 1\n' });
    const cfg = await loadCatalogDirOrThrow(ok, { onWarning: (f) => warned.push(f.rule) });
    expect(cfg.packages.map((p) => p.name)).toStrictEqual(['a']);
    expect(warned).toStrictEqual(['decode.unknown-field']);

    const bad = tempCatalog({ 'b.yaml': 'schema: olm.package\nname: b\n---\nname: c\n', 'a.yaml': 'x: [\n' });
    const err = await loadCatalogDirOrThrow(bad).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpmError);
    if (err instanceof OpmError) {
      expect(err.at).toStrictEqual({ file: 'a.yaml', line: 2 });
      expect(err.message).toMatch(/flow collection/);
    }
  });
});

describe.runIf(haveCorpus())('corpus catalogs load without errors', () => {
  it('community-catalog-v4.21', async () => {
    const r = await loadCatalogDir(corpusPath('community-catalog-v4.21'));
    expect(errors(r)).toStrictEqual([]);
    expect([r.cfg.packages.length, r.cfg.bundles.length, r.cfg.channels.length]).toStrictEqual([33, 745, 78]);
    expect(r.findings).toStrictEqual([]);
  });

  const others = [
    'cool-catalog/catalog',
    'opm-testdata/list-index',
    'opm-testdata/foo-index-v0.2.0-declcfg',
    ...(haveCorpus()
      ? readdirSync(corpusPath('opm-testdata/index-declcfgs')).map((d) => `opm-testdata/index-declcfgs/${d}`)
      : []),
  ];
  it.each(others)('%s', async (rel) => {
    const r = await loadCatalogDir(corpusPath(rel));
    expect(errors(r)).toStrictEqual([]);
    // Bundle objects are checked and elided where present.
    const elided = await loadCatalogDir(corpusPath(rel), { elidePayloads: true });
    expect(errors(elided)).toStrictEqual([]);
    const withObjects = r.cfg.bundles.filter((b) =>
      b.properties?.some((p) => p.type === 'olm.bundle.object'),
    );
    expect(elided.cfg.bundles.filter((b) => b.payloadsElided).length).toBe(withObjects.length);
  });

  it('a real duplicate key in opm testdata is a warning, last value kept', async () => {
    const r = await loadCatalogDir(corpusPath('opm-testdata/index-declcfgs/exp-headsonly'));
    expect(r.findings.map((f) => [f.rule, f.severity, f.file])).toStrictEqual([
      ['parse.duplicate-key', 'warning', 'index.yaml'],
    ]);
  });
});
