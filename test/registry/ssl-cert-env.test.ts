// needs-registry: real registry servers on 127.0.0.1 (docker-registry).
/**
 * Private CAs as Go trusts them (and so the reference opm): SSL_CERT_FILE in place of the system's
 * bundle file, SSL_CERT_DIR (a `:` list) in place of its folders, every file of those folders read;
 * a certificate still refused names every way to trust it; `--use-http` against a registry that
 * speaks HTTPS says so.
 */
import { copyFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, USER, selfSignedCertificate, startFixture, type Fixture } from './fixture.js';
import { BUNDLE_LABELS, buildImage, pushImage } from './image-builder.js';
import { cliLine, pullError, tempDir, testClient, testdata } from './helpers.js';
import { requireTools } from './tools.js';

let fx: Fixture;
let tmp: ReturnType<typeof tempDir>;
let ref: string;
let digest: string;
let authFile: string;
/** A CA that signed nothing the fixture serves. */
let otherCa: string;

beforeAll(async () => {
  requireTools('docker-registry', 'openssl');
  tmp = tempDir('opm-ssl-cert-env-');
  fx = await startFixture();
  const img = await buildImage({
    layers: [{ dir: testdata('baz-bundle-v1.0.1') }],
    labels: BUNDLE_LABELS('baz'),
  });
  const authorization = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
  await pushImage(img, { url: fx.basic.url, repo: 'ns/baz', tag: 'v1', authorization, ca: fx.basicCa });
  ref = `${fx.basic.host}/ns/baz:v1`;
  digest = img.top.digest;
  authFile = path.join(tmp.dir, 'auth.json');
  writeFileSync(
    authFile,
    JSON.stringify({
      auths: { [fx.basic.host]: { auth: Buffer.from(`${USER}:${PASSWORD}`).toString('base64') } },
    }),
  );
  otherCa = path.join(tmp.dir, 'other-ca.crt');
  selfSignedCertificate('/CN=unrelated test CA', path.join(tmp.dir, 'other-ca.key'), otherCa);
});

afterAll(async () => {
  // Unassigned when beforeAll failed before reaching them.
  await (fx as Fixture | undefined)?.stop();
  (tmp as ReturnType<typeof tempDir> | undefined)?.remove();
});

/** Pull `ref` with these variables; the digest pulled, or the error's CLI line. */
async function pullWith(
  env: NodeJS.ProcessEnv,
  useHttp = false,
): Promise<{ digest?: string; line?: string; warnings: string[] }> {
  const warnings: string[] = [];
  const { client } = testClient(tmp.dir, {
    useHttp,
    env: { REGISTRY_AUTH_FILE: authFile, ...env },
    warn: (l) => warnings.push(l),
  });
  try {
    const pulled = await client.pull(ref);
    await pulled.release();
    return { digest: pulled.digest, warnings };
  } catch (err) {
    return { line: cliLine(await pullError(Promise.reject(err))), warnings };
  } finally {
    await client.close();
  }
}

/** A folder holding `files` (name → source file), and links as a hashed folder has. */
function folder(name: string, files: Record<string, string>, links: Record<string, string> = {}): string {
  const dir = path.join(tmp.dir, name);
  mkdirSync(dir, { recursive: true });
  for (const [n, from] of Object.entries(files)) copyFileSync(from, path.join(dir, n));
  for (const [n, to] of Object.entries(links)) symlinkSync(to, path.join(dir, n));
  return dir;
}

describe('SSL_CERT_FILE and SSL_CERT_DIR', () => {
  it('trusts the CA SSL_CERT_FILE names', async () => {
    expect(await pullWith({ SSL_CERT_FILE: fx.basicCa })).toEqual({ digest, warnings: [] });
  });

  it('trusts a CA in any file of any folder of SSL_CERT_DIR, its hash links read once', async () => {
    const empty = folder('empty-dir', {});
    const cas = folder(
      'ca-dir',
      { 'registry.pem': fx.basicCa, 'other.crt': otherCa },
      { 'abcd1234.0': 'registry.pem' },
    );
    const missing = path.join(tmp.dir, 'no-such-dir');
    const r = await pullWith({ SSL_CERT_DIR: `${empty}:${missing}:${cas}` });
    expect(r.digest).toBe(digest);
    expect(r.warnings).toEqual([`warning: ignoring ${missing} of SSL_CERT_DIR: no such file or directory`]);
  });

  it('trusts neither when they name other CAs, and names every way to trust it', async () => {
    const r = await pullWith({
      SSL_CERT_FILE: otherCa,
      SSL_CERT_DIR: folder('other-dir', { 'x.crt': otherCa }),
    });
    expect(r.digest).toBeUndefined();
    const line = r.line ?? '';
    expect(line).not.toContain('\n');
    expect(line).toContain(`${fx.basic.host}: the registry certificate`);
    for (const way of [
      `/etc/containers/certs.d/${fx.basic.host}/ca.crt`,
      `/etc/docker/certs.d/${fx.basic.host}/`,
      `~/.config/containers/certs.d/${fx.basic.host}/`,
      'SSL_CERT_FILE',
      'SSL_CERT_DIR',
      'NODE_EXTRA_CA_CERTS',
      '--skip-tls-verify',
      'insecure = true',
    ])
      expect(line).toContain(way);
    // A certificate refused is not a reason to speak plain HTTP to it.
    expect(line).not.toContain('--use-http');
  });

  it('warns of an SSL_CERT_FILE that cannot be read, and trusts what else there is', async () => {
    const missing = path.join(tmp.dir, 'no-such.crt');
    const r = await pullWith({
      SSL_CERT_FILE: missing,
      SSL_CERT_DIR: folder('ca-only', { 'ca.pem': fx.basicCa }),
    });
    expect(r).toEqual({
      digest,
      warnings: [`warning: ignoring SSL_CERT_FILE ${missing}: no such file or directory`],
    });
  });
});

describe('--use-http against a registry that speaks HTTPS', () => {
  it('says the registry speaks HTTPS and to leave out --use-http', async () => {
    const r = await pullWith({}, true);
    expect(r.line).toContain(
      `${fx.basic.host}: the registry speaks HTTPS, not plain HTTP (HTTP 400) ` +
        '(leave out --use-http; add --skip-tls-verify only if its certificate cannot be trusted)',
    );
    expect(r.line).not.toContain('\n');
  });
});
