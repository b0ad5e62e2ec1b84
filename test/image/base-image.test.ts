// needs-build: the image ships dist/ and bin/opm.js, and `opm image build` runs from bin/opm.js.
// needs-registry: real registry servers on 127.0.0.1 (docker-registry), and buildah.
/**
 * opm-ts's base image built without an engine (src/image/base-image.ts), run for real: built and pushed
 * by `opm image base` to a registry on 127.0.0.1, a catalog image built on it with
 * `opm image build`, that image started without a daemon (`buildah run`, chroot isolation, as the
 * image's user 1001) with the command OLM's catalog pods run, probed with grpc_health_probe as OLM
 * probes it and queried with grpcurl. The same inputs give the same digest.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../corpus.js';
import { PATIENCE_MS } from '../patience.js';
import { startPlainRegistry, type RegistryProcess } from '../registry/fixture.js';
import { tempDir } from '../registry/helpers.js';
import { buildahEnv, runTool } from '../registry/opm-base.js';
import { freePort, waitForPort } from '../registry/tools.js';
import { OPM } from '../serve/client.js';

const tools = path.join(projectRoot(), '.tools/bin');
const find = (...c: (string | undefined)[]): string | undefined =>
  c.find((p) => p !== undefined && p !== '' && existsSync(p));
const healthProbe = find(
  process.env.GRPC_HEALTH_PROBE,
  path.join(tools, 'grpc_health_probe'),
  path.join(tools, 'grpc-health-probe'),
);
const grpcurl = find(process.env.GRPCURL, path.join(tools, 'grpcurl'));
const have = (t: string): boolean => spawnSync('sh', ['-c', `command -v ${t}`]).status === 0;
const ready = healthProbe !== undefined && grpcurl !== undefined && have('buildah');
if (!ready) {
  const what = 'grpc_health_probe and grpcurl (scripts/build-grpc-tools.sh) and buildah';
  if (process.env.CI === 'true') throw new Error(`test/image/base-image.test.ts needs ${what}`);
  console.warn(`*** SKIPPED test/image/base-image.test.ts: it needs ${what} ***`);
}

let tmp: ReturnType<typeof tempDir>;
let registry: RegistryProcess;
let digest = '';
let benv: NodeJS.ProcessEnv = {};

/** `opm --use-http ARGS` to completion. */
function opm(args: string[]) {
  return spawnSync(process.execPath, [OPM, '--use-http', ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: tmp.dir, OLM_CACHE_DIR: path.join(tmp.dir, 'blobs') },
    timeout: PATIENCE_MS,
  });
}

beforeAll(async () => {
  if (!ready) return;
  tmp = tempDir('opm-base-image-');
  registry = await startPlainRegistry(tmp.dir, 'plain');
  // `opm image base`, pushed to the registry.
  const built = opm([
    'image',
    'base',
    '--grpc-health-probe',
    healthProbe as string,
    '-t',
    `${registry.host}/base/opm-ts:v1`,
    '--push',
  ]);
  if (built.status !== 0) throw new Error(`image base failed: ${built.stderr}`);
  digest = built.stdout.trim();
  benv = buildahEnv(path.join(tmp.dir, 'buildah'));
}, PATIENCE_MS * 4);

afterAll(async () => {
  await (registry as RegistryProcess | undefined)?.stop();
  (tmp as ReturnType<typeof tempDir> | undefined)?.remove();
});

