// needs-registry: real registry servers on 127.0.0.1 (docker-registry), read back with skopeo.
/**
 * `opm image build` end to end through the command line: a multi-platform base pushed to a real
 * registry, the catalog image built on it and pushed (read back by skopeo), built again to the same
 * digest with nothing uploaded twice, the base's layers never downloaded, one platform picked, an
 * OCI layout that skopeo copies, and the one-line refusals.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { PASSWORD, USER, startFixture, type Fixture } from '../registry/fixture.js';
import { buildOpmStandIn, pushImage, type BuiltImage } from '../registry/image-builder.js';
import { tempDir } from '../registry/helpers.js';
import { requireTools } from '../registry/tools.js';

const execFileAsync = promisify(execFile);
const CATALOG = path.resolve('testdata/examples/catalog');

let fx: Fixture;
let tmp: ReturnType<typeof tempDir>;
let base: BuiltImage;

/** skopeo, asynchronously: the fault proxy it talks to runs in this process. */
async function skopeo(args: string[]): Promise<Buffer> {
  const { stdout } = await execFileAsync('skopeo', args, { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

const sha = (b: Buffer): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;

let runs = 0;
function opm(args: string[]): ReturnType<typeof runOpm> {
  const root = path.join(tmp.dir, `run-${runs++}`);
  mkdirSync(path.join(root, 'home'), { recursive: true });
  return runOpm(['--use-http', ...args], {
    configRoot: root,
    env: { HOME: path.join(root, 'home'), PATH: process.env.PATH, OLM_CACHE_DIR: path.join(root, 'cache') },
  });
}

beforeAll(async () => {
  requireTools('skopeo');
  tmp = tempDir('opm-image-build-');
  fx = await startFixture();
  // A stand-in for opm's base image: two platforms in a Docker manifest list, /bin/opm and /tmp.
  base = await buildOpmStandIn({
    format: 'docker',
    labels: { 'base.label': 'kept' },
    tmp: true,
    platforms: [
      { os: 'linux', architecture: 'amd64' },
      { os: 'linux', architecture: 'arm64', variant: 'v8' },
    ],
  });
  await pushImage(base, { url: fx.plain.url, repo: 'base/opm', tag: 'v1' });
});

afterAll(async () => {
  await fx.stop();
  tmp.remove();
});

describe('opm image build', () => {
  it('pushes the catalog image on every platform of the base; skopeo reads it back', async () => {
    fx.proxy.reset();
    const ref = `${fx.proxy.host}/catalogs/example:v1`;
    const r = await opm([
      'image',
      'build',
      CATALOG,
      '-t',
      ref,
      '--push',
      '--base-image',
      `${fx.proxy.host}/base/opm:v1`,
      '-l',
      'extra=yes',
    ]);
    expect(r.stderr).toContain(`pushed ${ref}@`);
    expect(r.code).toBe(0);
    const digest = r.stdout.trim();
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    // The base's two layers' worth of blobs were never downloaded: only its configs were read.
    const baseBlobGets = fx.proxy.counts.blob - fx.proxy.push.heads;
    expect(baseBlobGets).toBe(2);
    const raw = await skopeo(['inspect', '--tls-verify=false', '--raw', `docker://${ref}`]);
    expect(sha(raw)).toBe(digest);
    const index = JSON.parse(raw.toString()) as { mediaType: string; manifests: Array<{ platform: object }> };
    expect(index.mediaType).toBe('application/vnd.docker.distribution.manifest.list.v2+json');
    expect(index.manifests.map((m) => m.platform)).toEqual([
      { architecture: 'amd64', os: 'linux' },
      { architecture: 'arm64', os: 'linux', variant: 'v8' },
    ]);
    const cfg = JSON.parse(
      (
        await skopeo([
          'inspect',
          '--tls-verify=false',
          '--override-arch=arm64',
          '--config',
          `docker://${ref}`,
        ])
      ).toString(),
    ) as {
      architecture: string;
      config: { Entrypoint: string[]; Cmd: string[]; Labels: Record<string, string> };
    };
    expect(cfg.architecture).toBe('arm64');
    expect(cfg.config.Entrypoint).toEqual(['/bin/opm']);
    expect(cfg.config.Cmd).toEqual(['serve', '/configs', '--cache-dir=/tmp/cache']);
    expect(cfg.config.Labels).toMatchObject({
      'base.label': 'kept',
      'operators.operatorframework.io.index.configs.v1': '/configs',
      extra: 'yes',
    });

    // Built again: the same digest, and not one blob uploaded.
    fx.proxy.reset();
    const again = await opm([
      'image',
      'build',
      CATALOG,
      '-t',
      ref,
      '--push',
      '--base-image',
      `${fx.proxy.host}/base/opm:v1`,
      '-l',
      'extra=yes',
    ]);
    expect(again.code).toBe(0);
    expect(again.stdout.trim()).toBe(digest);
    expect(fx.proxy.push.uploadSteps).toBe(0);
    expect(fx.proxy.push.uploadedBytes).toBe(0);
    expect(again.stderr).toContain('(0 blobs uploaded, 5 already there or mounted)');
  });

  it('writes an OCI layout of one chosen platform that skopeo copies; the layout holds the pushed config and layers', async () => {
    const layout = path.join(tmp.dir, 'layout');
    const r = await opm([
      '--platform',
      'linux/arm64',
      'image',
      'build',
      CATALOG,
      '-t',
      `${fx.plain.host}/catalogs/arm:v1`,
      '--push',
      '--oci-layout',
      layout,
      '--base-image',
      `${fx.plain.host}/base/opm:v1`,
    ]);
    const digest = r.stdout.trim();
    const idx = JSON.parse(readFileSync(path.join(layout, 'index.json'), 'utf8')) as {
      manifests: Array<{ digest: string; mediaType: string; annotations: Record<string, string> }>;
    };
    // The push keeps the base's Docker media types; the layout has the same image in OCI ones,
    // the only ones layout readers take (same config and layers, another manifest digest).
    const ociDigest = idx.manifests[0]?.digest ?? '';
    expect(r.stderr).toBe(
      `pushed ${fx.plain.host}/catalogs/arm:v1@${digest} (3 blobs uploaded, 1 already there or mounted)\n` +
        `wrote OCI layout ${layout} (${ociDigest})\n`,
    );
    expect(idx.manifests[0]).toMatchObject({
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      annotations: { 'org.opencontainers.image.ref.name': 'v1' },
    });
    const pushed = JSON.parse(
      (
        await skopeo(['inspect', '--tls-verify=false', '--raw', `docker://${fx.plain.host}/catalogs/arm:v1`])
      ).toString(),
    ) as { config: { digest: string }; layers: Array<{ digest: string }> };
    const inLayout = JSON.parse(
      readFileSync(path.join(layout, 'blobs', 'sha256', ociDigest.slice(7)), 'utf8'),
    ) as typeof pushed;
    expect(inLayout.config.digest).toBe(pushed.config.digest);
    expect(inLayout.layers.map((l) => l.digest)).toEqual(pushed.layers.map((l) => l.digest));
    // Every blob is in the layout, each under its own digest.
    for (const hex of readdirSync(path.join(layout, 'blobs', 'sha256')))
      expect(sha(readFileSync(path.join(layout, 'blobs', 'sha256', hex)))).toBe(`sha256:${hex}`);
    const inspected = JSON.parse((await skopeo(['inspect', `oci:${layout}:v1`])).toString()) as {
      Architecture: string;
      Layers: string[];
    };
    expect(inspected.Architecture).toBe('arm64');
    expect(inspected.Layers).toHaveLength(3);
    await skopeo(['copy', `oci:${layout}:v1`, `oci:${path.join(tmp.dir, 'copied')}:v1`]);
  });

  it('builds the cache of a catalog whose keys fold to schema and package (ſchema, pac\u212aage)', async () => {
    const layout = path.join(tmp.dir, 'folded-keys-layout');
    const r = await opm([
      '--platform',
      'linux/amd64',
      'image',
      'build',
      path.resolve('testdata/serve-cache/folded-keys/catalog'),
      '--oci-layout',
      layout,
      '--base-image',
      `${fx.plain.host}/base/opm:v1`,
    ]);
    expect(r.stderr).not.toContain('invalid');
    expect(r.code).toBe(0);
    const inspected = JSON.parse((await skopeo(['inspect', `oci:${layout}`])).toString()) as {
      Layers: string[];
    };
    expect(inspected.Layers).toHaveLength(3);
  });

  it('streams the base layers to another registry (token auth) without keeping them', async () => {
    const auth = path.join(tmp.dir, 'token-auth.json');
    writeFileSync(
      auth,
      JSON.stringify({
        auths: { [fx.token.host]: { auth: Buffer.from(`${USER}:${PASSWORD}`).toString('base64') } },
      }),
    );
    const ref = `${fx.token.host}/catalogs/elsewhere:v1`;
    const root = path.join(tmp.dir, 'elsewhere');
    mkdirSync(path.join(root, 'home'), { recursive: true });
    const r = await runOpm(
      [
        '--use-http',
        'image',
        'build',
        CATALOG,
        '-t',
        ref,
        '--push',
        '--base-image',
        `${fx.plain.host}/base/opm:v1`,
      ],
      {
        configRoot: root,
        env: {
          HOME: path.join(root, 'home'),
          PATH: process.env.PATH,
          OLM_CACHE_DIR: path.join(root, 'cache'),
          REGISTRY_AUTH_FILE: auth,
        },
      },
    );
    expect(r.stderr).toBe(
      `pushed ${ref}@${r.stdout.trim()} (5 blobs uploaded, 0 already there or mounted)\n`,
    );
    expect(r.code).toBe(0);
    // Nothing of the base went into the blob cache: the layers went straight through.
    expect(existsSync(path.join(root, 'cache', 'blobs'))).toBe(false);
    await skopeo([
      'copy',
      '--src-tls-verify=false',
      '--src-creds',
      `${USER}:${PASSWORD}`,
      `docker://${ref}`,
      `oci:${path.join(tmp.dir, 'elsewhere-layout')}:x`,
    ]);
  });

  it('refuses with one line: no destination, a platform the base lacks, a layout folder in use', async () => {
    const none = await opm(['image', 'build', CATALOG, '--base-image', `${fx.plain.host}/base/opm:v1`]);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toMatch(/^error: say where the image goes: --push .*\n$/);
    const arch = await opm([
      '--platform',
      'linux/s390x',
      'image',
      'build',
      CATALOG,
      '--oci-layout',
      path.join(tmp.dir, 'never'),
      '--base-image',
      `${fx.plain.host}/base/opm:v1`,
    ]);
    expect(arch.code).toBe(1);
    expect(arch.stderr).toBe(
      'error: the base image has no linux/s390x image (it has linux/amd64, linux/arm64/v8) (choose among its platforms with --platform, or --platform all)\n',
    );
    const used = await opm([
      'image',
      'build',
      CATALOG,
      '--oci-layout',
      tmp.dir,
      '--base-image',
      `${fx.plain.host}/base/opm:v1`,
    ]);
    expect(used.code).toBe(1);
    expect(used.stderr).toMatch(/the folder exists and is not empty/);
    const bad = await opm([
      'image',
      'build',
      path.join(tmp.dir, 'no-such'),
      '--oci-layout',
      path.join(tmp.dir, 'x'),
      '--base-image',
      `${fx.plain.host}/base/opm:v1`,
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr.split('\n')).toHaveLength(2);
  });
});
