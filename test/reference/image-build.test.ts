// needs-registry: real registry servers on 127.0.0.1 (docker-registry), read back with skopeo.
// needs-corpus: builds on ../shared/corpus; without it this file is left out, loudly (vitest.config.ts).
/**
 * Images built by opm-ts, read by the reference opm: `opm render <pushed catalog image>` prints what
 * `opm render <dir>` prints, byte for byte; the reference `opm serve` runs on the /configs and
 * /tmp/cache unpacked from the pushed layers with its integrity check enforced and answers grpcurl;
 * a bundle image built from a bundle folder renders as the folder does.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusPath } from '../corpus.js';
import { runOpm } from '../run-cli.js';
import { startFixture, type Fixture } from '../registry/fixture.js';
import { buildOpmStandIn, pushImage } from '../registry/image-builder.js';
import { tempDir } from '../registry/helpers.js';
import { requireTools } from '../registry/tools.js';
import { answering, freePort } from '../serve/client.js';
import { grpcurlCall } from '../serve/harness.js';
import { reference } from './reference-opm.js';
import { RegistryPusher } from '../../src/oci/push/pusher.js';
import { buildBundleImage } from '../../src/image/bundle-image.js';

let fx: Fixture;
let tmp: ReturnType<typeof tempDir>;
let baseRef: string;

const CATALOGS = [
  { name: 'examples', dir: path.resolve('testdata/examples/catalog') },
  { name: 'community-catalog-v4.21', dir: corpusPath('community-catalog-v4.21') },
];

function env(name: string): NodeJS.ProcessEnv {
  const home = path.join(tmp.dir, `home-${name}`);
  mkdirSync(home, { recursive: true });
  return { HOME: home, PATH: process.env.PATH, OLM_CACHE_DIR: path.join(home, 'cache') };
}

function referenceRun(args: string[], name: string): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(reference, args, { encoding: 'utf8', env: env(name), maxBuffer: 1 << 28 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** The pushed image's layers unpacked in order into `root` (skopeo copies it to a layout first). */
function unpack(ref: string, root: string): void {
  const layout = `${root}-layout`;
  const copy = spawnSync('skopeo', ['copy', '--src-tls-verify=false', `docker://${ref}`, `oci:${layout}:x`], {
    encoding: 'utf8',
  });
  expect(copy.stderr).toBe('');
  const index = JSON.parse(readFileSync(path.join(layout, 'index.json'), 'utf8')) as {
    manifests: Array<{ digest: string }>;
  };
  const blob = (d: string): string => path.join(layout, 'blobs', 'sha256', d.slice(7));
  const manifest = JSON.parse(readFileSync(blob(index.manifests[0]?.digest ?? ''), 'utf8')) as {
    layers: Array<{ digest: string }>;
  };
  mkdirSync(root, { recursive: true });
  for (const l of manifest.layers) {
    const t = spawnSync('tar', ['-xzf', blob(l.digest), '-C', root], { encoding: 'utf8' });
    expect(t.stderr).toBe('');
  }
}

