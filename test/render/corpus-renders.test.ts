// integration: every bundle directory and catalog of the corpus through the command line.
/**
 * Everything in the corpus renders: every registry+v1 bundle directory (a folder with `manifests/`
 * and `metadata/`) and every File-Based Catalog, each with exit 0 (a catalog whose files are all
 * ignored renders nothing, as in opm).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusPath, haveCorpus } from '../corpus.js';
import { runOpm } from '../run-cli.js';

function bundleDirs(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    if (existsSync(path.join(dir, 'manifests')) && existsSync(path.join(dir, 'metadata'))) {
      out.push(dir);
      return;
    }
    for (const e of readdirSync(dir).sort()) {
      const p = path.join(dir, e);
      if (statSync(p).isDirectory()) walk(p);
    }
  };
  walk(root);
  return out;
}

describe.runIf(haveCorpus())('the corpus renders', () => {
  it('every bundle directory, with exit 0', async () => {
    const dirs = bundleDirs(corpusPath());
    expect(dirs.length).toBeGreaterThan(100);
    const failed: string[] = [];
    for (const d of dirs) {
      const r = await runOpm(['render', d, '-o', 'json']);
      if (r.code !== 0 || !r.stdout.includes('"olm.bundle"')) failed.push(`${d}: ${r.stderr}`);
    }
    expect(failed).toEqual([]);
  });

  it.each([
    'community-catalog-v4.21',
    'cool-catalog/catalog',
    'opm-testdata/list-index',
    'opm-testdata/foo-index-v0.2.0-declcfg',
    ...['exp-headsonly', 'exp-include-channel', 'exp-include-pkg', 'exp-latest', 'latest', 'old'].map(
      (d) => `opm-testdata/index-declcfgs/${d}`,
    ),
  ])('catalog %s', async (dir) => {
    for (const format of ['json', 'yaml']) {
      const r = await runOpm(['render', corpusPath(dir), '-o', format]);
      expect(r.stderr).not.toMatch(/^error/m);
      expect(r.code).toBe(0);
    }
  });
});
