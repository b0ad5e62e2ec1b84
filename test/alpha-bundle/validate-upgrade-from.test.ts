// needs-registry: a plain-HTTP registry on 127.0.0.1 (docker-registry) holds the bundle images
// `opm alpha bundle validate --upgrade-from`: the CRDs of the bundle upgraded from (a directory or
// an image) against the validated image's, by the rules of `validate --crd-upgrade-safety`. A safe
// upgrade keeps opm's verdict; an unsafe one prints each problem with its rule and fails.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { startPlainRegistry, type RegistryProcess } from '../registry/fixture.js';
import { buildImage, pushImage } from '../registry/image-builder.js';
import { projectRoot } from '../corpus.js';

const valid = path.join(projectRoot(), 'testdata/alpha-bundle-validate/valid/bundle');
let tmp: string;
let registry: RegistryProcess;
let validImage = '';
let scopeChangedImage = '';

async function push(repo: string, dir: string): Promise<string> {
  await pushImage(await buildImage({ layers: [{ dir }], labels: {} }), {
    url: registry.url,
    repo,
    tag: 'v1',
  });
  return `${registry.host}/${repo}:v1`;
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'opm-bundle-upgrade-from-'));
  registry = await startPlainRegistry(tmp, 'bundles');
  validImage = await push('upgrade/valid', valid);
  // The same bundle with its CRD's scope changed: OLM v1's preflight refuses that upgrade.
  const changed = path.join(tmp, 'scope-changed');
  cpSync(valid, changed, { recursive: true });
  const crd = path.join(changed, 'manifests/widgets.example.com.crd.yaml');
  writeFileSync(crd, readFileSync(crd, 'utf8').replace('scope: Namespaced', 'scope: Cluster'));
  scopeChangedImage = await push('upgrade/scope-changed', changed);
});
afterAll(async () => {
  await registry.stop();
  rmSync(tmp, { recursive: true, force: true });
});

let runs = 0;
async function validate(args: string[]): Promise<{ code: number; stderr: string }> {
  const dir = path.join(tmp, `run-${++runs}`);
  mkdirSync(dir);
  return runOpm(['alpha', 'bundle', 'validate', '-b', 'none', '--use-http', ...args], {
    cwd: dir,
    env: { HOME: dir, OLM_CACHE_DIR: path.join(dir, '.cache') },
    configRoot: dir,
  });
}

const crdLines = (stderr: string): string[] => stderr.split('\n').filter((l) => / \[crd\.[a-z-]+\]$/.test(l));

describe('alpha bundle validate --upgrade-from', () => {
  it('a safe upgrade from a bundle directory keeps opm’s verdict', async () => {
    const r = await validate(['-t', validImage, '--upgrade-from', valid]);
    expect(crdLines(r.stderr)).toEqual([]);
    expect(r.stderr).toContain('All validation tests have been completed successfully');
    expect(r.code).toBe(0);
  });

  it('an unsafe upgrade from a directory: each problem with its rule and the new manifest, and exit 1', async () => {
    const r = await validate(['-t', scopeChangedImage, '--upgrade-from', valid]);
    expect(crdLines(r.stderr)).toEqual([
      `error: manifests/widgets.example.com.crd.yaml: upgrade ${valid} -> ${scopeChangedImage}: CRD "widgets.example.com": scope: scope changed : "Namespaced" -> "Cluster" [crd.scope]`,
    ]);
    // opm's own checks pass: the CRD upgrade alone fails the command.
    expect(r.stderr).toContain('All validation tests have been completed successfully');
    expect(r.stderr.trimEnd().split('\n').at(-1)).toContain(`CRD upgrade from ${valid} is unsafe: 1 problem`);
    expect(r.code).toBe(1);
  });

  it('the bundle upgraded from may be an image, pulled with our registry client', async () => {
    const r = await validate(['-t', scopeChangedImage, '--upgrade-from', validImage]);
    expect(crdLines(r.stderr)).toHaveLength(1);
    expect(crdLines(r.stderr)[0]).toContain('[crd.scope]');
    expect(r.code).toBe(1);
    const back = await validate(['-t', validImage, '--upgrade-from', validImage]);
    expect(crdLines(back.stderr)).toEqual([]);
    expect(back.code).toBe(0);
  });

  it('a bundle upgraded from that cannot be read is named', async () => {
    const r = await validate(['-t', validImage, '--upgrade-from', `${registry.host}/upgrade/none:v1`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`--upgrade-from ${registry.host}/upgrade/none:v1: `);
  });
});
