// Paths in human text: every command names a catalog's files as a person can open them from where
// the command ran (under the directory as typed), in its positions and in the files its messages
// mention; the machine outputs keep their documented bases. testdata/paths/<command>.txt holds the
// stderr each command writes (regenerate with UPDATE_FIXTURES=1, then review the diff).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { messageUnderCatalog, underCatalog } from '../../src/findings.js';
import { runOpm } from '../run-cli.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const scenario = path.join(root, 'testdata/paths');

describe('paths in human output, under the catalog directory as typed', () => {
  it.each([
    ['validate', ['validate', 'testdata/paths/catalog'], 1],
    ['generate-dockerfile', ['generate', 'dockerfile', 'testdata/paths/catalog'], 1],
    ['filter', ['filter', 'testdata/paths/catalog', '--package', 'foo'], 1],
    ['render', ['render', 'testdata/paths/catalog'], 0],
  ] as const)('%s', async (name, args, code) => {
    const r = await runOpm([...args], { cwd: root });
    expect(r.code).toBe(code);
    const expectedFile = path.join(scenario, `${name}.txt`);
    if (process.env.UPDATE_FIXTURES === '1' || !existsSync(expectedFile))
      writeFileSync(expectedFile, r.stderr);
    expect(r.stderr).toBe(readFileSync(expectedFile, 'utf8'));
    // Every position names a file that opens from the working directory.
    const positions = [...r.stderr.matchAll(/([\w./-]+\.yaml):\d+/g)].map((m) => m[1] ?? '');
    expect(positions.length).toBeGreaterThan(0);
    for (const p of positions) expect(existsSync(path.join(root, p)), p).toBe(true);
  });

  it('leaves paths as they are when the catalog is the working directory', async () => {
    const r = await runOpm(['validate', '.'], { cwd: path.join(scenario, 'catalog') });
    expect(r.stderr).toContain('── foo/second-copy.yaml:1: error: ');
    expect(r.stderr).toContain('(first defined at foo/index.yaml:14)');
  });

  it('keeps the machine outputs relative to the catalog directory', async () => {
    const r = await runOpm(['validate', 'testdata/paths/catalog', '-o', 'json'], { cwd: root });
    const doc = JSON.parse(r.stdout) as { base: string; findings: { file: string; message: string }[] };
    expect(doc.base).toBe('testdata/paths/catalog');
    expect(doc.findings.map((f) => f.file)).toContain('foo/second-copy.yaml');
    expect(doc.findings.map((f) => f.message).join('\n')).toContain('(first defined at foo/index.yaml:14)');
  });
});

describe('messageUnderCatalog', () => {
  const files = new Set(['foo/index.yaml', 'a b.json']);
  const isFile = (f: string): boolean => files.has(f);

  it.each([
    ['first defined at foo/index.yaml:12', 'catalog', 'first defined at catalog/foo/index.yaml:12'],
    [
      'heads: a (foo/index.yaml:3), b (foo/index.yaml:9)',
      'c',
      'heads: a (c/foo/index.yaml:3), b (c/foo/index.yaml:9)',
    ],
    // Not a file of the catalog, or no line: left alone.
    ['see other/index.yaml:3 and foo/index.yaml', 'c', 'see other/index.yaml:3 and foo/index.yaml'],
    ['first defined at foo/index.yaml:12', '.', 'first defined at foo/index.yaml:12'],
    ['first defined at foo/index.yaml:12', './', 'first defined at foo/index.yaml:12'],
  ])('%j under %j', (message, display, want) => {
    expect(messageUnderCatalog(message, display, isFile)).toBe(want);
  });

  it('joins as a path, so ./catalog/ and an absolute directory both open', () => {
    expect(underCatalog('./catalog/', 'foo/index.yaml')).toBe('catalog/foo/index.yaml');
    expect(underCatalog('/srv/catalog', 'foo/index.yaml')).toBe('/srv/catalog/foo/index.yaml');
  });
});
