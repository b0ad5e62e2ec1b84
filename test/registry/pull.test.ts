// needs-corpus: builds on ../shared/corpus; without it this file is left out, loudly (vitest.config.ts).
// needs-registry: real registry servers on 127.0.0.1 (docker-registry).
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type Fixture } from './fixture.js';
import { BUNDLE_LABELS, CATALOG_LABELS, buildImage, pushImage, writeOciLayout } from './image-builder.js';
import { bundleDir, pullError, tempDir, testClient, testdata } from './helpers.js';
import { startConnectProxy } from './servers.js';
import { freePort, requireTools, run } from './tools.js';
import { runOpm } from '../run-cli.js';

let fx: Fixture;
let tmp: ReturnType<typeof tempDir>;

beforeAll(async () => {
  tmp = tempDir('opm-pull-test-');
  fx = await startFixture();
});

afterAll(async () => {
  // Unassigned when beforeAll failed before reaching them.
  await (fx as Fixture | undefined)?.stop();
  (tmp as ReturnType<typeof tempDir> | undefined)?.remove();
});

describe('anonymous plain HTTP registry', () => {
  it('pulls a gzip OCI bundle image from the corpus with its labels and files', async () => {
    const src = bundleDir('kube-green', '0.7.1');
    const img = await buildImage({ layers: [{ dir: src }], labels: BUNDLE_LABELS('kube-green') });
    await pushImage(img, { url: fx.plain.url, repo: 'ns/kube-green', tag: 'v0.7.1' });
    const { client } = testClient(tmp.dir, { useHttp: true });
    const ref = `${fx.plain.host}/ns/kube-green:v0.7.1`;
    const pulled = await client.pull(ref);
    try {
      expect(pulled.ref).toBe(ref);
      expect(pulled.digest).toBe(img.top.digest);
      expect(pulled.labels['operators.operatorframework.io.bundle.package.v1']).toBe('kube-green');
      expect(readdirSync(path.join(pulled.root, 'manifests')).sort()).toEqual(
        readdirSync(path.join(src, 'manifests')).sort(),
      );
      expect(readFileSync(path.join(pulled.root, 'metadata', 'annotations.yaml'), 'utf8')).toBe(
        readFileSync(path.join(src, 'metadata', 'annotations.yaml'), 'utf8'),
      );
    } finally {
      await pulled.release();
      await pulled.release();
      await client.close();
    }
    expect(existsSync(pulled.root)).toBe(false);
  });

  it('pulls a zstd catalog image whose configs sit under /configs', async () => {
    const src = testdata('foo-index-v0.2.0-declcfg');
    const img = await buildImage({
      layers: [{ dir: src, prefix: 'configs' }],
      labels: CATALOG_LABELS,
      compression: 'zstd',
    });
    await pushImage(img, { url: fx.plain.url, repo: 'ns/catalog', tag: 'latest' });
    const { client } = testClient(tmp.dir, { useHttp: true });
    const pulled = await client.pull(`${fx.plain.host}/ns/catalog:latest`);
    try {
      expect(pulled.labels).toEqual(CATALOG_LABELS);
      expect(readFileSync(path.join(pulled.root, 'configs', 'foo', 'index.yaml'), 'utf8')).toBe(
        readFileSync(path.join(src, 'foo', 'index.yaml'), 'utf8'),
      );
    } finally {
      await pulled.release();
      await client.close();
    }
  });
});

