// needs-corpus: builds on ../shared/corpus; without it this file is left out, loudly (vitest.config.ts).
// needs-registry: real registry servers on 127.0.0.1 (docker-registry).
// registries.conf against real registries on 127.0.0.1: a source and a mirror (docker-registry),
// each behind a counting proxy, so every request that reaches a registry is seen.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { startPlainRegistry, type RegistryProcess } from './fixture.js';
import { BUNDLE_LABELS, buildImage, pushImage, type BuiltImage } from './image-builder.js';
import { pullError, tempDir, testClient, testdata } from './helpers.js';
import { startFaultProxy, type FaultProxy } from './servers.js';
import { freePort } from './tools.js';

let tmp: ReturnType<typeof tempDir>;
let source: RegistryProcess;
let mirror: RegistryProcess;
/** Counting proxies in front of the source and the mirror. */
let src: FaultProxy;
let mir: FaultProxy;
/** A port nothing listens on: a registry that is down. */
let dead: string;
/** An empty folder standing for `/`: the machine's /etc/containers stays out of the tests. */
let root: string;
let img: BuiltImage;
let confCount = 0;
let cacheCount = 0;

const REPO = 'ns/foo-bundle';
const TAG = 'v0.3.0';
const digest = (): string => img.top.digest;

/** A registries.conf in a fresh file. */
function conf(text: string): string {
  const file = path.join(tmp.dir, `registries-${++confCount}.conf`);
  writeFileSync(file, text);
  return file;
}

function client(confFile: string, useHttp = false): ReturnType<typeof testClient> {
  return testClient(tmp.dir, { useHttp, env: { CONTAINERS_REGISTRIES_CONF: confFile } });
}

function cliEnv(confFile: string): NodeJS.ProcessEnv {
  return {
    HOME: path.join(tmp.dir, 'home'),
    PATH: process.env.PATH,
    OLM_CACHE_DIR: path.join(tmp.dir, `cache-${++cacheCount}`),
    CONTAINERS_REGISTRIES_CONF: confFile,
  };
}

const requests = (p: FaultProxy): number => p.counts.blob + p.counts.manifest + p.counts.other;

beforeAll(async () => {
  tmp = tempDir('opm-mirrors-');
  root = path.join(tmp.dir, 'root');
  mkdirSync(root);
  mkdirSync(path.join(tmp.dir, 'home'));
  [source, mirror] = await Promise.all([
    startPlainRegistry(tmp.dir, 'source'),
    startPlainRegistry(tmp.dir, 'mirror'),
  ]);
  src = await startFaultProxy(await freePort(), source.port);
  mir = await startFaultProxy(await freePort(), mirror.port);
  dead = `127.0.0.1:${await freePort()}`;
  img = await buildImage({ layers: [{ dir: testdata('foo-bundle-v0.3.0') }], labels: BUNDLE_LABELS('foo') });
  await pushImage(img, { url: source.url, repo: REPO, tag: TAG });
  await pushImage(img, { url: mirror.url, repo: `mirror/${REPO}`, tag: TAG });
  await pushImage(img, { url: mirror.url, repo: 'relocated/foo-bundle', tag: TAG });
});

afterAll(async () => {
  // Unassigned when beforeAll failed before reaching them.
  await (src as FaultProxy | undefined)?.close();
  await (mir as FaultProxy | undefined)?.close();
  await (source as RegistryProcess | undefined)?.stop();
  await (mirror as RegistryProcess | undefined)?.stop();
  (tmp as ReturnType<typeof tempDir> | undefined)?.remove();
});

beforeEach(() => {
  src.reset();
  mir.reset();
});

