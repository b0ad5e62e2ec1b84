import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  startBlobHost,
  startFaultProxy,
  startTokenServer,
  type BlobHost,
  type FaultProxy,
  type TokenServer,
} from './servers.js';
import { freePort, requireTools, run, waitForPort } from './tools.js';

export const USER = 'testuser';
export const PASSWORD = 'S3cret-pa55word';

export interface RegistryProcess {
  name: string;
  port: number;
  host: string;
  url: string;
  stop(): Promise<void>;
}

export interface Fixture {
  dir: string;
  /** Plain HTTP, anonymous. */
  plain: RegistryProcess;
  /** HTTPS with a self-signed certificate, htpasswd. */
  basic: RegistryProcess;
  /** CA file that signs `basic`'s certificate. */
  basicCa: string;
  /** Plain HTTP, bearer tokens from `tokenServer`. */
  token: RegistryProcess;
  /** Same storage as `token`, blobs answered with 307 to `blobHost`. */
  tokenRedirect: RegistryProcess;
  tokenServer: TokenServer;
  tokenRealm: string;
  blobHost: BlobHost;
  /** Counting, fault-injecting proxy in front of `plain`. */
  proxy: FaultProxy;
  /** HTTPS (certificate signed by `basicCa`) asking for a client certificate; `plain`'s storage. */
  clientCert: RegistryProcess;
  /** A client certificate and key that `clientCert` accepts. */
  clientCertFiles: { cert: string; key: string };
  stop(): Promise<void>;
}

function yamlConfig(opts: { storage: string; port: number; extra?: string }): string {
  return [
    'version: 0.1',
    'log:',
    '  level: warn',
    '  accesslog:',
    '    disabled: true',
    'storage:',
    '  filesystem:',
    `    rootdirectory: ${opts.storage}`,
    '  delete:',
    '    enabled: true',
    'http:',
    `  addr: 127.0.0.1:${opts.port}`,
    '  secret: fixture-secret',
    opts.extra ?? '',
  ].join('\n');
}

async function startRegistry(
  dir: string,
  name: string,
  config: string,
  port: number,
): Promise<RegistryProcess> {
  const cfg = path.join(dir, `${name}.yml`);
  writeFileSync(cfg, config);
  const log = openSync(path.join(dir, `${name}.log`), 'a');
  const child: ChildProcess = spawn('docker-registry', ['serve', cfg], { stdio: ['ignore', log, log] });
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  try {
    await waitForPort(port, undefined, () => !exited);
  } catch (err) {
    throw new Error(`docker-registry ${name} did not start (see ${path.join(dir, `${name}.log`)})`, {
      cause: err,
    });
  }
  return {
    name,
    port,
    host: `127.0.0.1:${port}`,
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (exited) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        // A registry that ignores SIGTERM is killed outright.
        setTimeout(() => {
          if (!exited) child.kill('SIGKILL');
        }, 3000).unref();
      }),
  };
}

/** One anonymous plain-HTTP registry on a free 127.0.0.1 port, with its storage and log in `dir`. */
export async function startPlainRegistry(dir: string, name: string): Promise<RegistryProcess> {
  requireTools('docker-registry');
  const port = await freePort();
  const storage = path.join(dir, `storage-${name}`);
  mkdirSync(storage, { recursive: true });
  return startRegistry(dir, name, yamlConfig({ storage, port }), port);
}

/** A self-signed certificate and its key, valid for two days. */
export function selfSignedCertificate(subject: string, key: string, crt: string, extra: string[] = []): void {
  run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-sha256',
    '-days',
    '2',
    '-subj',
    subject,
    ...extra,
    '-keyout',
    key,
    '-out',
    crt,
  ]);
}

