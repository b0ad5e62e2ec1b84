/**
 * The foo/bar/baz bundles of opm's own render tests (corpus/opm-testdata), rendered as opm's
 * tests expect: property set and order, bundle objects, relatedImages, templates, migrations.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusPath, haveCorpus } from '../corpus.js';
import { render } from '../../src/action/render/render.js';
import { OpmError } from '../../src/errors.js';
import type { ImageSource, PulledImage } from '../../src/oci/image-source.js';
import type { Bundle } from '../../src/declcfg/types.js';

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

// The manifests as opm stores them: Go JSON of the decoded YAML, keys sorted.
const fooCrdJson =
  '{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"foos.test.foo"},' +
  '"spec":{"group":"test.foo","names":{"kind":"Foo","plural":"foos"},"versions":[{"name":"v1"}]}}';
const fooV1CsvJson =
  '{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"annotations":{"olm.skipRange":"\\u003c0.1.0"},"name":"foo.v0.1.0"},' +
  '"spec":{"customresourcedefinitions":{"owned":[{"group":"test.foo","kind":"Foo","name":"foos.test.foo","version":"v1"}]},' +
  '"displayName":"Foo Operator","relatedImages":[{"image":"test.registry/foo-operator/foo:v0.1.0","name":"operator"}],"version":"0.1.0"}}';

const fooHeadProperties = (version: string): unknown[] => [
  { type: 'olm.gvk', value: { group: 'test.foo', kind: 'Foo', version: 'v1' } },
  { type: 'olm.gvk.required', value: { group: 'test.bar', kind: 'Bar', version: 'v1alpha1' } },
  { type: 'olm.package', value: { packageName: 'foo', version } },
  { type: 'olm.package.required', value: { packageName: 'bar', versionRange: '<0.1.0' } },
];

const fooV2Images = [
  { name: '', image: 'test.registry/foo-operator/foo-2:v0.2.0' },
  { name: '', image: 'test.registry/foo-operator/foo-init-2:v0.2.0' },
  { name: '', image: 'test.registry/foo-operator/foo-init:v0.2.0' },
  { name: 'other', image: 'test.registry/foo-operator/foo-other:v0.2.0' },
  { name: 'operator', image: 'test.registry/foo-operator/foo:v0.2.0' },
];

function only(cfg: { bundles: Bundle[] }): Bundle {
  expect(cfg.bundles).toHaveLength(1);
  const b = cfg.bundles[0];
  if (b === undefined) throw new Error('no bundle');
  return b;
}

/** A directory-backed image source: refs map to unpacked image roots and labels. */
function dirImages(images: Record<string, { root: string; labels: Record<string, string> }>): ImageSource & {
  released: string[];
} {
  const released: string[] = [];
  return {
    released,
    pull(ref: string): Promise<PulledImage> {
      const img = images[ref];
      if (img === undefined)
        return Promise.reject(new OpmError(`failed to pull image "${ref}": manifest unknown: ${ref}`));
      return Promise.resolve({
        ref,
        digest: 'sha256:' + '0'.repeat(64),
        labels: img.labels,
        root: img.root,
        release: () => {
          released.push(ref);
          return Promise.resolve();
        },
      });
    },
  };
}