/** The reference opm serving `configs` from `cache`, integrity enforced; ListPackages through grpcurl. */
async function referenceServes(
  configs: string,
  cache: string,
): Promise<{ stderr: string; packages: unknown[] }> {
  const port = await freePort();
  const child = spawn(
    reference,
    [
      'serve',
      configs,
      '--cache-dir',
      cache,
      '--cache-enforce-integrity',
      '-p',
      String(port),
      '--pprof-addr',
      '',
      '-t',
      path.join(tmp.dir, 'termination-log'),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => (stderr += d));
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  try {
    await Promise.race([answering(port), closed]);
    const r = await grpcurlCall(`127.0.0.1:${port}`, 'api.Registry/ListPackages');
    return { stderr, packages: r.messages };
  } finally {
    child.kill('SIGTERM');
    await closed;
  }
}

beforeAll(async () => {
  requireTools('skopeo');
  tmp = tempDir('opm-image-reference-');
  fx = await startFixture();
  const base = await buildOpmStandIn({ format: 'oci' });
  await pushImage(base, { url: fx.plain.url, repo: 'base/opm', tag: 'v1' });
  baseRef = `${fx.plain.host}/base/opm:v1`;
}, 60_000);

afterAll(async () => {
  await fx.stop();
  tmp.remove();
});

describe.each(CATALOGS)(
  'a catalog image of $name read by the reference opm',
  { timeout: 300_000 },
  ({ name, dir }) => {
    const ref = (): string => `${fx.plain.host}/catalogs/${name}:v1`;

    it('is pushed by opm image build', async () => {
      const r = await runOpm(
        ['--use-http', 'image', 'build', dir, '-t', ref(), '--push', '--base-image', baseRef],
        {
          env: env(`ours-${name}`),
          configRoot: tmp.dir,
        },
      );
      expect(r.stderr).toMatch(/^pushed /);
      expect(r.code).toBe(0);
    });

    it('renders byte for byte as the folder does', () => {
      const fromImage = referenceRun(['render', ref(), '--use-http', '-o', 'yaml'], `render-${name}`);
      expect(fromImage.code).toBe(0);
      const fromDir = referenceRun(['render', dir, '-o', 'yaml'], `render-dir-${name}`);
      expect(fromImage.stdout).toBe(fromDir.stdout);
    });

    it('is served from its unpacked /configs and /tmp/cache, integrity enforced', async () => {
      const root = path.join(tmp.dir, `unpacked-${name}`);
      unpack(ref(), root);
      const served = await referenceServes(path.join(root, 'configs'), path.join(root, 'tmp', 'cache'));
      expect(served.stderr).not.toMatch(/level=(fatal|error)|requires rebuild/);
      expect(served.packages.length).toBeGreaterThan(0);
      const names = served.packages.map((p) => (p as { name: string }).name).sort();
      const rendered = referenceRun(['render', dir, '-o', 'json'], `pkgs-${name}`).stdout;
      const expected = [...rendered.matchAll(/"schema": "olm.package",\n {4}"name": "([^"]+)"/g)]
        .map((m) => m[1])
        .sort();
      expect(names).toEqual(expected);
    });
  },
);

describe('a bundle image built without an engine', { timeout: 120_000 }, () => {
  it('renders as its folder does, and builds twice to the same digest', async () => {
    const bundleDir = corpusPath('opm-testdata', 'foo-bundle-v0.2.0');
    const work = path.join(tmp.dir, 'bundle-work');
    mkdirSync(work, { recursive: true });
    const first = await buildBundleImage({ bundleDir, workDir: work });
    const second = await buildBundleImage({ bundleDir, workDir: path.join(tmp.dir, 'bundle-work-2') }).catch(
      async () => {
        mkdirSync(path.join(tmp.dir, 'bundle-work-2'), { recursive: true });
        return buildBundleImage({ bundleDir, workDir: path.join(tmp.dir, 'bundle-work-2') });
      },
    );
    expect(second.top.digest).toBe(first.top.digest);
    const pusher = new RegistryPusher({
      skipTlsVerify: false,
      useHttp: true,
      env: env('bundle-push'),
      certDirs: [],
      configRoot: tmp.dir,
    });
    const ref = `${fx.plain.host}/bundles/foo:v0.2.0`;
    try {
      expect((await pusher.push(ref, first.plan)).digest).toBe(first.top.digest);
    } finally {
      await pusher.close();
    }
    const fromImage = referenceRun(['render', ref, '--use-http', '-o', 'yaml'], 'bundle-image');
    expect(fromImage.code).toBe(0);
    const fromDir = referenceRun(['render', bundleDir, '-o', 'yaml'], 'bundle-dir');
    expect(fromDir.code).toBe(0);
    // The folder's render names no image; the image's names itself, and lists itself among the
    // related images (first here: 127.0.0.1 sorts before the others). Everything else is the same.
    expect(fromImage.stdout).toBe(
      fromDir.stdout
        .replace(/^image: ""$/m, `image: ${ref}`)
        .replace(/^relatedImages:\n/m, `relatedImages:\n- image: ${ref}\n  name: ""\n`),
    );
  });
});
