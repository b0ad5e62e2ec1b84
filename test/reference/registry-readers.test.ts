// Images the reference pulls too. Semver templates: opm-ts's default rules are the reference opm's. The bundle images are built from
// our own bundle directories and pushed to a real registry on 127.0.0.1, which the reference pulls
// from; opm-ts renders the same images.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { reference } from './reference-opm.js';
import { startFixture, type Fixture } from '../registry/fixture.js';
import { BUNDLE_LABELS, buildImage, pushImage } from '../registry/image-builder.js';

const bundles = path.resolve('testdata/templates/bundles');
const template = readFileSync('testdata/templates/semver-default/template.yaml', 'utf8');

let fx: Fixture;
let tmp: string;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'opm-semver-ref-'));
  fx = await startFixture();
  for (const d of readdirSync(bundles).filter((d) => d.startsWith('foo-v'))) {
    const image = await buildImage({
      layers: [{ dir: path.join(bundles, d) }],
      labels: BUNDLE_LABELS('foo'),
    });
    await pushImage(image, { url: fx.plain.url, repo: 'example/foo', tag: d.slice('foo-v'.length) });
  }
  const dup = await buildImage({
    layers: [{ dir: path.resolve('testdata/render/good/duplicate-keys') }],
    labels: BUNDLE_LABELS('demo'),
  });
  await pushImage(dup, { url: fx.plain.url, repo: 'example/duplicate-keys', tag: 'v1' });
  writeFileSync(path.join(tmp, 'template.yaml'), template.replaceAll('REGISTRY', fx.plain.host));
}, 120_000);

afterAll(async () => {
  await fx.stop();
  rmSync(tmp, { recursive: true, force: true });
});

describe('alpha render-template semver: the default is the reference opm', () => {
  it.each(['yaml', 'json'])('-o %s, byte for byte', async (format) => {
    const args = ['alpha', 'render-template', 'semver', 'template.yaml', '-o', format, '--use-http'];
    const env = { ...process.env, HOME: tmp, OLM_CACHE_DIR: path.join(tmp, 'cache') };
    const b = spawnSync(reference, args, { cwd: tmp, encoding: 'utf8', env });
    const a = await runOpm(args, { cwd: tmp, env });
    expect(b.status).toBe(0);
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(b.stdout);
  });

  it('--semver-compat v1.46 gives other edges than the default', async () => {
    const env = { HOME: tmp, OLM_CACHE_DIR: path.join(tmp, 'cache') };
    const args = ['alpha', 'render-template', 'semver', 'template.yaml', '-o', 'yaml', '--use-http'];
    const current = await runOpm(args, { cwd: tmp, env });
    const legacy = await runOpm([...args, '--semver-compat', 'v1.46'], { cwd: tmp, env });
    expect(legacy.code).toBe(0);
    expect(legacy.stdout).not.toBe(current.stdout);
  });
});

describe('a bundle image whose manifests write keys twice', () => {
  it('renders as the reference renders it, byte for byte', async () => {
    const args = ['render', `${fx.plain.host}/example/duplicate-keys:v1`, '-o', 'yaml', '--use-http'];
    const env = { ...process.env, HOME: tmp, OLM_CACHE_DIR: path.join(tmp, 'cache') };
    const b = spawnSync(reference, args, { cwd: tmp, encoding: 'utf8', env });
    const a = await runOpm(args, { cwd: tmp, env });
    expect(b.status).toBe(0);
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    expect(a.stderr).toContain('key subresources is written twice');
  });
});