describe.runIf(ready)('the opm-ts base image', () => {
  it('gives the same digest from the same inputs; user 1001, entrypoint /bin/opm', () => {
    const layout = path.join(tmp.dir, 'layout');
    const again = opm([
      'image',
      'base',
      '--grpc-health-probe',
      healthProbe as string,
      '--oci-layout',
      layout,
    ]);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout.trim()).toBe(digest);
    expect(again.stderr).toMatch(/compressed size \d+\.\d MiB/);
    const index = JSON.parse(readFileSync(path.join(layout, 'index.json'), 'utf8')) as {
      manifests: { digest: string }[];
    };
    const blob = (d: string): string => readFileSync(path.join(layout, 'blobs', ...d.split(':')), 'utf8');
    const manifest = JSON.parse(blob(index.manifests[0]?.digest ?? '')) as { config: { digest: string } };
    const config = JSON.parse(blob(manifest.config.digest)) as {
      config: { User: string; Entrypoint: string[] };
    };
    expect(config.config.User).toBe('1001');
    expect(config.config.Entrypoint).toEqual(['/bin/opm']);
  });

  it('a catalog image built on it runs without a daemon, answers the probe and grpcurl', async () => {
    const ref = `${registry.host}/catalogs/mixed:v1`;
    const built = opm([
      'image',
      'build',
      path.resolve('testdata/serve/mixed/catalog'),
      '-t',
      ref,
      '--push',
      '--base-image',
      `${registry.host}/base/opm-ts:v1`,
    ]);
    expect(built.status, built.stderr).toBe(0);
    const ctr = runTool('buildah', ['from', '--quiet', '--tls-verify=false', `docker://${ref}`], benv).trim();
    const port = await freePort();
    // The catalog pod's command (the image's CMD) on a free port, as the image's user.
    const child = spawn(
      'buildah',
      [
        'run',
        '--isolation',
        'chroot',
        ctr,
        '--',
        '/bin/opm',
        'serve',
        '/configs',
        '--cache-dir=/tmp/cache',
        '-p',
        String(port),
      ],
      { env: benv, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => (stderr += d));
    let alive = true;
    child.on('exit', () => (alive = false));
    try {
      await waitForPort(port, PATIENCE_MS, () => alive).catch((err: unknown) => {
        throw new Error(`${String(err)}\n${stderr}`);
      });
      const probe = spawnSync(healthProbe as string, [`-addr=127.0.0.1:${port}`], { encoding: 'utf8' });
      expect(probe.stdout + probe.stderr).toBe('status: SERVING\n');
      const pkgs = spawnSync(
        grpcurl as string,
        ['-plaintext', `127.0.0.1:${port}`, 'api.Registry/ListPackages'],
        {
          encoding: 'utf8',
        },
      );
      expect(pkgs.stdout).toContain('"name": "alpha-op"');
      // The probe inside the image answers too (what a pod's exec probe runs).
      const inside = spawnSync(
        'buildah',
        ['run', ctr, '--', '/bin/grpc_health_probe', `-addr=127.0.0.1:${port}`],
        {
          env: benv,
          encoding: 'utf8',
        },
      );
      expect(inside.stdout + inside.stderr).toContain('status: SERVING');
      // /bin/opm starts with the code cache the build shipped: a start whose V8 flags differ from
      // the build's (V8 refuses the cache then) leaves a cache of its own in the user's folder.
      const codeCache = (args: string[]): string => {
        const env = ['--env', 'OLM_CACHE_DIR=/tmp/opm-ts-cache'];
        runTool('buildah', ['run', ...env, ctr, '--', ...args, 'validate', '/configs'], benv);
        const seen = 'process.stdout.write(String(require("fs").existsSync("/tmp/opm-ts-cache/code-cache")))';
        return runTool('buildah', ['run', ctr, '--', '/usr/bin/node', '-e', seen], benv);
      };
      // The cache belongs to the image's user, with the modes opm's cache stage gives it (run as user
      // 1001 in opm's image): the top folders 0755, the store's folder 0770, files 0660.
      const owners = [
        'const fs = require("fs"), path = require("path"), out = [];',
        'const walk = (p) => { const s = fs.statSync(p); out.push(`${p} ${s.uid}:${s.gid} ${(s.mode & 0o7777).toString(8)}`);',
        'if (s.isDirectory()) for (const n of fs.readdirSync(p).sort()) walk(path.join(p, n)); };',
        'walk("/tmp/cache"); process.stdout.write(out.join("\\n"));',
      ].join(' ');
      const cache = runTool('buildah', ['run', ctr, '--', '/usr/bin/node', '-e', owners], benv).split('\n');
      expect(cache.slice(0, 4)).toEqual([
        '/tmp/cache 1001:0 755',
        '/tmp/cache/pogreb.v1 1001:0 755',
        '/tmp/cache/pogreb.v1/db 1001:0 770',
        '/tmp/cache/pogreb.v1/db/00000-1.psg 1001:0 660',
      ]);
      for (const line of cache.slice(4)) expect(line).toMatch(/ 1001:0 660$/);
      expect(codeCache(['/bin/opm'])).toBe('false');
      expect(codeCache(['/usr/bin/node', '--max-semi-space-size=1', '/usr/lib/opm-ts/bin/opm.js'])).toBe(
        'true',
      );
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => (alive ? child.on('exit', r) : r(undefined)));
      runTool('buildah', ['rm', ctr], benv);
    }
    expect(stderr).toContain('msg="found existing cache contents" backend=pogreb.v1');
    expect(stderr).not.toContain('level=warning');
    expect(stderr).toContain('msg="serving registry" cache=/tmp/cache configs=/configs');
  });
});
