// needs-registry: a real registry (docker-registry) on 127.0.0.1.
// needs-corpus: the bundle opm-testdata/foo-bundle-v0.2.0.
/**
 * Images the command line builds without a container engine, read by the reference opm:
 * `opm alpha bundle build -b none --push` gives a bundle image whose `opm render` prints what
 * `opm render` of the folder prints (but for the image naming itself); `opm compose FILE --push`
 * gives a catalog image whose `opm render` prints what `opm render` of the composed folder prints.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusPath } from '../corpus.js';
import { runOpm } from '../run-cli.js';
import { startPlainRegistry, type RegistryProcess } from '../registry/fixture.js';
import { tempDir } from '../registry/helpers.js';
import { buildOpmStandIn, pushImage } from '../registry/image-builder.js';
import { requireTools } from '../registry/tools.js';
import { reference } from './reference-opm.js';

let tmp: ReturnType<typeof tempDir>;
let registry: RegistryProcess;

beforeAll(async () => {
  requireTools('docker-registry');
  tmp = tempDir('opm-no-engine-ref-');
  registry = await startPlainRegistry(tmp.dir, 'no-engine');
  // A stand-in for opm's image, for the catalog image to be built on.
  const base = await buildOpmStandIn({ format: 'oci' });
  await pushImage(base, { url: registry.url, repo: 'base/opm', tag: 'v1' });
}, 60_000);

afterAll(async () => {
  await registry.stop();
  tmp.remove();
});

let homes = 0;
function env(): NodeJS.ProcessEnv {
  const home = path.join(tmp.dir, `home-${++homes}`);
  mkdirSync(home, { recursive: true });
  return { HOME: home, PATH: process.env.PATH, OLM_CACHE_DIR: path.join(home, 'cache') };
}

/** The reference opm's `render ARG -o yaml`. */
function referenceRender(arg: string): string {
  const r = spawnSync(reference, ['render', arg, '--use-http', '-o', 'yaml'], {
    encoding: 'utf8',
    env: env(),
    maxBuffer: 1 << 28,
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

describe('alpha bundle build -b none --push, read by the reference opm', { timeout: 120_000 }, () => {
  it('renders as the bundle folder does', async () => {
    const cwd = path.join(tmp.dir, 'bundle-work');
    mkdirSync(cwd);
    cpSync(corpusPath('opm-testdata', 'foo-bundle-v0.2.0'), path.join(cwd, 'foo'), { recursive: true });
    const ref = `${registry.host}/bundles/foo:v0.2.0`;
    const e = env();
    const r = await runOpm(
      [
        '--use-http',
        'alpha',
        'bundle',
        'build',
        '-d',
        'foo/manifests',
        '-p',
        'foo',
        '-c',
        'beta,stable',
        '-e',
        'beta',
        '-t',
        ref,
        '-b',
        'none',
        '--push',
        // The corpus's annotations.yaml lacks the media type and folder keys opm requires.
        '--overwrite',
      ],
      { cwd, env: e, configRoot: e.HOME ?? '' },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^sha256:[0-9a-f]{64}\n$/);
    const fromImage = referenceRender(ref);
    const fromDir = referenceRender(path.join(cwd, 'foo'));
    // The folder's render names no image; the image's names itself, and lists itself first among
    // the related images (127.0.0.1 sorts before the others). Everything else is the same bytes.
    expect(fromImage).toBe(
      fromDir
        .replace(/^image: ""$/m, `image: ${ref}`)
        .replace(/^relatedImages:\n/m, `relatedImages:\n- image: ${ref}\n  name: ""\n`),
    );
  });
});

describe('compose --push, read by the reference opm', { timeout: 180_000 }, () => {
  it('the catalog image renders as the composed folder does, byte for byte', async () => {
    const cwd = path.join(tmp.dir, 'compose-work');
    mkdirSync(cwd);
    const local = path.resolve('testdata/compose/local/catalog.yaml');
    const repo = `${registry.host}/catalogs/example`;
    // The local scenario's references (relative to its own file), pushed to this registry.
    writeFileSync(
      path.join(cwd, 'catalog.yaml'),
      readFileSync(local, 'utf8')
        .replace(/^repo: .*$/m, `repo: ${repo}`)
        .replace(/image: (\S+)/g, (_m, p: string) => `image: ${path.resolve(path.dirname(local), p)}`),
    );
    const e = env();
    const r = await runOpm(
      ['--use-http', 'compose', 'catalog.yaml', '--push', '-i', `${registry.host}/base/opm:v1`],
      { cwd, env: e, configRoot: e.HOME ?? '' },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^sha256:[0-9a-f]{64}\n$/);
    const fromImage = referenceRender(`${repo}:latest`);
    expect(fromImage).toMatch(/^schema: olm.package$/m);
    expect(fromImage).toBe(referenceRender(path.join(cwd, 'example-catalog')));
  });
});
