// needs-registry: a real registry (docker-registry) on 127.0.0.1, read back with skopeo.
/**
 * `opm alpha bundle build -b none`: generate's files written as for the container tools, then the
 * image bundle.Dockerfile describes built without an engine and pushed to the tag (skopeo reads it
 * back with the annotations as labels) or written as an OCI layout; the same folder builds to the
 * same digest; the one-line refusals come before anything is written.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { startPlainRegistry, type RegistryProcess } from '../registry/fixture.js';
import { tempDir } from '../registry/helpers.js';
import { requireTools } from '../registry/tools.js';

const execFileAsync = promisify(execFile);
const PACKAGE = path.resolve('testdata/alpha-bundle/packagemanifests/etcd');

let tmp: ReturnType<typeof tempDir>;
let registry: RegistryProcess;

beforeAll(async () => {
  requireTools('skopeo', 'docker-registry');
  tmp = tempDir('opm-bundle-none-');
  registry = await startPlainRegistry(tmp.dir, 'bundles');
});

afterAll(async () => {
  await registry.stop();
  tmp.remove();
});

let runs = 0;
/** A fresh working folder holding the etcd package (packagemanifests layout), and opm run there. */
async function build(args: string[]): Promise<{ code: number; stdout: string; stderr: string; cwd: string }> {
  const cwd = path.join(tmp.dir, `w${++runs}`);
  mkdirSync(cwd);
  cpSync(PACKAGE, path.join(cwd, 'etcd'), { recursive: true });
  const env = { HOME: cwd, PATH: process.env.PATH, OLM_CACHE_DIR: path.join(cwd, 'cache') };
  const r = await runOpm(['--use-http', 'alpha', 'bundle', 'build', ...args], { cwd, env, configRoot: cwd });
  return { ...r, cwd };
}

async function inspect(
  target: string,
): Promise<{ Digest: string; Labels: Record<string, string>; Layers: string[] }> {
  const { stdout } = await execFileAsync('skopeo', ['inspect', '--tls-verify=false', target]);
  return JSON.parse(stdout) as { Digest: string; Labels: Record<string, string>; Layers: string[] };
}

const LABELS = {
  'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
  'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
  'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
  'operators.operatorframework.io.bundle.package.v1': 'etcd',
  'operators.operatorframework.io.bundle.channels.v1': 'alpha,stable',
  'operators.operatorframework.io.bundle.channel.default.v1': 'stable',
};

