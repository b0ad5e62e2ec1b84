// needs-registry: real registry servers on 127.0.0.1 (docker-registry).
/**
 * `validate --crd-upgrade-safety --crd-from-images` on a catalog whose bundles carry no manifests
 * (olm.csv.metadata only): the bundles' images, built by our bundle image code from our own bundle
 * directories and pushed to a real registry on 127.0.0.1, are pulled as render pulls them, and the
 * findings are those the same directories give through --bundle-dirs. An image that cannot be
 * pulled is a crd.bundle-unreadable finding; without the flag nothing is pulled.
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBundleImage } from '../../src/image/bundle-image.js';
import { RegistryPusher } from '../../src/oci/push/pusher.js';
import { runOpm } from '../run-cli.js';
import { startFixture, type Fixture } from '../registry/fixture.js';
import { tempDir } from '../registry/helpers.js';
import { projectRoot } from '../corpus.js';

const fixture = path.join(projectRoot(), 'testdata/validate/lint-crd-existing-field-removal');
let fx: Fixture;
let tmp: ReturnType<typeof tempDir>;

/** The fixture's catalog with its bundle images moved to `host` (and `tags` renamed). */
function catalogAt(name: string, host: string, tags: Record<string, string> = {}): string {
  const dir = path.join(tmp.dir, name);
  mkdirSync(dir, { recursive: true });
  let text = readFileSync(path.join(fixture, 'catalog/index.json'), 'utf8');
  text = text.replaceAll('example.com/widgets-bundle:', `${host}/widgets-bundle:`);
  for (const [from, to] of Object.entries(tags))
    text = text.replaceAll(`widgets-bundle:${from}"`, `widgets-bundle:${to}"`);
  writeFileSync(path.join(dir, 'index.json'), text);
  return dir;
}

const env = (): NodeJS.ProcessEnv => ({
  HOME: path.join(tmp.dir, 'home'),
  PATH: process.env.PATH,
  OLM_CACHE_DIR: path.join(tmp.dir, 'cache'),
});

interface Doc {
  passed: boolean;
  findings: Array<{ rule: string; message: string; bundle?: string; line?: number }>;
}

beforeAll(async () => {
  tmp = tempDir('opm-crd-images-');
  fx = await startFixture();
  const pusher = new RegistryPusher({
    skipTlsVerify: false,
    useHttp: true,
    env: { HOME: tmp.dir },
    certDirs: [],
    configRoot: tmp.dir,
  });
  try {
    for (const version of readdirSync(path.join(fixture, 'bundles')).sort()) {
      const work = path.join(tmp.dir, `build-${version}`);
      mkdirSync(work);
      const image = await buildBundleImage({
        bundleDir: path.join(fixture, 'bundles', version),
        workDir: work,
      });
      await pusher.push(`${fx.plain.host}/widgets-bundle:v${version}`, image.plan);
    }
  } finally {
    await pusher.close();
  }
});

afterAll(async () => {
  await (fx as Fixture | undefined)?.stop();
  (tmp as ReturnType<typeof tempDir> | undefined)?.remove();
});

describe('validate --crd-from-images', () => {
  it('finds in the pulled bundle images what --bundle-dirs finds in their directories', async () => {
    const dir = catalogAt('catalog', fx.plain.host);
    const args = ['validate', dir, '--crd-upgrade-safety', '-o', 'json'];
    const pulled = await runOpm(['--use-http', ...args, '--crd-from-images'], { env: env() });
    expect(pulled.code).toBe(1);
    const map = path.join(tmp.dir, 'bundle-dirs.yaml');
    writeFileSync(
      map,
      ['1.0.0', '1.1.0']
        .map((v) => `${fx.plain.host}/widgets-bundle:v${v}: ${path.join(fixture, 'bundles', v)}\n`)
        .join(''),
    );
    const fromDirs = await runOpm([...args, '--bundle-dirs', map], { env: env() });
    const a = JSON.parse(pulled.stdout) as Doc;
    const b = JSON.parse(fromDirs.stdout) as Doc;
    expect(a.findings.map((f) => f.rule)).toEqual(['crd.existing-field-removal', 'crd.type']);
    expect(a.findings).toEqual(b.findings);
    // Pulled once: the second run reads the images from render's cache, with the same verdict.
    const again = await runOpm(['--use-http', ...args, '--crd-from-images'], { env: env() });
    expect(again.stdout).toBe(pulled.stdout);
    expect(readdirSync(path.join(tmp.dir, 'cache')).length).toBeGreaterThan(0);
  });

  it('nothing is pulled without the flag: bundles without manifests are not compared', async () => {
    const dir = catalogAt('catalog', fx.plain.host);
    const r = await runOpm(['validate', dir, '--crd-upgrade-safety', '-o', 'json'], { env: env() });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as Doc).findings).toEqual([]);
  });

  it('an image that cannot be pulled is a crd.bundle-unreadable finding, and its edge is not checked', async () => {
    const dir = catalogAt('missing', fx.plain.host, { 'v1.1.0': 'v9.9.9' });
    const r = await runOpm(['--use-http', 'validate', dir, '--crd-upgrade-safety', '--crd-from-images'], {
      env: env(),
    });
    expect(r.code).toBe(1);
    const lines = r.stderr.split('\n').filter((l) => l.includes('[crd.'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      `error: bundle image ${fx.plain.host}/widgets-bundle:v9.9.9 of widgets.v1.1.0: `,
    );
    expect(lines[0]).toContain('[crd.bundle-unreadable]');
  });

  it('asks for the CRD rules it serves', async () => {
    const dir = catalogAt('catalog', fx.plain.host);
    const r = await runOpm(['validate', dir, '--crd-from-images'], { env: env() });
    expect(r.code).not.toBe(0);
    expect(r.code).not.toBe(1);
    expect(r.stderr).toContain('--crd-from-images reads CRDs for the CRD upgrade rules, which are off');
    expect(r.stderr).toContain('--crd-upgrade-safety');
  });
});
