// needs-corpus: builds on ../shared/corpus; without it this file is left out, loudly (vitest.config.ts).
// needs-registry: real registry servers on 127.0.0.1 (docker-registry), read back with skopeo.
/**
 * Bundle images without an engine: the labels of annotations.yaml, `manifests/` and `metadata/` one
 * layer each as bundle.Dockerfile copies them, the same digest on every build, and `opm render` of
 * the pushed image saying what `opm render` of the folder says.
 */
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildBundleImage } from '../../src/image/bundle-image.js';
import { writeOciLayout } from '../../src/image/layout.js';
import { RegistryPusher } from '../../src/oci/push/pusher.js';
import { runOpm } from '../run-cli.js';
import { startFixture, type Fixture } from '../registry/fixture.js';
import { bundleDir, tempDir } from '../registry/helpers.js';
import { requireTools } from '../registry/tools.js';

const execFileAsync = promisify(execFile);
let fx: Fixture;
let tmp: ReturnType<typeof tempDir>;

beforeAll(async () => {
  requireTools('skopeo');
  tmp = tempDir('opm-bundle-image-');
  fx = await startFixture();
});

afterAll(async () => {
  await fx.stop();
  tmp.remove();
});

describe('buildBundleImage', () => {
  it('builds what bundle.Dockerfile builds, the same each time; opm renders it as the folder', async () => {
    const dir = bundleDir('kube-green', '0.7.1');
    const work = (n: string): string => {
      const d = path.join(tmp.dir, n);
      mkdirSync(d);
      return d;
    };
    const image = await buildBundleImage({ bundleDir: dir, workDir: work('a') });
    const again = await buildBundleImage({ bundleDir: dir, workDir: work('b') });
    expect(again.top.digest).toBe(image.top.digest);

    const layout = path.join(tmp.dir, 'layout');
    await writeOciLayout(layout, image, 'v1');
    const { stdout } = await execFileAsync('skopeo', ['inspect', `oci:${layout}:v1`]);
    const inspected = JSON.parse(stdout) as {
      Labels: Record<string, string>;
      Layers: string[];
      Architecture: string;
    };
    expect(inspected.Architecture).toBe('amd64');
    // manifests/, metadata/ and tests/scorecard/ (this bundle has one).
    expect(inspected.Layers).toHaveLength(3);
    expect(inspected.Labels).toMatchObject({
      'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
      'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
      'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
      'operators.operatorframework.io.bundle.package.v1': 'kube-green',
    });

    const ref = `${fx.plain.host}/bundles/kube-green:v0.7.1`;
    const pusher = new RegistryPusher({
      skipTlsVerify: false,
      useHttp: true,
      env: { HOME: tmp.dir },
      certDirs: [],
      configRoot: tmp.dir,
    });
    try {
      expect((await pusher.push(ref, image.plan)).digest).toBe(image.top.digest);
    } finally {
      await pusher.close();
    }
    const env = { HOME: tmp.dir, OLM_CACHE_DIR: path.join(tmp.dir, 'cache') };
    const fromImage = await runOpm(['--use-http', 'render', ref, '-o', 'yaml'], { env, configRoot: tmp.dir });
    const fromDir = await runOpm(['render', dir, '-o', 'yaml'], { env, configRoot: tmp.dir });
    expect(fromImage.code).toBe(0);
    expect(fromDir.code).toBe(0);
    // The image names itself where the folder names nothing, and lists itself among the related
    // images; the bundle is otherwise the same.
    const ofImage = parse(fromImage.stdout.replace(/^---\n/, '')) as Record<string, unknown>;
    const ofDir = parse(fromDir.stdout.replace(/^---\n/, '')) as Record<string, unknown>;
    expect(ofImage.image).toBe(ref);
    ofImage.image = ofDir.image;
    ofImage.relatedImages = (ofImage.relatedImages as Array<{ image: string }>).filter(
      (r) => r.image !== ref,
    );
    expect(ofImage).toEqual(ofDir);
  });
});
