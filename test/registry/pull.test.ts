import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type Fixture } from './fixture.js';
import { BUNDLE_LABELS, CATALOG_LABELS, buildImage, pushImage } from './image-builder.js';
import { bundleDir, tempDir, testClient, testdata } from './helpers.js';

let fx: Fixture;
let tmp: ReturnType<typeof tempDir>;

beforeAll(async () => {
  tmp = tempDir('opm-pull-test-');
  fx = await startFixture();
});

afterAll(async () => {
  await fx?.stop();
  tmp?.remove();
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
      expect(readdirSync(path.join(pulled.root, 'manifests')).sort()).toEqual(readdirSync(path.join(src, 'manifests')).sort());
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
    const img = await buildImage({ layers: [{ dir: src, prefix: 'configs' }], labels: CATALOG_LABELS, compression: 'zstd' });
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
