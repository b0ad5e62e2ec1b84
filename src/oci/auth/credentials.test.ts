import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialFiles, findCredentials, normaliseAuthKey } from './credentials.js';

let root: string;
let bin: string;
const b64 = (s: string): string => Buffer.from(s).toString('base64');

function write(rel: string, content: unknown): string {
  const file = path.join(root, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

/** A fresh HOME with nothing in it, and PATH with the fake helpers first. */
function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const home = mkdtempSync(path.join(root, 'home-'));
  return { HOME: home, PATH: `${bin}:${process.env.PATH ?? ''}`, ...extra };
}

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'opm-creds-test-'));
  bin = path.join(root, 'bin');
  mkdirSync(bin);
  // A helper that knows one server, logs what it was asked, and says "not found" otherwise.
  const helper = path.join(bin, 'docker-credential-fake');
  writeFileSync(
    helper,
    [
      '#!/bin/sh',
      'read -r server',
      `echo "$1 $server" >> "${path.join(root, 'helper.log')}"`,
      'case "$server" in',
      '  reg.example:5000) printf \'{"ServerURL":"reg.example:5000","Username":"helper-user","Secret":"helper-secret"}\' ;;',
      '  https://index.docker.io/v1/) printf \'{"ServerURL":"x","Username":"<token>","Secret":"refresh-me"}\' ;;',
      '  *) echo "credentials not found in native keychain"; exit 1 ;;',
      'esac',
    ].join('\n'),
  );
  chmodSync(helper, 0o755);
  const broken = path.join(bin, 'docker-credential-broken');
  writeFileSync(broken, '#!/bin/sh\necho "this is not json"\n');
  chmodSync(broken, 0o755);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('credentialFiles', () => {
  it('searches REGISTRY_AUTH_FILE, DOCKER_CONFIG, ~/.docker, then the containers locations', () => {
    expect(
      credentialFiles({
        HOME: '/h',
        REGISTRY_AUTH_FILE: '/a/auth.json',
        DOCKER_CONFIG: '/d',
        XDG_RUNTIME_DIR: '/run/user/1',
      }),
    ).toEqual([
      '/a/auth.json',
      '/d/config.json',
      '/h/.docker/config.json',
      '/run/user/1/containers/auth.json',
      '/h/.config/containers/auth.json',
    ]);
  });
});

describe('normaliseAuthKey', () => {
  it('keeps namespaces without a scheme, drops paths with one, and merges Docker Hub names', () => {
    expect(normaliseAuthKey('https://index.docker.io/v1/')).toBe('docker.io');
    expect(normaliseAuthKey('registry-1.docker.io')).toBe('docker.io');
    expect(normaliseAuthKey('quay.io/org/repo/')).toBe('quay.io/org/repo');
    expect(normaliseAuthKey('http://quay.io/org')).toBe('quay.io');
    expect(normaliseAuthKey('Reg.Example:5000')).toBe('reg.example:5000');
  });
});

describe('findCredentials', () => {
  it('prefers the most specific auths entry', async () => {
    const file = write('specific/auth.json', {
      auths: {
        'quay.io': { auth: b64('host-user:host-pass') },
        'quay.io/org': { auth: b64('org-user:org-pass') },
        'quay.io/org/repo': { auth: b64('repo-user:repo:pass:with:colons') },
      },
    });
    const e = env({ REGISTRY_AUTH_FILE: file });
    expect(await findCredentials('quay.io', 'org/repo', e)).toMatchObject({
      username: 'repo-user',
      password: 'repo:pass:with:colons',
    });
    expect(await findCredentials('quay.io', 'org/other', e)).toMatchObject({
      username: 'org-user',
      password: 'org-pass',
    });
    expect(await findCredentials('quay.io', 'else/x', e)).toMatchObject({ username: 'host-user' });
    expect(await findCredentials('ghcr.io', 'org/repo', e)).toBeUndefined();
  });

  it('finds Docker Hub credentials under the legacy key and username/password fields', async () => {
    const dir = path.join(root, 'dockerhub');
    write('dockerhub/config.json', {
      auths: { 'https://index.docker.io/v1/': { username: 'hub', password: 'hub-pass' } },
    });
    const c = await findCredentials('docker.io', 'library/busybox', env({ DOCKER_CONFIG: dir }));
    expect(c).toMatchObject({ username: 'hub', password: 'hub-pass' });
    expect(c?.source).toContain('config.json');
    expect(c?.source).not.toContain('hub-pass');
  });

  it('uses credHelpers before auths, and credsStore for the rest', async () => {
    const dir = path.join(root, 'helpers');
    write('helpers/config.json', {
      auths: { 'reg.example:5000': { auth: b64('file-user:file-pass') }, 'other.example': {} },
      credHelpers: { 'reg.example:5000': 'fake' },
      credsStore: 'fake',
    });
    const e = env({ DOCKER_CONFIG: dir });
    expect(await findCredentials('reg.example:5000', 'ns/x', e)).toEqual({
      username: 'helper-user',
      password: 'helper-secret',
      source: 'credential helper docker-credential-fake',
    });
    // `{}` means "in the helper"; the store answers "not found" for this host.
    expect(await findCredentials('other.example', 'ns/x', e)).toBeUndefined();
    // The store's `<token>` answer is an identity token.
    expect(await findCredentials('docker.io', 'library/x', e)).toMatchObject({ identityToken: 'refresh-me' });
  });

  it('skips broken files, entries and helpers, warning without secrets, and keeps looking', async () => {
    const badJson = write('broken/auth.json', '{ nope');
    const badEntry = path.join(root, 'broken-entry');
    write('broken-entry/config.json', {
      auths: { 'reg.example:5000': { auth: b64('no-colon-here') }, 'reg2.example': 'not-an-object' },
      credHelpers: { 'reg.example:5000': 'broken', 'reg3.example': 'missing-helper' },
    });
    const runtime = path.join(root, 'runtime');
    write('runtime/containers/auth.json', {
      auths: { 'reg.example:5000': { auth: b64('good-user:good-pass') } },
    });
    const warnings: string[] = [];
    const e = env({ REGISTRY_AUTH_FILE: badJson, DOCKER_CONFIG: badEntry, XDG_RUNTIME_DIR: runtime });
    const c = await findCredentials('reg.example:5000', 'ns/x', e, (w) => warnings.push(w));
    expect(c).toMatchObject({ username: 'good-user', password: 'good-pass' });
    expect(await findCredentials('reg2.example', 'ns/x', e, (w) => warnings.push(w))).toBeUndefined();
    expect(await findCredentials('reg3.example', 'ns/x', e, (w) => warnings.push(w))).toBeUndefined();
    const all = warnings.join('\n');
    expect(all).toContain('not valid JSON');
    expect(all).toContain('not base64 of user:password');
    expect(all).toContain('docker-credential-broken');
    expect(all).toContain('not found in PATH');
    expect(all).not.toContain('no-colon-here');
    expect(all).not.toContain(b64('no-colon-here'));
  });
});
