// needs-corpus: builds on ../shared/corpus; without it this file is left out, loudly (vitest.config.ts).
// needs-registry: real registry servers on 127.0.0.1 (docker-registry).
// `opm render <image>` end to end: images built from the corpus, pushed to real registries on
// 127.0.0.1, rendered through the command line exactly as a user runs it.
import { mkdirSync, readdirSync, writeFileSync, copyFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusPath } from '../corpus.js';
import { runOpm } from '../run-cli.js';
import { PASSWORD, USER, startFixture, type Fixture } from './fixture.js';
import {
  BUNDLE_LABELS,
  CATALOG_LABELS,
  bearerToken,
  buildImage,
  pushImage,
  type BuiltImage,
} from './image-builder.js';
import { tempDir } from './helpers.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

let fx: Fixture;
let tmp: ReturnType<typeof tempDir>;
/** A HOME that trusts the TLS registry's CA and holds credentials for the authenticated registries. */
let home: string;
let cacheCount = 0;

/** One bundle of each community package: the newest version folder. */
const bundles = (): { pkg: string; version: string; dir: string }[] =>
  readdirSync(corpusPath('community-bundles'))
    .sort()
    .map((pkg) => {
      const versions = readdirSync(corpusPath('community-bundles', pkg))
        .filter((v) => /^\d/.test(v))
        .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
      const version = versions.at(-1) ?? '';
      return { pkg, version, dir: corpusPath('community-bundles', pkg, version) };
    });

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  cacheCount++;
  return {
    HOME: home,
    PATH: process.env.PATH,
    OLM_CACHE_DIR: path.join(tmp.dir, `cache-${cacheCount}`),
    ...extra,
  };
}

interface Setup {
  name: string;
  host: () => string;
  flags: string[];
}

const setups: Setup[] = [
  { name: 'anonymous plain HTTP', host: () => fx.plain.host, flags: ['--use-http'] },
  { name: 'htpasswd over TLS (self-signed CA in certs.d)', host: () => fx.basic.host, flags: [] },
  { name: 'bearer tokens', host: () => fx.token.host, flags: ['--use-http'] },
  { name: 'bearer tokens, blobs redirected', host: () => fx.tokenRedirect.host, flags: ['--use-http'] },
];

const images = new Map<string, BuiltImage>();

beforeAll(async () => {
  tmp = tempDir('opm-render-cli-');
  fx = await startFixture();
  home = path.join(tmp.dir, 'home');
  const certDir = path.join(home, '.config', 'containers', 'certs.d', fx.basic.host);
  mkdirSync(certDir, { recursive: true });
  copyFileSync(fx.basicCa, path.join(certDir, 'ca.crt'));
  mkdirSync(path.join(home, '.docker'), { recursive: true });
  const auth = { auth: b64(`${USER}:${PASSWORD}`) };
  writeFileSync(
    path.join(home, '.docker', 'config.json'),
    JSON.stringify({
      auths: { [fx.basic.host]: auth, [fx.token.host]: auth, [fx.tokenRedirect.host]: auth },
    }),
  );
  for (const b of bundles()) {
    const img = await buildImage({ layers: [{ dir: b.dir }], labels: BUNDLE_LABELS(b.pkg) });
    images.set(b.pkg, img);
    const repo = `community/${b.pkg}`;
    await pushImage(img, { url: fx.plain.url, repo, tag: b.version });
    await pushImage(img, {
      url: fx.basic.url,
      repo,
      tag: b.version,
      authorization: `Basic ${b64(`${USER}:${PASSWORD}`)}`,
      ca: fx.basicCa,
    });
    // The redirecting registry shares the token registry's storage.
    await pushImage(img, {
      url: fx.token.url,
      repo,
      tag: b.version,
      authorization: await bearerToken(fx.tokenRealm, repo, USER, PASSWORD),
    });
  }
});

afterAll(async () => {
  // Unassigned when beforeAll failed before reaching them.
  await (fx as Fixture | undefined)?.stop();
  (tmp as ReturnType<typeof tempDir> | undefined)?.remove();
});

describe.each(setups)('render of bundle images: $name', (setup) => {
  it.each(bundles())('$pkg $version renders like its bundle directory, byte for byte', async (b) => {
    const ref = `${setup.host()}/community/${b.pkg}:${b.version}`;
    const fromImage = await runOpm([...setup.flags, 'render', ref, '-o', 'yaml'], { env: env() });
    expect(fromImage.stderr).toBe('');
    expect(fromImage.code).toBe(0);
    const fromDir = await runOpm(['render', b.dir, '--alpha-image-ref-template', ref, '-o', 'yaml'], {
      env: env(),
    });
    expect(fromDir.code).toBe(0);
    expect(fromImage.stdout).toBe(fromDir.stdout);
    expect(fromImage.stdout).toContain(`image: ${ref}\n`);
  });
});

describe('render of a catalog image', () => {
  it('a catalog image built from community-catalog-v4.21 renders as the directory does', async () => {
    const dir = corpusPath('community-catalog-v4.21');
    const img = await buildImage({ layers: [{ dir, prefix: 'configs' }], labels: CATALOG_LABELS });
    await pushImage(img, { url: fx.plain.url, repo: 'community/catalog', tag: 'v4.21' });
    const ref = `${fx.plain.host}/community/catalog:v4.21`;
    for (const format of ['json', 'yaml']) {
      const fromImage = await runOpm(['--use-http', 'render', ref, '-o', format], { env: env() });
      expect(fromImage.stderr).toBe('');
      expect(fromImage.code).toBe(0);
      const fromDir = await runOpm(['render', dir, '-o', format], { env: env() });
      expect(fromImage.stdout).toBe(fromDir.stdout);
    }
  });
});