describe('alpha bundle build -b none', () => {
  it('--push: the files generate writes, then the image pushed, its digest on stdout', async () => {
    const ref = `${registry.host}/bundles/etcd:v0.9.2`;
    const r = await build(['-d', 'etcd/0.9.2', '-u', 'out', '-t', ref, '-b', 'none', '--push']);
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^sha256:[0-9a-f]{64}\n$/);
    const digest = r.stdout.trim();
    expect(r.stderr).toContain('level=info msg="Building bundle image"\n');
    expect(r.stderr).toContain(`level=info msg="Pushed ${ref}@${digest}"\n`);
    // The same files as with docker, podman or buildah.
    expect(readFileSync(path.join(r.cwd, 'bundle.Dockerfile'), 'utf8')).toBe(
      readFileSync(
        path.resolve('testdata/alpha-bundle/packagemanifests/expected/output-dir/bundle.Dockerfile'),
        'utf8',
      ),
    );
    const pushed = await inspect(`docker://${ref}`);
    expect(pushed.Digest).toBe(digest);
    expect(pushed.Labels).toEqual(LABELS);
    expect(pushed.Layers).toHaveLength(2);

    // Another folder with the same content: the same image.
    const again = await build([
      '-d',
      'etcd/0.9.2',
      '-u',
      'out',
      '-t',
      `${ref}-again`,
      '-b',
      'none',
      '--push',
    ]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(r.stdout);
  });

  it('--oci-layout: a layout skopeo reads, tagged with the -t tag, the same digest as the push', async () => {
    const a = await build([
      '-d',
      'etcd/0.9.2',
      '-u',
      'out',
      '-t',
      'quay.io/me/etcd:v1',
      '-b',
      'none',
      '--oci-layout',
      'layout',
    ]);
    expect(a.code).toBe(0);
    const layout = await inspect(`oci:${path.join(a.cwd, 'layout')}:v1`);
    expect(layout.Digest).toBe(a.stdout.trim());
    expect(layout.Labels).toEqual(LABELS);
  });

  it('--oci-layout through a symbolic link to an empty folder, or a dangling one: written where it leads', async () => {
    const args = ['-d', 'etcd/0.9.2', '-u', 'out', '-t', 'quay.io/me/etcd:v1', '-b', 'none', '--oci-layout'];
    const cwd = path.join(tmp.dir, `links-${++runs}`);
    mkdirSync(path.join(cwd, 'empty'), { recursive: true });
    cpSync(PACKAGE, path.join(cwd, 'etcd'), { recursive: true });
    symlinkSync('empty', path.join(cwd, 'link'));
    symlinkSync('nowhere/yet', path.join(cwd, 'dangling'));
    for (const [link, real] of [
      ['link', 'empty'],
      ['dangling', 'nowhere/yet'],
    ] as const) {
      const r = await runOpm(['alpha', 'bundle', 'build', ...args, link], {
        cwd,
        env: { HOME: cwd, PATH: process.env.PATH },
        configRoot: cwd,
      });
      expect(r.stderr).not.toMatch(/^error/m);
      expect(r.code).toBe(0);
      expect(lstatSync(path.join(cwd, link)).isSymbolicLink()).toBe(true);
      const layout = await inspect(`oci:${path.join(cwd, real)}:v1`);
      expect(layout.Digest).toBe(r.stdout.trim());
    }
  });

  it('a plain bundle: its folders copied as they are, the annotations as labels', async () => {
    const cwd = path.join(tmp.dir, `plain-${++runs}`);
    mkdirSync(cwd);
    cpSync(path.resolve('testdata/alpha-bundle/plain/manifests'), path.join(cwd, 'plain', 'manifests'), {
      recursive: true,
    });
    const r = await runOpm(
      [
        'alpha',
        'bundle',
        'build',
        '-d',
        'plain/manifests',
        '-p',
        'plain',
        '-c',
        'stable',
        '-t',
        'x/plain:v1',
      ].concat(['-b', 'none', '--oci-layout', 'layout']),
      { cwd, env: { HOME: cwd }, configRoot: cwd },
    );
    expect(r.code, r.stderr).toBe(0);
    const layout = await inspect(`oci:${path.join(cwd, 'layout')}:v1`);
    expect(layout.Digest).toBe(r.stdout.trim());
    expect(layout.Labels).toEqual({
      'operators.operatorframework.io.bundle.mediatype.v1': 'plain',
      'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
      'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
      'operators.operatorframework.io.bundle.package.v1': 'plain',
      'operators.operatorframework.io.bundle.channels.v1': 'stable',
    });
    expect(layout.Layers).toHaveLength(2);
  });

  it('refusals: one line, exit 2, nothing written', async () => {
    const cases: Array<[string[], RegExp]> = [
      [
        ['-b', 'none'],
        /^error: --image-builder none builds the image without a container engine: say where it goes \(pass --push/,
      ],
      [
        ['-b', 'docker', '--push'],
        /^error: --push and --oci-layout go with --image-builder none: docker builds into its own storage/,
      ],
      [
        ['-b', 'buildah', '--oci-layout', 'l'],
        /^error: --push and --oci-layout go with --image-builder none: buildah/,
      ],
      [
        ['-b', 'none', '--push', '--base-image', 'quay.io/me/base:v1'],
        /^error: --image-builder none builds on scratch only/,
      ],
      [
        ['-b', 'none', '--push', '-u', ''],
        /^error: --image-builder none builds a bundle in the nested format .*etcd\/0\.9\.2 is not a manifests folder \(pass -u/,
      ],
    ];
    for (const [args, line] of cases) {
      const r = await build(['-d', 'etcd/0.9.2', '-t', `${registry.host}/bundles/refused:v1`, ...args]);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr).toMatch(line);
      expect(r.code).toBe(2);
      expect(existsSync(path.join(r.cwd, 'bundle.Dockerfile'))).toBe(false);
      expect(existsSync(path.join(r.cwd, 'etcd', 'metadata'))).toBe(false);
    }
  });
});