describe.runIf(haveCorpus())('opm-testdata bundles', () => {
  const td = (name: string): string => corpusPath('opm-testdata', name);

  it('foo v0.1.0 directory: properties sorted, bundle objects last in base64 order, no image', async () => {
    const b = only(await render({ refs: [td('foo-bundle-v0.1.0')] }));
    expect(b.name).toBe('foo.v0.1.0');
    expect(b.package).toBe('foo');
    expect(b.image).toBe('');
    expect(plain(b.properties)).toEqual([
      ...fooHeadProperties('0.1.0'),
      { type: 'olm.bundle.object', value: { data: b64(fooCrdJson) } },
      { type: 'olm.bundle.object', value: { data: b64(fooV1CsvJson) } },
    ]);
    expect(b.relatedImages).toEqual([{ name: 'operator', image: 'test.registry/foo-operator/foo:v0.1.0' }]);
  });

  it('foo v0.2.0 directory without a template: operator and init images, no bundle image', async () => {
    const b = only(await render({ refs: [td('foo-bundle-v0.2.0')] }));
    expect(b.image).toBe('');
    expect(plain(b.properties?.slice(0, 4))).toEqual(fooHeadProperties('0.2.0'));
    expect(b.properties?.slice(4).map((p) => p.type)).toEqual(['olm.bundle.object', 'olm.bundle.object']);
    expect(plain(b.properties?.[4])).toEqual({ type: 'olm.bundle.object', value: { data: b64(fooCrdJson) } });
    expect(b.relatedImages).toEqual(fooV2Images);
  });

  it('foo v0.2.0 directory with an image template (opm BundleDirectoryWithImageRefTemplate)', async () => {
    const b = only(
      await render({
        refs: [td('foo-bundle-v0.2.0')],
        imageRefTemplate: 'test.registry/{{.Package}}-operator/{{.Package}}:v{{.Version}}',
      }),
    );
    expect(b.image).toBe('test.registry/foo-operator/foo:v0.2.0');
    // The image is already a named CSV related image, so it is not listed again.
    expect(b.relatedImages).toEqual(fooV2Images);
    expect(b.properties?.map((p) => p.type)).toEqual([
      'olm.gvk',
      'olm.gvk.required',
      'olm.package',
      'olm.package.required',
      'olm.bundle.object',
      'olm.bundle.object',
    ]);
  });

  it('a bundle image renders like its directory with the reference as image (opm BundleImage)', async () => {
    const ref = 'test.registry/foo-operator/foo-bundle:v0.2.0';
    const src = dirImages({
      [ref]: {
        root: td('foo-bundle-v0.2.0'),
        labels: { 'operators.operatorframework.io.bundle.package.v1': 'foo' },
      },
    });
    const b = only(await render({ refs: [ref], imageSource: src }));
    expect(b.image).toBe(ref);
    expect(b.relatedImages).toEqual([
      ...fooV2Images.slice(0, 1),
      { name: '', image: ref },
      ...fooV2Images.slice(1),
    ]);
    const dir = only(await render({ refs: [td('foo-bundle-v0.2.0')], imageRefTemplate: ref }));
    expect(plain(b)).toEqual(plain(dir));
    expect(src.released).toEqual([ref]);
  });

  it('without CSV related images, the operator images are listed unnamed (opm BundleImageWithNoCSVRelatedImages)', async () => {
    const ref = 'test.registry/foo-operator/foo-bundle-no-csv-related-images:v0.2.0';
    const b = only(
      await render({ refs: [td('foo-bundle-v0.2.0-no-csv-related-images')], imageRefTemplate: ref }),
    );
    expect(b.relatedImages).toEqual([
      { name: '', image: 'test.registry/foo-operator/foo-2:v0.2.0' },
      { name: '', image: ref },
      { name: '', image: 'test.registry/foo-operator/foo-init-2:v0.2.0' },
      { name: '', image: 'test.registry/foo-operator/foo-init:v0.2.0' },
      { name: '', image: 'test.registry/foo-operator/foo:v0.2.0' },
    ]);
  });

  it('migration replaces bundle objects with olm.csv.metadata, last', async () => {
    for (const level of ['bundle-object-to-csv-metadata', 'all']) {
      const b = only(
        await render({
          refs: [td('foo-bundle-v0.1.0')],
          imageRefTemplate: 'quay.io/openshift-community-operators/foo:v0.1.0',
          migrateLevel: level,
        }),
      );
      expect(plain(b.properties)).toEqual([
        ...fooHeadProperties('0.1.0'),
        {
          type: 'olm.csv.metadata',
          value: {
            annotations: { 'olm.skipRange': '<0.1.0' },
            apiServiceDefinitions: {},
            crdDescriptions: { owned: [{ name: 'foos.test.foo', version: 'v1', kind: 'Foo' }] },
            displayName: 'Foo Operator',
            provider: {},
          },
        },
      ]);
      // Exact bytes: Go field order, compact, no HTML escaping.
      const md = b.properties?.[4]?.value;
      expect(
        md !== undefined && typeof md === 'object' && md !== null && 'text' in md ? md.text : undefined,
      ).toBe(
        '{"annotations":{"olm.skipRange":"<0.1.0"},"apiServiceDefinitions":{},"crdDescriptions":{"owned":[{"name":"foos.test.foo","version":"v1","kind":"Foo"}]},"displayName":"Foo Operator","provider":{}}',
      );
    }
  });

  it('migration level none changes nothing', async () => {
    const none = only(await render({ refs: [td('foo-bundle-v0.1.0')], migrateLevel: 'none' }));
    const unset = only(await render({ refs: [td('foo-bundle-v0.1.0')] }));
    expect(plain(none)).toEqual(plain(unset));
  });

  it('bundle directories without an image are migrated too (opm skips them)', async () => {
    const b = only(await render({ refs: [td('foo-bundle-v0.2.0')], migrateLevel: 'all' }));
    expect(b.image).toBe('');
    expect(b.properties?.map((p) => p.type)).toEqual([
      'olm.gvk',
      'olm.gvk.required',
      'olm.package',
      'olm.package.required',
      'olm.csv.metadata',
    ]);
  });

  it('bar and baz bundles: one olm.gvk per owned CRD version, no dependencies', async () => {
    const bar = only(await render({ refs: [td('bar-bundle-v1.0.0')] }));
    expect(bar.name).toBe('bar.v1.0.0');
    expect(plain(bar.properties?.filter((p) => p.type !== 'olm.bundle.object'))).toEqual([
      { type: 'olm.gvk', value: { group: 'test.bar', kind: 'Bar', version: 'v1' } },
      { type: 'olm.gvk', value: { group: 'test.bar', kind: 'Bar', version: 'v1alpha1' } },
      { type: 'olm.package', value: { packageName: 'bar', version: '1.0.0' } },
    ]);
    for (const name of [
      'baz-bundle-v1.0.0',
      'baz-bundle-v1.0.1',
      'baz-bundle-v1.1.0',
      'bar-bundle-v0.1.0',
      'bar-bundle-v0.2.0',
    ]) {
      const b = only(await render({ refs: [td(name)], migrateLevel: 'all' }));
      expect(b.properties?.at(-1)?.type).toBe('olm.csv.metadata');
      expect(b.properties?.filter((p) => p.type === 'olm.package')).toHaveLength(1);
    }
  });

  it('several refs concatenate in argument order', async () => {
    const cfg = await render({
      refs: [td('foo-bundle-v0.2.0'), td('bar-bundle-v0.1.0'), td('foo-bundle-v0.2.0')],
    });
    expect(cfg.bundles.map((b) => b.name)).toEqual(['foo.v0.2.0', 'bar.v0.1.0', 'foo.v0.2.0']);
  });
});

