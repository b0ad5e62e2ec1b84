// needs-registry: real registry servers on 127.0.0.1 (docker-registry).
// `opm validate --with <catalog image>`: a catalog image built from a fixture, pushed to a real
// registry on 127.0.0.1, satisfies a dependency of the catalog being validated.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { startFixture, type Fixture } from './fixture.js';
import { CATALOG_LABELS, buildImage, pushImage } from './image-builder.js';
import { tempDir } from './helpers.js';

const fixture = path.resolve(import.meta.dirname, '../../testdata/validate/lint-dependency-other-catalog');

let fx: Fixture;
let tmp: ReturnType<typeof tempDir>;

beforeAll(async () => {
  tmp = tempDir('opm-validate-with-');
  fx = await startFixture();
  const img = await buildImage({
    layers: [{ dir: path.join(fixture, 'other'), prefix: 'configs' }],
    labels: CATALOG_LABELS,
  });
  await pushImage(img, { url: fx.plain.url, repo: 'deps/bar-catalog', tag: 'v1' });
});

afterAll(async () => {
  // Unassigned when beforeAll failed before reaching them.
  await (fx as Fixture | undefined)?.stop();
  (tmp as ReturnType<typeof tempDir> | undefined)?.remove();
});

describe('validate --with an image', () => {
  it('pulls the catalog image and counts its bundles as other-catalog providers', async () => {
    const ref = `${fx.plain.host}/deps/bar-catalog:v1`;
    const env = { HOME: tmp.dir, OLM_CACHE_DIR: path.join(tmp.dir, 'cache'), PATH: process.env.PATH };
    const r = await runOpm(['--use-http', 'validate', 'catalog', '--with', ref, '-o', 'json'], {
      cwd: fixture,
      env,
      // No registries.conf of the machine's.
      configRoot: tmp.dir,
    });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { findings: { rule: string; message: string }[] };
    expect(doc.findings.map((f) => f.rule)).toEqual(['dependency.other-catalog']);
    expect(doc.findings[0]?.message).toContain('is provided only by another catalog (bar/bar.v1.0.0)');
    const missing = await runOpm(
      ['--use-http', 'validate', 'catalog', '--with', `${fx.plain.host}/deps/none:v1`],
      {
        cwd: fixture,
        env,
        configRoot: tmp.dir,
      },
    );
    expect(missing.code).toBe(1);
    expect(missing.stderr.split('\n')).toHaveLength(2);
    expect(missing.stderr).toContain(`render reference "${fx.plain.host}/deps/none:v1"`);
  });
});