describe('bad pulls: one line on stderr, exit 1, nothing on stdout, no secret', () => {
  const pkg = 'kube-green';
  const version = (): string => bundles().find((b) => b.pkg === pkg)?.version ?? '';

  async function fails(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<string> {
    const r = await runOpm(args, { env: env(extraEnv) });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const lines = r.stderr.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1);
    expect(r.stderr).not.toContain(PASSWORD);
    expect(r.stderr).not.toContain(b64(`${USER}:${PASSWORD}`));
    return lines[0] ?? '';
  }

  it('wrong password', async () => {
    const badHome = path.join(tmp.dir, 'home-bad-password');
    mkdirSync(path.join(badHome, '.docker'), { recursive: true });
    const certDir = path.join(badHome, '.config', 'containers', 'certs.d', fx.basic.host);
    mkdirSync(certDir, { recursive: true });
    copyFileSync(fx.basicCa, path.join(certDir, 'ca.crt'));
    writeFileSync(
      path.join(badHome, '.docker', 'config.json'),
      JSON.stringify({ auths: { [fx.basic.host]: { auth: b64(`${USER}:not-${PASSWORD}`) } } }),
    );
    const line = await fails(['render', `${fx.basic.host}/community/${pkg}:${version()}`], { HOME: badHome });
    expect(line).toMatch(/^error: .*(unauthorized|authentication|credentials)/i);
    expect(line).not.toContain(`not-${PASSWORD}`);
  });

  it('unknown repository', async () => {
    const line = await fails(['--use-http', 'render', `${fx.plain.host}/community/no-such-operator:1.0.0`]);
    expect(line).toContain('no-such-operator');
  });

  it('missing tag', async () => {
    const line = await fails(['--use-http', 'render', `${fx.plain.host}/community/${pkg}:9.9.9`]);
    expect(line).toContain('9.9.9');
  });

  it('untrusted certificate', async () => {
    const line = await fails(['render', `${fx.basic.host}/community/${pkg}:${version()}`], {
      HOME: path.join(tmp.dir, 'home-without-ca'),
    });
    expect(line).toMatch(/certificate/i);
  });

  it('corrupted blob', async () => {
    fx.proxy.reset();
    fx.proxy.faults.push({ kind: 'corrupt', on: 'blob', times: 100 });
    const line = await fails(['--use-http', 'render', `${fx.proxy.host}/community/${pkg}:${version()}`]);
    expect(line).toMatch(/digest/i);
    fx.proxy.reset();
  });

  it('layer with ../ paths', async () => {
    const img = await buildImage({
      layers: [{ entries: [{ name: '../escape.yaml', type: 'file', content: 'x: 1\n' }] }],
      labels: BUNDLE_LABELS('evil'),
    });
    await pushImage(img, { url: fx.plain.url, repo: 'community/evil', tag: '1.0.0' });
    const line = await fails(['--use-http', 'render', `${fx.plain.host}/community/evil:1.0.0`]);
    expect(line).toContain('..');
  });
});

describe('credentials', () => {
  it('a broken auth entry is skipped with a warning on stderr, and the pull goes on', async () => {
    const b = bundles().find((x) => x.pkg === 'kube-green');
    if (b === undefined) throw new Error('kube-green bundle missing from the corpus');
    const brokenHome = path.join(tmp.dir, 'home-broken-entry');
    const certDir = path.join(brokenHome, '.config', 'containers', 'certs.d', fx.basic.host);
    mkdirSync(certDir, { recursive: true });
    copyFileSync(fx.basicCa, path.join(certDir, 'ca.crt'));
    mkdirSync(path.join(brokenHome, '.docker'), { recursive: true });
    // The entry scoped to the repository matches best but is broken; the registry-wide one works.
    writeFileSync(
      path.join(brokenHome, '.docker', 'config.json'),
      JSON.stringify({
        auths: {
          [`${fx.basic.host}/community/kube-green`]: { auth: '%%% not base64 %%%' },
          [fx.basic.host]: { auth: b64(`${USER}:${PASSWORD}`) },
        },
      }),
    );
    const r = await runOpm(['render', `${fx.basic.host}/community/kube-green:${b.version}`], {
      env: env({ HOME: brokenHome }),
    });
    expect(r.stderr).toMatch(/^warning: ignoring credentials in .*config\.json/m);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('"schema": "olm.bundle"');
  });
});

describe('the blob cache', () => {
  it('a second render makes no blob request, and by digest works with the registry stopped', async () => {
    const b = bundles().find((x) => x.pkg === 'kube-green');
    const img = images.get('kube-green');
    if (b === undefined || img === undefined) throw new Error('kube-green bundle missing from the corpus');
    const cache = { OLM_CACHE_DIR: path.join(tmp.dir, 'shared-cache') };
    const tagRef = `${fx.proxy.host}/community/kube-green:${b.version}`;
    const digestRef = `${fx.proxy.host}/community/kube-green@${img.top.digest}`;

    fx.proxy.reset();
    const first = await runOpm(['--use-http', 'render', tagRef], { env: env(cache) });
    expect(first.code).toBe(0);
    expect(fx.proxy.counts.blob).toBeGreaterThan(0);

    fx.proxy.reset();
    const second = await runOpm(['--use-http', 'render', tagRef], { env: env(cache) });
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(fx.proxy.counts.blob).toBe(0);

    await fx.plain.stop();
    fx.proxy.reset();
    const offline = await runOpm(['--use-http', 'render', digestRef, '-o', 'yaml'], { env: env(cache) });
    expect(offline.stderr).toBe('');
    expect(offline.code).toBe(0);
    expect(offline.stdout).toContain(`image: ${digestRef}\n`);
    expect(fx.proxy.counts).toEqual({ blob: 0, manifest: 0, other: 0 });
  });
});