describe('layers, formats and platforms', () => {
  it('applies uncompressed layers in order with whiteouts and opaque folders', async () => {
    const img = await buildImage({
      compression: 'none',
      labels: CATALOG_LABELS,
      layers: [
        {
          entries: [
            { name: 'configs/foo/stale.json', content: '{}' },
            { name: 'configs/foo/keep.json', content: '{"keep":1}' },
            { name: 'configs/old/a.json', content: '{}' },
          ],
        },
        {
          entries: [
            { name: './configs/foo/.wh.stale.json' },
            { name: './configs/old/b.json', content: '{"b":1}' },
            { name: './configs/old/.wh..wh..opq' },
          ],
        },
      ],
    });
    await pushImage(img, { url: fx.plain.url, repo: 'ns/whiteouts', tag: 'v1' });
    const { client } = testClient(tmp.dir, { useHttp: true });
    const pulled = await client.pull(`${fx.plain.host}/ns/whiteouts:v1`);
    try {
      expect(readdirSync(path.join(pulled.root, 'configs', 'foo'))).toEqual(['keep.json']);
      expect(readdirSync(path.join(pulled.root, 'configs', 'old'))).toEqual(['b.json']);
    } finally {
      await pulled.release();
      await client.close();
    }
  });

  it('pulls Docker schema 2 manifests and manifest lists, choosing the platform', async () => {
    const src = testdata('foo-bundle-v0.1.0');
    const platforms = [
      { os: 'linux', architecture: 'arm64', variant: 'v8' },
      { os: 'linux', architecture: 'amd64' },
      { os: 'linux', architecture: 'ppc64le' },
    ];
    const single = await buildImage({
      layers: [{ dir: src }],
      labels: BUNDLE_LABELS('foo'),
      format: 'docker',
    });
    await pushImage(single, { url: fx.plain.url, repo: 'ns/docker-foo', tag: 'v0.1.0' });
    const list = await buildImage({
      layers: [{ dir: src }],
      labels: BUNDLE_LABELS('foo'),
      format: 'docker',
      platforms,
    });
    await pushImage(list, { url: fx.plain.url, repo: 'ns/docker-foo', tag: 'multi' });
    const oci = await buildImage({ layers: [{ dir: src }], labels: BUNDLE_LABELS('foo'), platforms });
    await pushImage(oci, { url: fx.plain.url, repo: 'ns/oci-foo', tag: 'multi' });

    const plainClient = testClient(tmp.dir, { useHttp: true }).client;
    const one = await plainClient.pull(`${fx.plain.host}/ns/docker-foo:v0.1.0`);
    expect(one.digest).toBe(single.top.digest);
    expect(existsSync(path.join(one.root, 'manifests'))).toBe(true);
    await one.release();

    for (const [repo, built] of [
      ['ns/docker-foo', list],
      ['ns/oci-foo', oci],
    ] as const) {
      for (const platform of ['linux/arm64', 'linux/ppc64le', 'linux/amd64']) {
        const { client } = testClient(tmp.dir, { useHttp: true, platform });
        const pulled = await client.pull(`${fx.plain.host}/${repo}:multi`);
        expect(pulled.digest).toBe(built.top.digest);
        expect(pulled.labels['test.platform']?.startsWith(platform)).toBe(true);
        expect(pulled.labels['operators.operatorframework.io.bundle.package.v1']).toBe('foo');
        await pulled.release();
        await client.close();
      }
    }
    const { client: s390 } = testClient(tmp.dir, { useHttp: true, platform: 'linux/s390x' });
    const err = await pullError(s390.pull(`${fx.plain.host}/ns/oci-foo:multi`));
    expect(err.code).toBe('E_PLATFORM_NOT_FOUND');
    expect(err.message).toContain('linux/arm64/v8, linux/amd64, linux/ppc64le');
    await plainClient.close();
  });

  it('pulls an image pushed by skopeo as Docker v2s2', async () => {
    requireTools('skopeo');
    const img = await buildImage({
      layers: [{ dir: testdata('bar-bundle-v0.1.0') }],
      labels: BUNDLE_LABELS('bar'),
    });
    const layout = path.join(tmp.dir, 'layout-bar');
    writeOciLayout(layout, img, 'v0.1.0');
    run('skopeo', [
      'copy',
      '-q',
      '--format',
      'v2s2',
      '--dest-tls-verify=false',
      `oci:${layout}:v0.1.0`,
      `docker://${fx.plain.host}/sk/bar:v0.1.0`,
    ]);
    const { client } = testClient(tmp.dir, { useHttp: true });
    const pulled = await client.pull(`${fx.plain.host}/sk/bar:v0.1.0`);
    try {
      expect(pulled.labels['operators.operatorframework.io.bundle.package.v1']).toBe('bar');
      expect(readdirSync(path.join(pulled.root, 'manifests')).sort()).toEqual(
        readdirSync(path.join(testdata('bar-bundle-v0.1.0'), 'manifests')).sort(),
      );
    } finally {
      await pulled.release();
      await client.close();
    }
  });

  it('pulls several images at once', async () => {
    const versions = ['0.5.0', '0.5.1', '0.5.2', '0.6.0', '0.7.0'];
    for (const v of versions) {
      const img = await buildImage({
        layers: [{ dir: bundleDir('kube-green', v) }],
        labels: BUNDLE_LABELS('kube-green'),
      });
      await pushImage(img, { url: fx.plain.url, repo: 'ns/kube-green', tag: `v${v}` });
    }
    const { client } = testClient(tmp.dir, { useHttp: true });
    const pulled = await Promise.all(
      versions.map((v) => client.pull(`${fx.plain.host}/ns/kube-green:v${v}`)),
    );
    for (const [i, p] of pulled.entries()) {
      const csv = readFileSync(
        path.join(p.root, 'manifests', 'kube-green.clusterserviceversion.yaml'),
        'utf8',
      );
      expect(csv).toContain(`kube-green.v${versions[i] ?? ''}`);
      await p.release();
    }
    await client.close();
  });
});

