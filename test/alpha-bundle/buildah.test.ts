// needs-registry: the image buildah builds is pushed to a plain-HTTP registry on 127.0.0.1
// integration: runs buildah for a real image build (vfs storage in a temporary folder, chroot isolation)
// `opm alpha bundle build -b buildah` for real: the image buildah builds from our bundle.Dockerfile is
// pushed to a local registry, then `alpha bundle unpack` gives back the bundle's files and `render`
// reads its labels.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { startPlainRegistry, type RegistryProcess } from '../registry/fixture.js';
import { have } from '../registry/tools.js';

const present = have('buildah');
if (!present) {
  if (process.env.CI === 'true') throw new Error('CI runs every suite: buildah must be installed');
  console.warn('*** SKIPPED test/alpha-bundle/buildah.test.ts: buildah is not installed ***');
}

let tmp: string;
let registry: RegistryProcess;
let env: Record<string, string>;
beforeAll(async () => {
  if (!present) return;
  tmp = mkdtempSync(path.join(tmpdir(), 'opm-bundle-buildah-'));
  registry = await startPlainRegistry(tmp, 'buildah');
  // Storage of its own, so the machine's images are neither used nor touched.
  const conf = path.join(tmp, 'storage.conf');
  writeFileSync(conf, `[storage]\ndriver = "vfs"\ngraphroot = "${tmp}/graph"\nrunroot = "${tmp}/run"\n`);
  env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: tmp,
    CONTAINERS_STORAGE_CONF: conf,
    STORAGE_DRIVER: 'vfs',
    BUILDAH_ISOLATION: 'chroot',
  };
});
afterAll(async () => {
  if (!present) return;
  await registry.stop();
  rmSync(tmp, { recursive: true, force: true });
});

describe.runIf(present)('alpha bundle build -b buildah', () => {
  it('builds an image that unpacks to the bundle and renders as it', async () => {
    const work = path.join(tmp, 'work');
    mkdirSync(work);
    cpSync(path.resolve('testdata/alpha-bundle/packagemanifests'), path.join(work, 'pm'), {
      recursive: true,
    });
    const tag = 'localhost/opm-ts-test/etcd:v0.9.0';
    const built = await runOpm(
      ['alpha', 'bundle', 'build', '-d', 'pm/etcd/0.9.0', '-t', tag, '-b', 'buildah'],
      {
        cwd: work,
        env,
      },
    );
    expect(built.stderr).toMatch(/level=info msg="Building bundle image"\n/);
    expect(built.code).toBe(0);
    // buildah's own output came through: its commit line names the tag.
    expect(built.stdout + built.stderr).toContain(tag);

    const remote = `${registry.host}/etcd:v0.9.0`;
    const pushed = spawnSync('buildah', ['push', '--tls-verify=false', tag, `docker://${remote}`], {
      env,
      encoding: 'utf8',
    });
    expect(pushed.stderr).not.toMatch(/^Error/m);
    expect(pushed.status).toBe(0);

    const pullEnv = { HOME: tmp, OLM_CACHE_DIR: path.join(tmp, 'cache') };
    // -v: the fixture's CSV is minimal (no install strategy), which the content checks refuse, as opm's do.
    const unpacked = await runOpm(['alpha', 'bundle', 'unpack', remote, '--use-http', '-v', '-o', 'out'], {
      cwd: work,
      env: pullEnv,
      configRoot: tmp,
    });
    expect(unpacked.stderr).toMatch(
      /^time="[^"]*" level=info msg="skipping bundle validation" cmd=unpack\n$/,
    );
    expect(unpacked.code).toBe(0);
    const src = path.join(work, 'pm/etcd/0.9.0');
    expect(readdirSync(path.join(work, 'out/manifests')).sort()).toEqual(readdirSync(src).sort());
    for (const f of readdirSync(src))
      expect(readFileSync(path.join(work, 'out/manifests', f), 'utf8')).toBe(
        readFileSync(path.join(src, f), 'utf8'),
      );
    expect(readFileSync(path.join(work, 'out/metadata/annotations.yaml'), 'utf8')).toBe(
      readFileSync(path.join(work, 'pm/etcd/metadata/annotations.yaml'), 'utf8'),
    );

    const rendered = await runOpm(['render', remote, '--use-http', '-o', 'yaml'], {
      cwd: work,
      env: pullEnv,
      configRoot: tmp,
    });
    expect(rendered.code).toBe(0);
    expect(rendered.stdout).toContain('name: etcdoperator.v0.9.0\n');
    expect(rendered.stdout).toContain('package: etcd\n');
  });
});
