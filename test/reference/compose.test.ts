// needs-registry: the corpus composite pushed to docker-registry on 127.0.0.1
// needs-corpus: community-catalog-v4.21 and community-bundles
// opm compose against the documentation's script driving the reference opm
// (test/compose/docs-script.sh: yq, mkdir, `opm render <image> > <name>/<reference>/index.yaml`,
// `opm generate dockerfile <name>`), over the corpus composite (test/compose/composite.ts: each
// package of the corpus catalog as a catalog image, the newest bundle of each corpus package as a
// bundle image): the two trees, the Dockerfile included, byte for byte.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { reference } from './reference-opm.js';
import { startPlainRegistry, type RegistryProcess } from '../registry/fixture.js';
import { DOCS_SCRIPT, pushComposite, writeCatalogFile, type Composite } from '../compose/composite.js';
import { haveCorpus } from '../corpus.js';

let tmp: string;
let registry: RegistryProcess;
let composite: Composite;

beforeAll(async () => {
  if (!haveCorpus()) throw new Error('the compose differential test needs the corpus');
  tmp = mkdtempSync(path.join(tmpdir(), 'opm-compose-ref-'));
  registry = await startPlainRegistry(tmp, 'compose');
  composite = await pushComposite(registry.url, registry.host);
}, 300_000);

afterAll(async () => {
  await registry.stop();
  rmSync(tmp, { recursive: true, force: true });
});

/** Every file (bytes and mode) and folder under `dir`, by relative path. */
function tree(dir: string, base = dir, acc = new Map<string, string>()): Map<string, string> {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = path.join(dir, e.name);
    const mode = (statSync(p).mode & 0o777).toString(8);
    if (e.isDirectory()) {
      acc.set(`${path.relative(base, p)}/`, mode);
      tree(p, base, acc);
    } else acc.set(path.relative(base, p), `${mode} ${readFileSync(p, 'latin1')}`);
  }
  return acc;
}

/** Both tools on the same catalog file, each in a folder of its own; the trees and our outcome. */
async function both(
  name: string,
  references: ReadonlyArray<{ name: string; image: string }>,
  flags: string[] = [],
): Promise<{ ours: Map<string, string>; theirs: Map<string, string>; code: number; stderr: string }> {
  const dirs = ['script', 'ours'].map((d) => path.join(tmp, `${name}-${d}`));
  for (const d of dirs) {
    mkdirSync(d);
    writeCatalogFile(path.join(d, 'catalog.yaml'), name, references);
  }
  const [scriptDir = '', oursDir = ''] = dirs;
  const env = { ...process.env, HOME: tmp, OLM_CACHE_DIR: path.join(tmp, 'cache') };
  const s = spawnSync('sh', [DOCS_SCRIPT, 'catalog.yaml'], {
    cwd: scriptDir,
    env: { ...env, OPM: reference, OPM_RENDER_FLAGS: ['--use-http', ...flags].join(' ') },
    encoding: 'utf8',
  });
  expect(s.status, s.stderr).toBe(0);
  const r = await runOpm(['compose', 'catalog.yaml', '--use-http', ...flags], { cwd: oursDir, env });
  return { ours: tree(oursDir), theirs: tree(scriptDir), code: r.code, stderr: r.stderr };
}

describe('opm compose and the documentation script with the reference opm', () => {
  it('the corpus catalog, one catalog image per package: the same tree, and it validates', async () => {
    const r = await both('community-operators', composite.catalogs);
    expect(composite.catalogs.length).toBeGreaterThan(30);
    expect(r.ours.size).toBe(r.theirs.size);
    expect([...r.ours.keys()]).toEqual([...r.theirs.keys()]);
    expect(r.ours).toEqual(r.theirs);
    expect(r.code, r.stderr).toBe(0);
    for (const c of composite.catalogs)
      expect(r.stderr).toMatch(new RegExp(`^${c.name}: 1 package \\(`, 'm'));
  }, 300_000);

  it('bundle images: the same tree (a catalog of bundles alone does not validate: exit 1, written)', async () => {
    const r = await both('bundles', composite.bundles);
    expect(composite.bundles.length).toBeGreaterThan(3);
    expect(r.ours).toEqual(r.theirs);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('bundles is written as composed; it does not validate');
  }, 300_000);
});