describe.runIf(haveCorpus())('image refs', () => {
  let tmp = '';
  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'opm-render-img-'));
    await cp(corpusPath('opm-testdata', 'foo-bundle-v0.2.0'), path.join(tmp, 'bundle'), { recursive: true });
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('an image with neither label lists the labels it has', async () => {
    const src = dirImages({ 'example.com/x:1': { root: tmp, labels: { zeta: '1', alpha: 'two' } } });
    await expect(render({ refs: ['example.com/x:1'], imageSource: src })).rejects.toThrow(
      'render reference "example.com/x:1": render "example.com/x:1": image type could not be determined, found labels: alpha=two, zeta=1',
    );
    expect(src.released).toEqual(['example.com/x:1']);
  });

  it('an image without labels says so', async () => {
    const src = dirImages({ 'example.com/x:1': { root: tmp, labels: {} } });
    await expect(render({ refs: ['example.com/x:1'], imageSource: src })).rejects.toThrow(
      'image type could not be determined: image has no labels',
    );
  });

  it('a sqlite index image without its database file says so', async () => {
    const src = dirImages({
      'example.com/idx:1': {
        root: tmp,
        labels: { 'operators.operatorframework.io.index.database.v1': '/database/index.db' },
      },
    });
    await expect(render({ refs: ['example.com/idx:1'], imageSource: src })).rejects.toThrow(
      'render "example.com/idx:1": label operators.operatorframework.io.index.database.v1="/database/index.db" names no file in the image',
    );
  });

  it('a pull failure names the image', async () => {
    const src = dirImages({});
    await expect(render({ refs: ['example.com/missing:1'], imageSource: src })).rejects.toThrow(
      'render reference "example.com/missing:1": failed to pull image "example.com/missing:1": manifest unknown: example.com/missing:1',
    );
  });

  it('without an image source an image ref is a clear error', async () => {
    await expect(render({ refs: ['example.com/x:1'] })).rejects.toThrow(
      '"example.com/x:1" is not a file or directory, and pulling images is not available',
    );
  });

  it('a missing path is reported as such, not pulled', async () => {
    await expect(render({ refs: ['./no/such/dir'] })).rejects.toThrow(
      'render reference "./no/such/dir": cannot read "./no/such/dir"',
    );
  });

  it('bundle image refused where only catalogs are allowed', async () => {
    const src = dirImages({
      'example.com/b:1': {
        root: path.join(tmp, 'bundle'),
        labels: { 'operators.operatorframework.io.bundle.package.v1': 'foo' },
      },
    });
    await expect(render({ refs: ['example.com/b:1'], imageSource: src, allow: 3 })).rejects.toThrow(
      'render reference "example.com/b:1": cannot render bundle image: not allowed',
    );
  });
});

