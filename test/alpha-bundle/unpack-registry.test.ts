// needs-registry: real registry servers on 127.0.0.1 (docker-registry), one over TLS with a self-signed CA
// `opm alpha bundle unpack` from real registries: plain HTTP (--use-http, and the deprecated -s with
// opm's deprecation line) and TLS with credentials, trusting the registry's CA through --root-ca.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { PASSWORD, USER, startFixture, type Fixture } from '../registry/fixture.js';
import { buildImage, pushImage } from '../registry/image-builder.js';
import { readTree } from './tree.js';

const ANNOTATIONS = [
  'annotations:',
  '  operators.operatorframework.io.bundle.mediatype.v1: plain',
  '  operators.operatorframework.io.bundle.manifests.v1: manifests/',
  '  operators.operatorframework.io.bundle.metadata.v1: metadata/',
  '  operators.operatorframework.io.bundle.package.v1: p',
  '  operators.operatorframework.io.bundle.channels.v1: stable',
  '',
].join('\n');

let fx: Fixture;
let tmp: string;
let env: Record<string, string>;
beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'opm-bundle-unpack-registry-'));
  fx = await startFixture();
  const image = await buildImage({
    layers: [
      {
        entries: [
          { name: 'manifests/cm.yaml', content: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n' },
          { name: 'metadata/annotations.yaml', content: ANNOTATIONS },
        ],
      },
    ],
    labels: {},
  });
  await pushImage(image, { url: fx.plain.url, repo: 'bundles/p', tag: 'v1' });
  const authorization = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
  await pushImage(image, { url: fx.basic.url, repo: 'bundles/p', tag: 'v1', authorization, ca: fx.basicCa });
  const auth = path.join(tmp, 'auth.json');
  writeFileSync(
    auth,
    JSON.stringify({
      auths: { [fx.basic.host]: { auth: Buffer.from(`${USER}:${PASSWORD}`).toString('base64') } },
    }),
  );
  env = { HOME: tmp, OLM_CACHE_DIR: path.join(tmp, 'cache'), REGISTRY_AUTH_FILE: auth };
});
afterAll(async () => {
  await fx.stop();
  rmSync(tmp, { recursive: true, force: true });
});

let n = 0;
async function unpack(args: string[]): Promise<{ code: number; stderr: string; out: string }> {
  const cwd = path.join(tmp, `run${++n}`);
  mkdirSync(cwd);
  const r = await runOpm(['alpha', 'bundle', 'unpack', ...args, '-o', 'out', '--no-cache'], {
    cwd,
    env,
    configRoot: tmp,
  });
  return { code: r.code, stderr: r.stderr, out: path.join(cwd, 'out') };
}

describe('alpha bundle unpack from registries', () => {
  it('--use-http: silent, the bundle written', async () => {
    const r = await unpack([`${fx.plain.host}/bundles/p:v1`, '--use-http']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(readTree(r.out).map((e) => e.path)).toEqual([
      'manifests/',
      'manifests/cm.yaml',
      'metadata/',
      'metadata/annotations.yaml',
    ]);
    expect(readFileSync(path.join(r.out, 'metadata/annotations.yaml'), 'utf8')).toBe(ANNOTATIONS);
  });

  it("-s still works, with opm's deprecation line", async () => {
    const r = await unpack([`${fx.plain.host}/bundles/p:v1`, '-s']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      'Flag --skip-tls has been deprecated, use --use-http and --skip-tls-verify instead\n',
    );
  });

  it("TLS: the registry's CA is not trusted without --root-ca, and is with it", async () => {
    const ref = `${fx.basic.host}/bundles/p:v1`;
    const untrusted = await unpack([ref]);
    expect(untrusted.code).toBe(1);
    expect(untrusted.stderr).toMatch(/certificate/);
    const trusted = await unpack([ref, '--root-ca', fx.basicCa]);
    expect(trusted.stderr).toBe('');
    expect(trusted.code).toBe(0);
    expect(readFileSync(path.join(trusted.out, 'manifests/cm.yaml'), 'utf8')).toContain('kind: ConfigMap');
  });

  it("a --root-ca file that is missing or holds no certificate, in opm's words", async () => {
    const ref = `${fx.basic.host}/bundles/p:v1`;
    const missing = await unpack([ref, '-c', path.join(tmp, 'nope.crt')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`error: open ${path.join(tmp, 'nope.crt')}: no such file or directory\n`);
    const junk = path.join(tmp, 'junk.crt');
    writeFileSync(junk, 'not a certificate\n');
    const bad = await unpack([ref, '-c', junk]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(`error: failed to fetch root CA from ${junk}\n`);
  });
});
