// needs-registry: the images are pushed to a plain-HTTP registry on 127.0.0.1 (docker-registry)
// integration: runs buildah (vfs storage in a temporary folder, chroot isolation) to build and run images
/**
 * Catalog images on a real opm base (the reference opm binary and its C library, built by buildah),
 * run as containers: the image `opm image build` pushes and the one the documentation's way gives
 * (`opm generate dockerfile` of the reference, `buildah bud`, `buildah push`) both start with the
 * base's `/bin/opm` and their own command, integrity enforced, and list the same packages.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { startPlainRegistry, type RegistryProcess } from '../registry/fixture.js';
import { tempDir } from '../registry/helpers.js';
import { buildahEnv, buildOpmBase, runTool } from '../registry/opm-base.js';
import { have } from '../registry/tools.js';
import { answering, freePort } from '../serve/client.js';
import { grpcurlCall } from '../serve/harness.js';
import { reference } from './reference-opm.js';

const present = have('buildah') && have('ldd');
if (!present) {
  if (process.env.CI === 'true') throw new Error('CI runs every suite: buildah must be installed');
  console.warn('*** SKIPPED test/reference/image-buildah.test.ts: buildah is not installed ***');
}

const catalog = path.resolve('testdata/examples/catalog');
let tmp: ReturnType<typeof tempDir>;
let registry: RegistryProcess;
let bEnv: NodeJS.ProcessEnv;
let baseRef: string;

beforeAll(async () => {
  if (!present) return;
  tmp = tempDir('opm-image-buildah-');
  registry = await startPlainRegistry(tmp.dir, 'buildah');
  bEnv = buildahEnv(path.join(tmp.dir, 'buildah'));
  baseRef = `${registry.host}/base/opm:v1`;
  buildOpmBase(reference, baseRef, tmp.dir, bEnv);
}, 180_000);

afterAll(async () => {
  if (!present) return;
  await registry.stop();
  tmp.remove();
});

/** The packages the reference opm renders from the folder, sorted. */
function expectedPackages(): string[] {
  const r = spawnSync(reference, ['render', catalog, '-o', 'json'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  return [...r.stdout.matchAll(/"schema": "olm.package",\n {4}"name": "([^"]+)"/g)]
    .map((m) => m[1] ?? '')
    .sort();
}

/**
 * `ref` pulled and run as a container (its entrypoint and command from its config, a port of ours
 * added), then asked for its packages through grpcurl.
 */
async function servedPackages(ref: string): Promise<{ stderr: string; packages: string[] }> {
  const container = runTool('buildah', ['from', '--quiet', '--tls-verify=false', ref], bEnv).trim();
  const config = JSON.parse(runTool('buildah', ['inspect', '--type', 'container', container], bEnv)) as {
    OCIv1: { config: { Entrypoint?: string[]; Cmd?: string[] } };
  };
  const argv = [...(config.OCIv1.config.Entrypoint ?? []), ...(config.OCIv1.config.Cmd ?? [])];
  const port = await freePort();
  // chroot isolation shares the host's network: the server listens on 127.0.0.1 of this machine.
  const child = spawn(
    'buildah',
    ['run', container, '--', ...argv, '--cache-enforce-integrity', '-p', String(port), '--pprof-addr', ''],
    { env: bEnv, stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => (stderr += d));
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  try {
    await Promise.race([answering(port, 60_000), closed]);
    const r = await grpcurlCall(`127.0.0.1:${port}`, 'api.Registry/ListPackages');
    expect(r.stderr).toBe('');
    return { stderr, packages: r.messages.map((p) => (p as { name: string }).name).sort() };
  } finally {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    await closed;
    spawnSync('buildah', ['rm', container], { env: bEnv, stdio: 'ignore' });
  }
}

describe.runIf(present)('catalog images on a real opm base, run by buildah', { timeout: 300_000 }, () => {
  it('opm image build --push: the container serves the catalog, integrity enforced', async () => {
    const ref = `${registry.host}/catalogs/ours:v1`;
    const home = path.join(tmp.dir, 'home');
    mkdirSync(home, { recursive: true });
    const built = await runOpm(
      ['--use-http', 'image', 'build', catalog, '-t', ref, '--push', '-i', baseRef],
      {
        env: { HOME: home, PATH: process.env.PATH, OLM_CACHE_DIR: path.join(home, 'cache') },
        configRoot: tmp.dir,
      },
    );
    expect(built.stderr).toMatch(/^pushed /m);
    expect(built.code).toBe(0);
    const served = await servedPackages(ref);
    expect(served.stderr).not.toMatch(/level=(fatal|error)|requires rebuild/);
    expect(served.packages).toEqual(expectedPackages());
  });

  it('generate dockerfile + buildah bud + push: its RUN step runs the base opm, and it serves the same', async () => {
    const work = path.join(tmp.dir, 'docs-way');
    cpSync(catalog, path.join(work, 'catalog'), { recursive: true });
    runTool(reference, ['generate', 'dockerfile', 'catalog', '-i', baseRef, '-b', baseRef], bEnv, work);
    expect(readFileSync(path.join(work, 'catalog.Dockerfile'), 'utf8')).toContain(
      'RUN ["/bin/opm", "serve", "/configs", "--cache-dir=/tmp/cache", "--cache-only"]',
    );
    const ref = `${registry.host}/catalogs/docs:v1`;
    runTool(
      'buildah',
      [
        'bud',
        '--isolation',
        'chroot',
        '--tls-verify=false',
        '-f',
        'catalog.Dockerfile',
        '-t',
        'localhost/docs:v1',
        '.',
      ],
      bEnv,
      work,
    );
    runTool('buildah', ['push', '--tls-verify=false', 'localhost/docs:v1', `docker://${ref}`], bEnv);
    const served = await servedPackages(ref);
    expect(served.stderr).not.toMatch(/level=(fatal|error)|requires rebuild/);
    expect(served.packages).toEqual(expectedPackages());
  });
});