/** Start every server the registry tests use, on free 127.0.0.1 ports, in a fresh temp folder. */
export async function startFixture(): Promise<Fixture> {
  requireTools('docker-registry', 'htpasswd', 'openssl', 'zstd');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'opm-registry-fixture-'));
  const started: Array<{ stop(): Promise<void> } | { close(): Promise<void> }> = [];
  const stopAll = async (): Promise<void> => {
    for (const s of started.reverse()) await ('stop' in s ? s.stop() : s.close());
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const d of ['certs', 'auth', 'storage-plain', 'storage-basic', 'storage-token'])
      mkdirSync(path.join(dir, d));
    const crt = path.join(dir, 'certs', 'registry.crt');
    const key = path.join(dir, 'certs', 'registry.key');
    selfSignedCertificate('/CN=127.0.0.1', key, crt, [
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ]);
    const signerCrt = path.join(dir, 'certs', 'signer.crt');
    const signerKey = path.join(dir, 'certs', 'signer.key');
    selfSignedCertificate('/CN=test-token-signer', signerKey, signerCrt);
    const htpasswd = path.join(dir, 'auth', 'htpasswd');
    writeFileSync(htpasswd, run('htpasswd', ['-Bbn', USER, PASSWORD]));

    // The CA that signs the client certificates `clientCert` accepts, and one such certificate.
    const clientCa = path.join(dir, 'certs', 'client-ca.crt');
    const clientCaKey = path.join(dir, 'certs', 'client-ca.key');
    selfSignedCertificate('/CN=test-client-ca', clientCaKey, clientCa);
    const clientCert = path.join(dir, 'certs', 'client.cert');
    const clientKey = path.join(dir, 'certs', 'client.key');
    const clientCsr = path.join(dir, 'certs', 'client.csr');
    run('openssl', [
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      '/CN=opm-client',
      '-keyout',
      clientKey,
      '-out',
      clientCsr,
    ]);
    run('openssl', [
      'x509',
      '-req',
      '-in',
      clientCsr,
      '-CA',
      clientCa,
      '-CAkey',
      clientCaKey,
      '-CAcreateserial',
      '-days',
      '2',
      '-out',
      clientCert,
    ]);

    const [pPlain, pBasic, pToken, pRedirect, pAuth, pBlob, pProxy, pClient] = await Promise.all(
      Array.from({ length: 8 }, () => freePort()),
    );
    if (
      pClient === undefined ||
      pPlain === undefined ||
      pBasic === undefined ||
      pToken === undefined ||
      pRedirect === undefined ||
      pAuth === undefined ||
      pBlob === undefined ||
      pProxy === undefined
    ) {
      throw new Error('could not allocate ports');
    }
    const tokenServer = await startTokenServer({
      port: pAuth,
      keyFile: signerKey,
      certFile: signerCrt,
      issuer: 'test-issuer',
      service: 'test-registry',
      user: USER,
      password: PASSWORD,
    });
    started.push(tokenServer);
    const blobHost = await startBlobHost(pBlob, path.join(dir, 'storage-token'));
    started.push(blobHost);
    const realm = `http://127.0.0.1:${pAuth}/token`;
    const tokenAuth = [
      'auth:',
      '  token:',
      `    realm: ${realm}`,
      '    service: test-registry',
      '    issuer: test-issuer',
      `    rootcertbundle: ${signerCrt}`,
    ].join('\n');
    const plain = await startRegistry(
      dir,
      'plain',
      yamlConfig({ storage: path.join(dir, 'storage-plain'), port: pPlain }),
      pPlain,
    );
    started.push(plain);
    // The `http:` section's TLS lines, for the registries served over TLS.
    const tlsLines = ['  tls:', `    certificate: ${crt}`, `    key: ${key}`];
    const basic = await startRegistry(
      dir,
      'basic',
      yamlConfig({
        storage: path.join(dir, 'storage-basic'),
        port: pBasic,
        extra: [...tlsLines, 'auth:', '  htpasswd:', '    realm: basic-realm', `    path: ${htpasswd}`].join(
          '\n',
        ),
      }),
      pBasic,
    );
    started.push(basic);
    const token = await startRegistry(
      dir,
      'token',
      yamlConfig({ storage: path.join(dir, 'storage-token'), port: pToken, extra: tokenAuth }),
      pToken,
    );
    started.push(token);
    const tokenRedirect = await startRegistry(
      dir,
      'token-redirect',
      yamlConfig({
        storage: path.join(dir, 'storage-token'),
        port: pRedirect,
        extra: [
          tokenAuth,
          'middleware:',
          '  storage:',
          '    - name: redirect',
          '      options:',
          `        baseurl: http://127.0.0.1:${pBlob}/`,
        ].join('\n'),
      }),
      pRedirect,
    );
    started.push(tokenRedirect);
    const proxy = await startFaultProxy(pProxy, pPlain);
    started.push(proxy);
    const clientCertRegistry = await startRegistry(
      dir,
      'client-cert',
      yamlConfig({
        storage: path.join(dir, 'storage-plain'),
        port: pClient,
        extra: [...tlsLines, '    clientcas:', `      - ${clientCa}`].join('\n'),
      }),
      pClient,
    );
    started.push(clientCertRegistry);
    return {
      dir,
      plain,
      basic: { ...basic, url: `https://127.0.0.1:${pBasic}` },
      basicCa: crt,
      token,
      tokenRedirect,
      tokenServer,
      tokenRealm: realm,
      blobHost,
      proxy,
      clientCert: { ...clientCertRegistry, url: `https://127.0.0.1:${pClient}` },
      clientCertFiles: { cert: clientCert, key: clientKey },
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/**
 * One anonymous registry served over TLS on a free 127.0.0.1 port, its certificate self-signed
 * (for 127.0.0.1 and localhost): `ca` is the file to trust it by (SSL_CERT_FILE for a Go client,
 * NODE_EXTRA_CA_CERTS for ours). For clients that cannot be told to use plain HTTP.
 */
export async function startTlsRegistry(
  dir: string,
  name: string,
): Promise<{ registry: RegistryProcess; ca: string }> {
  requireTools('docker-registry', 'openssl');
  const port = await freePort();
  const storage = path.join(dir, `storage-${name}`);
  mkdirSync(storage, { recursive: true });
  const crt = path.join(dir, `${name}.crt`);
  const key = path.join(dir, `${name}.key`);
  selfSignedCertificate('/CN=127.0.0.1', key, crt, ['-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost']);
  const tls = ['  tls:', `    certificate: ${crt}`, `    key: ${key}`].join('\n');
  const registry = await startRegistry(dir, name, yamlConfig({ storage, port, extra: tls }), port);
  return { registry: { ...registry, url: `https://127.0.0.1:${port}` }, ca: crt };
}