describe('mirrors', () => {
  it('pulls from the mirror first, and not from the source at all', async () => {
    const c = client(
      conf(`[[registry]]\nlocation = "${src.host}"\n[[registry.mirror]]\nlocation = "${mir.host}/mirror"\n`),
      true,
    );
    const pulled = await c.client.pull(`${src.host}/${REPO}:${TAG}`);
    try {
      expect(pulled.digest).toBe(digest());
      expect(pulled.ref).toBe(`${src.host}/${REPO}:${TAG}`);
      expect(mir.counts.manifest).toBe(1);
      expect(requests(src)).toBe(0);
    } finally {
      await pulled.release();
      await c.client.close();
    }
  });

  it('falls through failing mirrors (down, missing the image) to the source', async () => {
    const c = client(
      conf(
        [
          `[[registry]]`,
          `location = "${src.host}"`,
          `[[registry.mirror]]`,
          `location = "${dead}/mirror"`,
          `[[registry.mirror]]`,
          `location = "${mir.host}/not-there"`,
        ].join('\n'),
      ),
      true,
    );
    const pulled = await c.client.pull(`${src.host}/${REPO}:${TAG}`);
    try {
      expect(pulled.digest).toBe(digest());
      expect(mir.counts.manifest).toBe(1);
      expect(src.counts.manifest).toBe(1);
      expect(c.logs).toContainEqual(
        expect.stringMatching(new RegExp(`^${dead}/mirror/${REPO}:${TAG}: .*ECONNREFUSED`)),
      );
      expect(c.logs).toContainEqual(expect.stringMatching(/not-there.*not found/));
    } finally {
      await pulled.release();
      await c.client.close();
    }
  });

  it('verifies a pull by digest: a mirror serving other bytes is passed over for the source', async () => {
    const c = client(
      conf(`[[registry]]\nlocation = "${src.host}"\n[[registry.mirror]]\nlocation = "${mir.host}/mirror"\n`),
      true,
    );
    mir.faults.push({ kind: 'alter', on: 'manifest', times: 1 });
    const pulled = await c.client.pull(`${src.host}/${REPO}@${digest()}`);
    try {
      expect(pulled.digest).toBe(digest());
      expect(mir.counts.manifest).toBe(1);
      expect(src.counts.manifest).toBe(1);
      expect(c.logs).toContainEqual(expect.stringContaining('digest mismatch'));
    } finally {
      await pulled.release();
      await c.client.close();
    }
  });

  it('fails with every source and its reason when the mirror lies and the source is down', async () => {
    const c = client(
      conf(`[[registry]]\nlocation = "${dead}"\n[[registry.mirror]]\nlocation = "${mir.host}/mirror"\n`),
      true,
    );
    mir.faults.push({ kind: 'alter', on: 'manifest', times: 1 });
    const ref = `${dead}/${REPO}@${digest()}`;
    const err = await pullError(c.client.pull(ref));
    await c.client.close();
    expect(err.message).toBe(
      `failed to pull image "${ref}": all 2 sources failed: ` +
        `${mir.host}/mirror/${REPO}@${digest()} (mirror): manifest ${digest()}: digest mismatch: expected ${digest()}, got ` +
        `${/got (sha256:[0-9a-f]{64})/.exec(err.message)?.[1] ?? 'sha256:?'}; ` +
        `${ref}: cannot reach registry (ECONNREFUSED)`,
    );
    expect(err.message).not.toContain(`got ${digest()}`);
  });

  it('skips a digest-only mirror for a tag and uses it for a digest', async () => {
    const file = conf(
      `[[registry]]\nlocation = "${src.host}"\n[[registry.mirror]]\nlocation = "${mir.host}/mirror"\npull-from-mirror = "digest-only"\n`,
    );
    const byTag = client(file, true);
    const a = await byTag.client.pull(`${src.host}/${REPO}:${TAG}`);
    await a.release();
    await byTag.client.close();
    expect(requests(mir)).toBe(0);
    expect(src.counts.manifest).toBe(1);

    src.reset();
    const byDigest = client(file, true);
    const b = await byDigest.client.pull(`${src.host}/${REPO}@${digest()}`);
    await b.release();
    await byDigest.client.close();
    expect(mir.counts.manifest).toBe(1);
    expect(requests(src)).toBe(0);
  });

  it('mirrors a wildcard prefix, and passes a tag-only mirror over for a digest', async () => {
    const file = conf(
      [
        '[[registry]]',
        'prefix = "*.example.test"',
        '[[registry.mirror]]',
        `location = "${mir.host}/mirror"`,
        'pull-from-mirror = "tag-only"',
        '[[registry.mirror]]',
        `location = "${src.host}"`,
      ].join('\n'),
    );
    const byTag = client(file, true);
    const a = await byTag.client.pull(`team.example.test/${REPO}:${TAG}`);
    await a.release();
    await byTag.client.close();
    expect(a.digest).toBe(digest());
    expect(mir.counts.manifest).toBe(1);
    expect(requests(src)).toBe(0);

    mir.reset();
    const byDigest = client(file, true);
    const b = await byDigest.client.pull(`team.example.test/${REPO}@${digest()}`);
    await b.release();
    await byDigest.client.close();
    expect(requests(mir)).toBe(0);
    expect(src.counts.manifest).toBe(1);
  });

  it('rewrites a prefix to its location', async () => {
    const c = client(
      conf(
        `[[registry]]\nprefix = "registry.example.com/team"\nlocation = "${mir.host}/relocated"\ninsecure = true\n`,
      ),
    );
    const pulled = await c.client.pull(`registry.example.com/team/foo-bundle:${TAG}`);
    try {
      expect(pulled.digest).toBe(digest());
      expect(pulled.ref).toBe(`registry.example.com/team/foo-bundle:${TAG}`);
      expect(mir.counts.manifest).toBe(1);
    } finally {
      await pulled.release();
      await c.client.close();
    }
  });

  it('resolves a short-name alias', async () => {
    const c = client(conf(`[aliases]\n"foo-bundle" = "${src.host}/${REPO}"\n`), true);
    const pulled = await c.client.pull(`foo-bundle:${TAG}`);
    try {
      expect(pulled.digest).toBe(digest());
      expect(src.counts.manifest).toBe(1);
    } finally {
      await pulled.release();
      await c.client.close();
    }
  });
});

