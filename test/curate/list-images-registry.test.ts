// needs-corpus: builds on ../shared/corpus; without it this file is left out, loudly (vitest.config.ts).
// needs-registry: real registry servers on 127.0.0.1 (docker-registry).
// `list images` on a catalog image built from a corpus catalog and pushed to a real registry on
// 127.0.0.1 lists the same images as on the catalog's directory.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusPath } from '../corpus.js';
import { startFixture, type Fixture } from '../registry/fixture.js';
import { tempDir } from '../registry/helpers.js';
import { CATALOG_LABELS, buildImage, pushImage } from '../registry/image-builder.js';
import { runOpm } from '../run-cli.js';

let fx: Fixture;
let tmp: ReturnType<typeof tempDir>;
const dir = corpusPath('community-catalog-v4.21');
let ref = '';

beforeAll(async () => {
  tmp = tempDir('opm-list-images-');
  fx = await startFixture();
  const img = await buildImage({ layers: [{ dir, prefix: 'configs' }], labels: CATALOG_LABELS });
  await pushImage(img, { url: fx.plain.url, repo: 'community/catalog', tag: 'v4.21' });
  ref = `${fx.plain.host}/community/catalog:v4.21`;
});

afterAll(async () => {
  // Unassigned when beforeAll failed before reaching them.
  await (fx as Fixture | undefined)?.stop();
  (tmp as ReturnType<typeof tempDir> | undefined)?.remove();
});

const env = (): NodeJS.ProcessEnv => ({
  HOME: path.join(tmp.dir, 'home'),
  PATH: process.env.PATH,
  OLM_CACHE_DIR: path.join(tmp.dir, 'cache'),
});

describe('list images of a catalog image', () => {
  it.each([
    { name: 'text', args: [] },
    { name: 'json', args: ['-o', 'json'] },
    { name: 'one package, mapped', args: ['--package', 'kube-green', '--mapping', 'mirror.example.com/olm'] },
  ])('$name: the same as on its directory', async ({ args }) => {
    const fromImage = await runOpm(['--use-http', 'list', 'images', ref, ...args], { env: env() });
    expect(fromImage.stderr).toBe('');
    expect(fromImage.code).toBe(0);
    const fromDir = await runOpm(['list', 'images', dir, ...args], { env: env() });
    expect(fromImage.stdout).toBe(fromDir.stdout);
    expect(fromImage.stdout.split('\n').length).toBeGreaterThan(5);
  });
});
