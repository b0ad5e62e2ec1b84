// needs-registry: a real registry (docker-registry) on 127.0.0.1, read back with skopeo.
/**
 * `opm compose FILE --push` / `--oci-layout DIR`: the composition of the local references
 * (testdata/compose/local), then its catalog image built on the base `-i` names, with the `-l`
 * labels, tagged `repo:tag` of the file; skopeo reads back the pushed image and the layout, the
 * digest is printed on stdout; a file without repo and tag cannot be pushed, and a catalog that does
 * not validate is not built.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { startPlainRegistry, type RegistryProcess } from '../registry/fixture.js';
import { buildOpmStandIn, pushImage } from '../registry/image-builder.js';
import { tempDir } from '../registry/helpers.js';
import { requireTools } from '../registry/tools.js';

const execFileAsync = promisify(execFile);
const LOCAL = path.resolve('testdata/compose/local/catalog.yaml');

let tmp: ReturnType<typeof tempDir>;
let registry: RegistryProcess;
let baseRef: string;

beforeAll(async () => {
  requireTools('skopeo', 'docker-registry');
  tmp = tempDir('opm-compose-image-');
  registry = await startPlainRegistry(tmp.dir, 'compose-image');
  // A stand-in for opm's image: /bin/opm and /tmp.
  const base = await buildOpmStandIn({ format: 'oci', tmp: true });
  await pushImage(base, { url: registry.url, repo: 'base/opm', tag: 'v1' });
  baseRef = `${registry.host}/base/opm:v1`;
});

afterAll(async () => {
  await registry.stop();
  tmp.remove();
});

let runs = 0;
/**
 * The local scenario's catalog file with its references made absolute and `top` (repo, tag) in
 * place of its own, written into a fresh folder where opm runs.
 */
async function composeIn(
  top: Record<string, string>,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string; cwd: string }> {
  const cwd = path.join(tmp.dir, `w${++runs}`);
  mkdirSync(cwd);
  const local = readFileSync(LOCAL, 'utf8')
    .replace(/^(repo|tag): .*\n/gm, '')
    .replace(/image: (\S+)/g, (_m, p: string) => `image: ${path.resolve(path.dirname(LOCAL), p)}`);
  const head = Object.entries(top)
    .map(([k, v]) => `${k}: ${v}\n`)
    .join('');
  writeFileSync(path.join(cwd, 'catalog.yaml'), head + local);
  const env = { HOME: cwd, PATH: process.env.PATH, OLM_CACHE_DIR: path.join(cwd, 'cache') };
  const r = await runOpm(['--use-http', 'compose', 'catalog.yaml', '-i', baseRef, ...args], {
    cwd,
    env,
    configRoot: cwd,
  });
  return { ...r, cwd };
}

async function inspect(
  target: string,
): Promise<{ Digest: string; Labels: Record<string, string>; Layers: string[] }> {
  const { stdout } = await execFileAsync('skopeo', ['inspect', '--tls-verify=false', target]);
  return JSON.parse(stdout) as { Digest: string; Labels: Record<string, string>; Layers: string[] };
}

describe('opm compose --push / --oci-layout', () => {
  it('composes, then pushes the catalog image to repo:tag and prints its digest', async () => {
    const repo = `${registry.host}/catalogs/example`;
    const r = await composeIn({ repo, tag: 'v1' }, ['--push', '-l', 'team=x']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^sha256:[0-9a-f]{64}\n$/);
    expect(r.stderr).toContain('wrote example-catalog.Dockerfile\n');
    expect(r.stderr).toMatch(new RegExp(`^pushed ${repo}:v1@${r.stdout.trim()} \\(`, 'm'));
    const pushed = await inspect(`docker://${repo}:v1`);
    expect(pushed.Digest).toBe(r.stdout.trim());
    expect(pushed.Labels).toEqual({
      'operators.operatorframework.io.index.configs.v1': '/configs',
      team: 'x',
    });
    // The base's layer, /configs and /tmp/cache.
    expect(pushed.Layers).toHaveLength(3);
    // The same composition again: the same image.
    const again = await composeIn({ repo, tag: 'v1' }, ['--push', '-l', 'team=x']);
    expect(again.stdout).toBe(r.stdout);
  });

  it('--oci-layout: a layout skopeo reads, tagged with the tag of the file; no repo needed', async () => {
    const r = await composeIn({ tag: 'v2' }, ['--oci-layout', 'layout']);
    expect(r.code, r.stderr).toBe(0);
    const layout = await inspect(`oci:${path.join(r.cwd, 'layout')}:v2`);
    expect(layout.Digest).toBe(r.stdout.trim());
    expect(layout.Labels).toEqual({ 'operators.operatorframework.io.index.configs.v1': '/configs' });
  });

  it('--push without repo and tag: one line naming the file, exit 2, nothing rendered', async () => {
    const r = await composeIn({ tag: 'v1' }, ['--push']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "error: catalog.yaml: --push needs the catalog file's repo and tag (add `repo:` and `tag:` to the file: the image is pushed to repo:tag)\n",
    );
    expect(existsSync(path.join(r.cwd, 'example-catalog'))).toBe(false);
    expect(r.stdout).toBe('');
  });

  it('a catalog that does not validate is written and reported, and no image is built', async () => {
    const repo = `${registry.host}/catalogs/invalid`;
    const cwd = path.join(tmp.dir, 'invalid');
    mkdirSync(cwd);
    const bad = path.join(cwd, 'bad');
    mkdirSync(bad);
    // A channel entry naming a bundle the catalog does not have.
    writeFileSync(
      path.join(bad, 'index.yaml'),
      [
        'schema: olm.package\nname: p\ndefaultChannel: stable\n',
        '---\nschema: olm.channel\npackage: p\nname: stable\nentries:\n- name: p.v1.0.0\n',
      ].join(''),
    );
    writeFileSync(
      path.join(cwd, 'catalog.yaml'),
      `name: broken\nrepo: ${repo}\ntag: v1\nreferences:\n- name: bad\n  image: ./bad\n`,
    );
    const r = await runOpm(['--use-http', 'compose', 'catalog.yaml', '-i', baseRef, '--push'], {
      cwd,
      env: { HOME: cwd, PATH: process.env.PATH },
      configRoot: cwd,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('broken is written as composed; it does not validate\n');
    expect(r.stdout).toBe('');
    await expect(inspect(`docker://${repo}:v1`)).rejects.toThrow(/manifest unknown|not found/i);
  });
});