describe('blocked registries', () => {
  it('refuses a pull before any request, naming the file', async () => {
    const file = conf(
      `[[registry]]\nprefix = "${src.host}/ns"\nlocation = "${src.host}/ns"\nblocked = true\n`,
    );
    const c = client(file, true);
    const err = await pullError(c.client.pull(`${src.host}/${REPO}:${TAG}`));
    await c.client.close();
    expect(err.code).toBe('E_REGISTRY_BLOCKED');
    expect(err.message).toBe(
      `failed to pull image "${src.host}/${REPO}:${TAG}": registry "${src.host}/ns" is blocked by ${file}`,
    );
    expect(requests(src)).toBe(0);
  });

  it('refuses on the command line with one line and exit 1', async () => {
    const file = conf(`[[registry]]\nlocation = "${src.host}"\nblocked = true\n`);
    const r = await runOpm(['--use-http', 'render', `${src.host}/${REPO}:${TAG}`], {
      env: cliEnv(file),
      configRoot: root,
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`registry "${src.host}" is blocked by ${file}`);
    expect(requests(src)).toBe(0);
  });
});

describe('opm render through registries.conf', () => {
  it('names the file and line of a malformed configuration', async () => {
    const file = conf('[[registry]]\nlocation = "a.io"\ninsecure = yes\n');
    const r = await runOpm(['render', `${src.host}/${REPO}:${TAG}`], { env: cliEnv(file), configRoot: root });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`: ${file}:3: invalid TOML: `);
    expect(requests(src)).toBe(0);
  });

  it('renders a bundle from an insecure mirror with the source registry stopped', async () => {
    const ref = `${source.host}/${REPO}:${TAG}`;
    const none = conf('');
    const fromSource = await runOpm(['--use-http', 'render', ref, '-o', 'yaml'], {
      env: cliEnv(none),
      configRoot: root,
    });
    expect(fromSource.code).toBe(0);
    expect(fromSource.stdout).toContain(`image: ${ref}\n`);

    await source.stop();
    const file = conf(
      `[[registry]]\nlocation = "${source.host}"\n[[registry.mirror]]\nlocation = "${mirror.host}/mirror"\ninsecure = true\n`,
    );
    // No --use-http: the mirror alone is marked insecure, so plain HTTP is allowed for it only.
    const fromMirror = await runOpm(['render', ref, '-o', 'yaml'], { env: cliEnv(file), configRoot: root });
    expect(fromMirror.code).toBe(0);
    expect(fromMirror.stdout).toBe(fromSource.stdout);

    // With the mirror skipped for tags, only the stopped source is left.
    const digestOnly = conf(
      `[[registry]]\nlocation = "${source.host}"\n[[registry.mirror]]\nlocation = "${mirror.host}/mirror"\ninsecure = true\npull-from-mirror = "digest-only"\n`,
    );
    const failed = await runOpm(['--use-http', 'render', ref], { env: cliEnv(digestOnly), configRoot: root });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(`${source.host}: cannot reach registry (ECONNREFUSED)`);
  });
});