describe.runIf(haveCorpus())('FBC directories', () => {
  const dir = (): string => corpusPath('opm-testdata', 'foo-index-v0.2.0-declcfg');

  it('render the catalog with relatedImages sorted and bundle objects last (opm DeclcfgDirectory)', async () => {
    const cfg = await render({ refs: [dir()] });
    expect(cfg.packages.map((p) => p.name)).toEqual(['foo']);
    expect(cfg.channels.map((c) => c.name)).toEqual(['beta', 'stable']);
    const v2 = cfg.bundles.find((b) => b.name === 'foo.v0.2.0');
    expect(v2?.image).toBe('test.registry/foo-operator/foo-bundle:v0.2.0');
    expect(v2?.properties?.map((p) => p.type)).toEqual([
      'olm.gvk',
      'olm.gvk.required',
      'olm.package',
      'olm.package.required',
      'olm.bundle.object',
      'olm.bundle.object',
    ]);
    expect(v2?.relatedImages?.map((r) => r.image)).toEqual([
      'test.registry/foo-operator/foo-2:v0.2.0',
      'test.registry/foo-operator/foo-bundle:v0.2.0',
      'test.registry/foo-operator/foo-init-2:v0.2.0',
      'test.registry/foo-operator/foo-init:v0.2.0',
      'test.registry/foo-operator/foo-other:v0.2.0',
      'test.registry/foo-operator/foo:v0.2.0',
    ]);
  });

  it('migrate their bundle objects to olm.csv.metadata', async () => {
    const cfg = await render({ refs: [dir()], migrateLevel: 'all' });
    for (const b of cfg.bundles) {
      expect(b.properties?.map((p) => p.type)).toEqual([
        'olm.gvk',
        'olm.gvk.required',
        'olm.package',
        'olm.package.required',
        'olm.csv.metadata',
      ]);
    }
  });

  it('a catalog image renders the FBC at its configs label', async () => {
    const ref = 'test.registry/foo-operator/foo-index-declcfg:v0.2.0';
    const src = dirImages({
      [ref]: { root: dir(), labels: { 'operators.operatorframework.io.index.configs.v1': '/foo' } },
    });
    const fromImage = await render({ refs: [ref], imageSource: src });
    const fromDir = await render({ refs: [path.join(dir(), 'foo')] });
    expect(plain(fromImage)).toEqual(plain(fromDir));
    expect(src.released).toEqual([ref]);
  });

  it('where only catalogs are allowed, a bundle directory is refused', async () => {
    await expect(
      render({ refs: [corpusPath('opm-testdata', 'foo-bundle-v0.2.0')], allow: 3 }),
    ).rejects.toThrow(/cannot render bundle directory ".*foo-bundle-v0.2.0": not allowed$/);
  });
});
