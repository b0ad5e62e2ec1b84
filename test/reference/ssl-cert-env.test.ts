// SSL_CERT_FILE and SSL_CERT_DIR as the reference opm (Go's crypto/x509) reads them: a TLS registry
// on 127.0.0.1 whose CA only one of them names, rendered by both tools with the same environment.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { reference } from './reference-opm.js';
import { PASSWORD, USER, selfSignedCertificate, startFixture, type Fixture } from '../registry/fixture.js';
import { CATALOG_LABELS, buildImage, pushImage } from '../registry/image-builder.js';

let fx: Fixture;
let tmp: string;
let ref: string;
let otherCa: string;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'opm-ssl-env-ref-'));
  fx = await startFixture();
  const img = await buildImage({
    layers: [{ dir: path.resolve('testdata/examples/catalog'), prefix: 'configs' }],
    labels: CATALOG_LABELS,
  });
  const basic = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
  await pushImage(img, {
    url: fx.basic.url,
    repo: 'examples/catalog',
    tag: 'v1',
    authorization: `Basic ${basic}`,
    ca: fx.basicCa,
  });
  ref = `${fx.basic.host}/examples/catalog:v1`;
  mkdirSync(path.join(tmp, '.docker'));
  writeFileSync(
    path.join(tmp, '.docker', 'config.json'),
    JSON.stringify({ auths: { [fx.basic.host]: { auth: basic } } }),
  );
  otherCa = path.join(tmp, 'other-ca.crt');
  selfSignedCertificate('/CN=unrelated test CA', path.join(tmp, 'other-ca.key'), otherCa);
  mkdirSync(path.join(tmp, 'ca-dir'));
  copyFileSync(fx.basicCa, path.join(tmp, 'ca-dir', 'registry.pem'));
  mkdirSync(path.join(tmp, 'other-dir'));
  copyFileSync(otherCa, path.join(tmp, 'other-dir', 'other.pem'));
});

afterAll(async () => {
  await (fx as Fixture | undefined)?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

describe('SSL_CERT_FILE and SSL_CERT_DIR, as the reference opm reads them', () => {
  const cases: Array<[string, () => Record<string, string>, boolean]> = [
    ['SSL_CERT_FILE names the CA', () => ({ SSL_CERT_FILE: fx.basicCa }), true],
    [
      'SSL_CERT_DIR lists a folder with the CA',
      () => ({ SSL_CERT_DIR: `${path.join(tmp, 'other-dir')}:${path.join(tmp, 'ca-dir')}` }),
      true,
    ],
    [
      'both name another CA',
      () => ({ SSL_CERT_FILE: otherCa, SSL_CERT_DIR: path.join(tmp, 'other-dir') }),
      false,
    ],
    ['neither is set', () => ({}), false],
  ];
  it.each(cases)('%s', async (_name, vars, trusted) => {
    const env = { PATH: process.env.PATH ?? '', HOME: tmp, ...vars() };
    const args = ['render', ref, '-o', 'yaml'];
    const b = spawnSync(reference, args, {
      cwd: tmp,
      encoding: 'utf8',
      env: { ...env, OLM_CACHE_DIR: path.join(tmp, 'ref-cache') },
    });
    const a = await runOpm(args, {
      cwd: tmp,
      env: { ...env, OLM_CACHE_DIR: path.join(tmp, 'ts-cache') },
      configRoot: tmp,
    });
    expect(b.status === 0, b.stderr).toBe(trusted);
    expect(a.code === 0, a.stderr).toBe(trusted);
    if (trusted) expect(a.stdout).toBe(b.stdout);
    else expect(a.stderr).toContain('SSL_CERT_FILE, SSL_CERT_DIR');
  });
});