describe('proxies', () => {
  it('goes through HTTP_PROXY unless NO_PROXY names the host', async () => {
    const img = await buildImage({
      layers: [{ dir: testdata('baz-bundle-v1.0.0') }],
      labels: BUNDLE_LABELS('baz'),
    });
    await pushImage(img, { url: fx.plain.url, repo: 'ns/baz', tag: 'v1.0.0' });
    const proxy = await startConnectProxy(await freePort());
    try {
      const ref = `${fx.plain.host}/ns/baz:v1.0.0`;
      const via = testClient(tmp.dir, { useHttp: true, env: { HTTP_PROXY: proxy.url } }).client;
      const a = await via.pull(ref);
      expect(a.digest).toBe(img.top.digest);
      await a.release();
      await via.close();
      expect(proxy.tunnels.length).toBeGreaterThan(0);
      expect(proxy.tunnels.every((t) => t === fx.plain.host)).toBe(true);

      proxy.tunnels.length = 0;
      const direct = testClient(tmp.dir, {
        useHttp: true,
        env: { HTTP_PROXY: proxy.url, NO_PROXY: `localhost,127.0.0.1:${fx.plain.port}` },
      }).client;
      const b = await direct.pull(ref);
      await b.release();
      await direct.close();
      expect(proxy.tunnels).toEqual([]);
    } finally {
      await proxy.close();
    }
  });
});

describe('insecure mode', () => {
  it('falls back from HTTPS to plain HTTP with --skip-tls-verify, as opm does', async () => {
    const img = await buildImage({
      layers: [{ dir: testdata('baz-bundle-v1.0.1') }],
      labels: BUNDLE_LABELS('baz'),
    });
    await pushImage(img, { url: fx.plain.url, repo: 'ns/baz', tag: 'v1.0.1' });
    const { client } = testClient(tmp.dir, { skipTlsVerify: true });
    const pulled = await client.pull(`${fx.plain.host}/ns/baz:v1.0.1`);
    expect(pulled.digest).toBe(img.top.digest);
    await pulled.release();
    await client.close();
  });

  it('falls back to plain HTTP for every one of several pulls started at once from a registries.conf insecure host', async () => {
    const img = await buildImage({
      layers: [{ dir: testdata('baz-bundle-v1.0.1') }],
      labels: BUNDLE_LABELS('baz'),
    });
    const tags = ['c1', 'c2', 'c3', 'c4'];
    for (const tag of tags) await pushImage(img, { url: fx.plain.url, repo: 'ns/concurrent', tag });
    const conf = path.join(tmp.dir, 'concurrent-insecure.conf');
    writeFileSync(conf, `[[registry]]\nlocation = "${fx.plain.host}"\ninsecure = true\n`);
    const warnings: string[] = [];
    const { client } = testClient(tmp.dir, {
      env: { CONTAINERS_REGISTRIES_CONF: conf },
      warn: (line) => warnings.push(line),
    });
    try {
      const pulled = await Promise.all(
        tags.map((tag) => client.pull(`${fx.plain.host}/ns/concurrent:${tag}`)),
      );
      expect(pulled.map((p) => p.digest)).toEqual(tags.map(() => img.top.digest));
      await Promise.all(pulled.map((p) => p.release()));
    } finally {
      await client.close();
    }
    // One decision for the host, said once.
    expect(warnings.filter((w) => w.includes('does not speak TLS'))).toHaveLength(1);
  });

  it('renders several images of a registries.conf insecure host in one command, as one alone', async () => {
    const img = await buildImage({
      layers: [{ dir: testdata('baz-bundle-v1.0.1') }],
      labels: BUNDLE_LABELS('baz'),
    });
    const refs = ['r1', 'r2', 'r3'].map((tag) => `${fx.plain.host}/ns/render-insecure:${tag}`);
    for (const ref of refs)
      await pushImage(img, {
        url: fx.plain.url,
        repo: 'ns/render-insecure',
        tag: ref.split(':').pop() ?? '',
      });
    const root = path.join(tmp.dir, 'render-insecure');
    mkdirSync(path.join(root, 'home'), { recursive: true });
    const conf = path.join(root, 'registries.conf');
    writeFileSync(conf, `[[registry]]\nlocation = "${fx.plain.host}"\ninsecure = true\n`);
    const env = {
      HOME: path.join(root, 'home'),
      PATH: process.env.PATH,
      OLM_CACHE_DIR: path.join(root, 'cache'),
      CONTAINERS_REGISTRIES_CONF: conf,
    };
    const all = await runOpm(['render', ...refs, '-o', 'json'], { env, configRoot: root });
    expect(all.stderr).toBe(
      `warning: ${fx.plain.host} does not speak TLS; using plain HTTP (insecure mode)\n`,
    );
    expect(all.code).toBe(0);
    const alone: string[] = [];
    for (const ref of refs) {
      const one = await runOpm(['--no-cache', 'render', ref, '-o', 'json'], { env, configRoot: root });
      expect(one.code).toBe(0);
      alone.push(one.stdout);
    }
    expect(all.stdout).toBe(alone.join(''));
  });

  it('does not fall back to plain HTTP without an insecure flag', async () => {
    const { client } = testClient(tmp.dir);
    const err = await pullError(client.pull(`${fx.plain.host}/ns/baz:v1.0.1`));
    expect(err.code).toBe('E_REGISTRY_TLS');
    // The host answered in plain HTTP: the hint is how to speak that, not how to trust a CA.
    expect(err.hint).toBe(
      'the registry may serve plain HTTP: pass --use-http, or set insecure = true for it in registries.conf',
    );
    await client.close();
  });
});
