// needs-corpus: builds on ../shared/corpus; without it this file is left out, loudly (vitest.config.ts).
// needs-registry: real registry servers on 127.0.0.1 (docker-registry).
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, USER, startFixture, type Fixture } from './fixture.js';
import { BUNDLE_LABELS, bearerToken, buildImage, pushImage, type BuiltImage } from './image-builder.js';
import { cliLine, leftovers, pullError, tempDir, testClient, testdata } from './helpers.js';

let fx: Fixture;
let tmp: ReturnType<typeof tempDir>;
let img: BuiltImage;

const b64 = (s: string): string => Buffer.from(s).toString('base64');

/** An auth file in a fresh folder; returns its path. */
function authFile(name: string, doc: unknown): string {
  const dir = path.join(tmp.dir, name);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

/** A CA folder laid out like /etc/containers/certs.d for the TLS registry. */
function certDir(): string {
  const root = path.join(tmp.dir, 'certs.d');
  mkdirSync(path.join(root, fx.basic.host), { recursive: true });
  writeFileSync(path.join(root, fx.basic.host, 'ca.crt'), readCa());
  return root;
}

let caText = '';
function readCa(): string {
  return caText;
}

/** No secret may show in what the user sees. */
function expectNoSecret(text: string): void {
  expect(text).not.toContain(PASSWORD);
  expect(text).not.toContain(b64(`${USER}:${PASSWORD}`));
  expect(text).not.toContain('wrong-password');
}

beforeAll(async () => {
  tmp = tempDir('opm-auth-test-');
  fx = await startFixture();
  const { readFileSync } = await import('node:fs');
  caText = readFileSync(fx.basicCa, 'utf8');
  img = await buildImage({ layers: [{ dir: testdata('foo-bundle-v0.2.0') }], labels: BUNDLE_LABELS('foo') });
  const basicAuth = `Basic ${b64(`${USER}:${PASSWORD}`)}`;
  await pushImage(img, {
    url: fx.basic.url,
    repo: 'ns/foo',
    tag: 'v0.2.0',
    authorization: basicAuth,
    ca: fx.basicCa,
  });
  for (const repo of ['ns/foo', 'private/foo']) {
    await pushImage(img, {
      url: fx.token.url,
      repo,
      tag: 'v0.2.0',
      authorization: await bearerToken(fx.tokenRealm, repo, USER, PASSWORD),
    });
  }
});

afterAll(async () => {
  // Unassigned when beforeAll failed before reaching them.
  await (fx as Fixture | undefined)?.stop();
  (tmp as ReturnType<typeof tempDir> | undefined)?.remove();
});

describe('htpasswd registry over TLS with a self-signed certificate', () => {
  it('pulls with credentials from REGISTRY_AUTH_FILE and the CA from certs.d', async () => {
    const file = authFile('basic-ok', { auths: { [fx.basic.host]: { auth: b64(`${USER}:${PASSWORD}`) } } });
    const { client, logs } = testClient(tmp.dir, {
      certDirs: [certDir()],
      env: { REGISTRY_AUTH_FILE: file },
    });
    const pulled = await client.pull(`${fx.basic.host}/ns/foo:v0.2.0`);
    expect(pulled.digest).toBe(img.top.digest);
    await pulled.release();
    await client.close();
    expectNoSecret(logs.join('\n'));
  });

  it('refuses an untrusted certificate with a clear one-line error', async () => {
    const file = authFile('basic-untrusted', {
      auths: { [fx.basic.host]: { auth: b64(`${USER}:${PASSWORD}`) } },
    });
    const { client, workDir } = testClient(tmp.dir, { env: { REGISTRY_AUTH_FILE: file } });
    const ref = `${fx.basic.host}/ns/foo:v0.2.0`;
    const err = await pullError(client.pull(ref));
    expect(err.code).toBe('E_REGISTRY_TLS');
    expect(err.exitCode).toBe(1);
    const line = cliLine(err);
    expect(line).not.toContain('\n');
    expect(line).toContain(ref);
    expect(line).toContain(fx.basic.host);
    expect(line).toContain('certs.d');
    expectNoSecret(line);
    expect(leftovers(workDir)).toEqual([]);
    await client.close();
  });

  it('accepts the certificate where registries.conf marks the registry insecure, even after a verified pull', async () => {
    const file = authFile('basic-conf', { auths: { [fx.basic.host]: { auth: b64(`${USER}:${PASSWORD}`) } } });
    const conf = path.join(tmp.dir, 'insecure-registries.conf');
    writeFileSync(
      conf,
      `[[registry]]\nprefix = "insecure.example/ns"\nlocation = "${fx.basic.host}/ns"\ninsecure = true\n`,
    );
    const { client } = testClient(tmp.dir, {
      env: { REGISTRY_AUTH_FILE: file, CONTAINERS_REGISTRIES_CONF: conf },
    });
    // The host itself is not listed, so its certificate is checked and refused.
    const err = await pullError(client.pull(`${fx.basic.host}/ns/foo:v0.2.0`));
    expect(err.code).toBe('E_REGISTRY_TLS');
    const pulled = await client.pull('insecure.example/ns/foo:v0.2.0');
    expect(pulled.digest).toBe(img.top.digest);
    await pulled.release();
    await client.close();
  });

  it('accepts the certificate with --skip-tls-verify', async () => {
    const file = authFile('basic-skip', {
      auths: { [`https://${fx.basic.host}`]: { auth: b64(`${USER}:${PASSWORD}`) } },
    });
    const { client } = testClient(tmp.dir, { skipTlsVerify: true, env: { REGISTRY_AUTH_FILE: file } });
    const pulled = await client.pull(`${fx.basic.host}/ns/foo:v0.2.0`);
    expect(pulled.labels['operators.operatorframework.io.bundle.package.v1']).toBe('foo');
    await pulled.release();
    await client.close();
  });

  it('reports a wrong password without printing it, naming the credential source', async () => {
    const file = authFile('basic-wrong', {
      auths: { [fx.basic.host]: { auth: b64(`${USER}:wrong-password`) } },
    });
    const { client, workDir, logs } = testClient(tmp.dir, {
      certDirs: [certDir()],
      env: { REGISTRY_AUTH_FILE: file },
    });
    const ref = `${fx.basic.host}/ns/foo:v0.2.0`;
    const err = await pullError(client.pull(ref));
    expect(err.code).toBe('E_REGISTRY_AUTH');
    const line = cliLine(err);
    expect(line).not.toContain('\n');
    expect(line).toContain(ref);
    expect(line).toContain(fx.basic.host);
    expect(line).toContain(file);
    expectNoSecret(`${line}\n${logs.join('\n')}\n${String(err.stack)}`);
    expect(leftovers(workDir)).toEqual([]);
    await client.close();
  });

  it('says no credentials were found when there are none', async () => {
    const { client } = testClient(tmp.dir, { certDirs: [certDir()] });
    const err = await pullError(client.pull(`${fx.basic.host}/ns/foo:v0.2.0`));
    expect(err.code).toBe('E_REGISTRY_AUTH');
    expect(err.hint).toContain('no credentials found');
    await client.close();
  });

  it('skips a broken entry and a broken file and uses the next good one', async () => {
    const broken = authFile('broken-file', { auths: { [fx.basic.host]: { auth: '!!!not-base64' } } });
    const docker = path.join(tmp.dir, 'docker-good');
    mkdirSync(docker, { recursive: true });
    writeFileSync(
      path.join(docker, 'config.json'),
      JSON.stringify({ auths: { [fx.basic.host]: { auth: b64(`${USER}:${PASSWORD}`) } } }),
    );
    const runtime = path.join(tmp.dir, 'runtime');
    mkdirSync(path.join(runtime, 'containers'), { recursive: true });
    writeFileSync(path.join(runtime, 'containers', 'auth.json'), '{ not json');
    const { client, logs } = testClient(tmp.dir, {
      certDirs: [certDir()],
      env: { REGISTRY_AUTH_FILE: broken, DOCKER_CONFIG: docker, XDG_RUNTIME_DIR: runtime },
    });
    const pulled = await client.pull(`${fx.basic.host}/ns/foo:v0.2.0`);
    await pulled.release();
    await client.close();
    expect(logs.some((l) => l.includes('ignoring credentials') && l.includes(broken))).toBe(true);
    expectNoSecret(logs.join('\n'));
  });
});

describe('registry with bearer tokens', () => {
  it('pulls a public repository with an anonymous token, reusing it for every request', async () => {
    const before = fx.tokenServer.requests.length;
    const { client } = testClient(tmp.dir, { useHttp: true });
    const pulled = await client.pull(`${fx.token.host}/ns/foo:v0.2.0`);
    expect(pulled.digest).toBe(img.top.digest);
    await pulled.release();
    const again = await client.pull(`${fx.token.host}/ns/foo:v0.2.0`);
    await again.release();
    await client.close();
    const mine = fx.tokenServer.requests.slice(before);
    expect(mine).toEqual([{ user: undefined, scopes: ['repository:ns/foo:pull'] }]);
  });

  it('refuses a private repository without credentials', async () => {
    const { client } = testClient(tmp.dir, { useHttp: true });
    const err = await pullError(client.pull(`${fx.token.host}/private/foo:v0.2.0`));
    expect(err.code).toBe('E_REGISTRY_AUTH');
    expect(err.message).toContain(fx.token.host);
    await client.close();
  });

  it('pulls a private repository with credentials from a credential helper', async () => {
    const bin = path.join(tmp.dir, 'bin');
    mkdirSync(bin, { recursive: true });
    const helper = path.join(bin, 'docker-credential-opmtest');
    writeFileSync(
      helper,
      [
        '#!/bin/sh',
        '[ "$1" = get ] || exit 2',
        'read -r server',
        `if [ "$server" = "${fx.token.host}" ]; then`,
        `  printf '{"ServerURL":"%s","Username":"${USER}","Secret":"${PASSWORD}"}' "$server"`,
        'else',
        '  echo "credentials not found in native keychain"; exit 1',
        'fi',
      ].join('\n'),
    );
    chmodSync(helper, 0o755);
    const docker = path.join(tmp.dir, 'docker-helper');
    mkdirSync(docker, { recursive: true });
    writeFileSync(
      path.join(docker, 'config.json'),
      JSON.stringify({ auths: { [fx.token.host]: {} }, credHelpers: { [fx.token.host]: 'opmtest' } }),
    );
    const { client, logs } = testClient(tmp.dir, {
      useHttp: true,
      env: { DOCKER_CONFIG: docker, PATH: `${bin}:${process.env.PATH ?? ''}` },
    });
    const pulled = await client.pull(`${fx.token.host}/private/foo:v0.2.0`);
    expect(pulled.labels['operators.operatorframework.io.bundle.package.v1']).toBe('foo');
    await pulled.release();
    await client.close();
    expectNoSecret(logs.join('\n'));
  });

  it('pulls a private repository with an identity token (OAuth2 refresh grant)', async () => {
    const file = authFile('identity', {
      auths: { [fx.token.host]: { identitytoken: `${PASSWORD}-refresh` } },
    });
    const { client } = testClient(tmp.dir, { useHttp: true, env: { REGISTRY_AUTH_FILE: file } });
    const pulled = await client.pull(`${fx.token.host}/private/foo:v0.2.0`);
    await pulled.release();
    await client.close();
  });

  it('reports a wrong password at the token server', async () => {
    const file = authFile('token-wrong', {
      auths: { [fx.token.host]: { username: USER, password: 'wrong-password' } },
    });
    const { client } = testClient(tmp.dir, { useHttp: true, env: { REGISTRY_AUTH_FILE: file } });
    const err = await pullError(client.pull(`${fx.token.host}/private/foo:v0.2.0`));
    expect(err.code).toBe('E_REGISTRY_AUTH');
    const line = cliLine(err);
    expect(line).toContain('rejected the credentials');
    expectNoSecret(line);
    await client.close();
  });

  it('follows blob redirects to another host without forwarding Authorization', async () => {
    const servedBefore = fx.blobHost.served;
    const { client } = testClient(tmp.dir, { useHttp: true });
    const pulled = await client.pull(`${fx.tokenRedirect.host}/ns/foo:v0.2.0`);
    expect(pulled.digest).toBe(img.top.digest);
    await pulled.release();
    await client.close();
    expect(fx.blobHost.served - servedBefore).toBe(img.blobs.size - 1);
    expect(fx.blobHost.withAuthorization).toBe(0);
  });
});

describe('missing things', () => {
  it('names an unknown repository and a missing tag', async () => {
    const { client, workDir } = testClient(tmp.dir, { useHttp: true });
    const repoErr = await pullError(client.pull(`${fx.token.host}/ns/nothing-here:v1`));
    expect(repoErr.code).toBe('E_REGISTRY_NOT_FOUND');
    expect(cliLine(repoErr)).toContain('ns/nothing-here');
    const tagErr = await pullError(client.pull(`${fx.token.host}/ns/foo:v9.9.9`));
    expect(tagErr.code).toBe('E_REGISTRY_NOT_FOUND');
    expect(cliLine(tagErr)).toContain('tag "v9.9.9" not found');
    for (const e of [repoErr, tagErr]) {
      expect(cliLine(e)).not.toContain('\n');
      expect(cliLine(e)).toContain(fx.token.host);
    }
    expect(leftovers(workDir)).toEqual([]);
    await client.close();
  });
});
