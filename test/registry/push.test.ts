// needs-registry: real registry servers on 127.0.0.1 (docker-registry), read back with skopeo.
/**
 * The push client against distribution's registry: plain, TLS with htpasswd, bearer tokens; what it
 * pushed read back by skopeo; nothing uploaded twice; mounts; and hostile registries (one that
 * claims blobs it lacks, uploads cut mid-body, a tag moved by another writer during the push).
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpmError } from '../../src/errors.js';
import { bytesBlob } from '../../src/oci/push/blob-source.js';
import type { PushPlan } from '../../src/oci/push/image-push.js';
import { RegistryPusher, type PusherOptions } from '../../src/oci/push/pusher.js';
import { PASSWORD, USER, startFixture, type Fixture } from './fixture.js';
import { buildImage, pushImage, type BuiltImage } from './image-builder.js';
import type { Fault } from './servers.js';
import { cliLine, tempDir } from './helpers.js';
import { requireTools } from './tools.js';

let fx: Fixture;
let tmp: ReturnType<typeof tempDir>;
let img: BuiltImage;
let multi: BuiltImage;

function planOf(image: BuiltImage): PushPlan {
  return {
    images: image.manifests.map((m) => ({
      manifest: { mediaType: m.manifest.mediaType, digest: m.manifest.digest, bytes: m.manifest.bytes },
      blobs: [m.config, ...m.layers].map((b) => bytesBlob(b.digest, b.mediaType, b.bytes)),
    })),
    ...(image.manifests.length > 1 || image.top.digest !== image.manifests[0]?.manifest.digest
      ? { index: { mediaType: image.top.mediaType, digest: image.top.digest, bytes: image.top.bytes } }
      : {}),
  };
}

let n = 0;
function pusher(opts: Partial<PusherOptions> = {}): { p: RegistryPusher; logs: string[] } {
  const root = path.join(tmp.dir, `client-${n++}`);
  mkdirSync(path.join(root, 'home'), { recursive: true });
  const logs: string[] = [];
  const p = new RegistryPusher({
    skipTlsVerify: false,
    useHttp: true,
    certDirs: [],
    configRoot: root,
    cacheDir: path.join(root, 'cache'),
    attempts: 2,
    log: (l) => logs.push(l),
    ...opts,
    env: { HOME: path.join(root, 'home'), PATH: process.env.PATH, ...opts.env },
  });
  return { p, logs };
}

const execFileAsync = promisify(execFile);

/**
 * skopeo, run asynchronously: the fault proxy it may talk to runs in this process, so a
 * synchronous child would wait for a server that cannot answer.
 */
async function skopeo(args: string[]): Promise<string> {
  const { stdout } = await execFileAsync('skopeo', args, { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 });
  return stdout.toString('latin1');
}

/** The digest of the manifest a reference names, as skopeo fetches it (`--raw`, hashed). */
async function skopeoDigest(ref: string, extra: string[] = ['--tls-verify=false']): Promise<string> {
  const raw = await execFileAsync('skopeo', ['inspect', ...extra, '--raw', `docker://${ref}`], {
    encoding: 'buffer',
  });
  return `sha256:${createHash('sha256').update(raw.stdout).digest('hex')}`;
}

async function failure(p: Promise<unknown>): Promise<OpmError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof OpmError) return err;
    throw err;
  }
  throw new Error('expected the push to fail');
}

beforeAll(async () => {
  requireTools('skopeo');
  tmp = tempDir('opm-push-test-');
  fx = await startFixture();
  img = await buildImage({
    layers: [
      {
        entries: [
          { name: 'configs', type: 'directory' },
          { name: 'configs/a.json', content: '{"a":1}' },
        ],
      },
      { entries: [{ name: 'big.bin', content: randomBytes(300_000) }] },
    ],
    labels: { 'test.label': 'one' },
  });
  multi = await buildImage({
    layers: [{ entries: [{ name: 'x.txt', content: 'multi' }] }],
    labels: {},
    format: 'docker',
    platforms: [
      { os: 'linux', architecture: 'amd64' },
      { os: 'linux', architecture: 'arm64', variant: 'v8' },
    ],
  });
});

afterAll(async () => {
  await fx.stop();
  tmp.remove();
});

describe('push', () => {
  it('pushes to a plain registry; a second push sends no blob again', async () => {
    const { p } = pusher();
    fx.proxy.reset();
    const ref = `${fx.proxy.host}/ns/plain:v1`;
    const first = await p.push(ref, planOf(img));
    expect(first.digest).toBe(img.top.digest);
    expect(fx.proxy.push.uploadedBytes).toBeGreaterThanOrEqual(300_000);
    expect(await skopeoDigest(ref)).toBe(img.top.digest);
    fx.proxy.reset();
    const second = await p.push(ref, planOf(img));
    expect(second.digest).toBe(first.digest);
    expect([...second.blobs.values()]).toEqual(['exists', 'exists', 'exists']);
    expect(fx.proxy.push).toEqual({ heads: 3, uploadSteps: 0, uploadedBytes: 0, mounts: 0 });
    await p.close();
  });

  it('sends large blobs in chunks and joins platforms in an index', async () => {
    const { p } = pusher({ chunkSize: 64 * 1024 });
    fx.proxy.reset();
    const ref = `${fx.proxy.host}/ns/chunked:v1`;
    await p.push(ref, planOf(img));
    // 300 000 random bytes (gzip cannot shrink them) in 64 KiB chunks: a POST, 5 PATCHes and a
    // closing PUT for the big layer, a POST and a PUT for each of the other two blobs.
    expect(fx.proxy.push.uploadSteps).toBe(11);
    expect(await skopeoDigest(ref)).toBe(img.top.digest);
    const multiRef = `${fx.plain.host}/ns/multi:v1`;
    expect((await p.push(multiRef, planOf(multi))).digest).toBe(multi.top.digest);
    expect(await skopeoDigest(multiRef)).toBe(multi.top.digest);
    const arm = await skopeo([
      'inspect',
      '--tls-verify=false',
      '--override-arch=arm64',
      `docker://${multiRef}`,
    ]);
    expect(arm).toContain('"Architecture": "arm64"');
    await p.close();
  });

  it('mounts blobs from another repository of the same registry', async () => {
    const { p } = pusher();
    await p.push(`${fx.proxy.host}/ns/base:v1`, planOf(img));
    fx.proxy.reset();
    const plan = planOf(img);
    for (const i of plan.images)
      i.blobs = i.blobs.map((b) => ({ ...b, mountFrom: { registry: fx.proxy.host, repository: 'ns/base' } }));
    const r = await p.push(`${fx.proxy.host}/ns/derived:v1`, plan);
    expect([...r.blobs.values()]).toEqual(['mounted', 'mounted', 'mounted']);
    expect(fx.proxy.push.mounts).toBe(3);
    expect(fx.proxy.push.uploadedBytes).toBe(0);
    expect(await skopeoDigest(`${fx.proxy.host}/ns/derived:v1`)).toBe(img.top.digest);
    await p.close();
  });

  it('pushes over TLS with htpasswd credentials; without them, one line saying to log in', async () => {
    const certs = path.join(tmp.dir, 'certs.d');
    mkdirSync(path.join(certs, fx.basic.host), { recursive: true });
    copyFileSync(fx.basicCa, path.join(certs, fx.basic.host, 'ca.crt'));
    const auth = path.join(tmp.dir, 'auth.json');
    writeFileSync(
      auth,
      JSON.stringify({
        auths: { [fx.basic.host]: { auth: Buffer.from(`${USER}:${PASSWORD}`).toString('base64') } },
      }),
    );
    const ref = `${fx.basic.host}/ns/tls:v1`;
    const anon = pusher({ useHttp: false, certDirs: [certs] });
    const err = await failure(anon.p.push(ref, planOf(img)));
    expect(cliLine(err)).toMatch(/^error: failed to push image ".*": 127\.0\.0\.1:\d+: .*401.* \(.*log in/);
    expect(cliLine(err)).not.toContain('\n');
    const { p } = pusher({ useHttp: false, certDirs: [certs], env: { REGISTRY_AUTH_FILE: auth } });
    expect((await p.push(ref, planOf(img))).digest).toBe(img.top.digest);
    expect(
      await skopeoDigest(ref, [
        '--cert-dir',
        path.join(certs, fx.basic.host),
        '--creds',
        `${USER}:${PASSWORD}`,
      ]),
    ).toBe(img.top.digest);
    await Promise.all([p.close(), anon.p.close()]);
  });

  it('pushes with bearer tokens when the token server grants push; anonymous pushes get one line', async () => {
    const auth = path.join(tmp.dir, 'token-auth.json');
    writeFileSync(
      auth,
      JSON.stringify({
        auths: { [fx.token.host]: { auth: Buffer.from(`${USER}:${PASSWORD}`).toString('base64') } },
      }),
    );
    const ref = `${fx.token.host}/ns/token:v1`;
    const anon = pusher();
    const err = await failure(anon.p.push(ref, planOf(img)));
    expect(err.code).toBe('E_REGISTRY_AUTH');
    expect(err.hint).toMatch(/log in/);
    const { p } = pusher({ env: { REGISTRY_AUTH_FILE: auth } });
    expect((await p.push(ref, planOf(img))).digest).toBe(img.top.digest);
    expect(fx.tokenServer.requests.some((r) => r.scopes.includes('repository:ns/token:pull,push'))).toBe(
      true,
    );
    expect(await skopeoDigest(ref)).toBe(img.top.digest);
    await Promise.all([p.close(), anon.p.close()]);
  });
});

describe('hostile registries', () => {
  it('uploads again a blob the registry claimed to have but did not', async () => {
    const { p, logs } = pusher();
    fx.proxy.reset();
    fx.proxy.faults.push({ kind: 'claim-blob', on: 'blob', times: 3 });
    const ref = `${fx.proxy.host}/ns/liar:v1`;
    const r = await p.push(ref, planOf(img));
    expect(r.digest).toBe(img.top.digest);
    expect(logs.join('\n')).toMatch(
      /does not have blob sha256:[0-9a-f]{64} it said it had; uploading 3 blobs again/,
    );
    // Every blob is really there: skopeo copies the whole image out.
    const out = path.join(tmp.dir, 'liar-layout');
    await skopeo(['copy', '--src-tls-verify=false', `docker://${ref}`, `oci:${out}:x`]);
    await p.close();
  });

  it('starts an upload cut off mid-body again; when it keeps failing, one line and no tag', async () => {
    const { p, logs } = pusher();
    fx.proxy.reset();
    fx.proxy.faults.push({ kind: 'cut-upload', on: 'upload', times: 1 });
    const ref = `${fx.proxy.host}/ns/cut:v1`;
    expect((await p.push(ref, planOf(img))).digest).toBe(img.top.digest);
    expect(logs.join('\n')).toMatch(/interrupted, starting it again/);
    expect(await skopeoDigest(ref)).toBe(img.top.digest);

    const other = await buildImage({
      layers: [{ entries: [{ name: 'other', content: 'x'.repeat(5000) }] }],
      labels: {},
    });
    fx.proxy.reset();
    fx.proxy.faults.push({ kind: 'cut-upload', on: 'upload', times: 100 });
    const bad = `${fx.proxy.host}/ns/cut-forever:v1`;
    const err = await failure(p.push(bad, planOf(other)));
    expect(cliLine(err)).toMatch(
      /^error: failed to push image ".*cut-forever:v1": .*upload of blob sha256:[0-9a-f]{64} .* failed after 3 attempts/,
    );
    fx.proxy.reset();
    await expect(skopeo(['inspect', '--tls-verify=false', '--raw', `docker://${bad}`])).rejects.toThrow();
    await p.close();
  });

  it('a tag moved by another writer while blobs upload ends on the image pushed last, complete', async () => {
    const { p } = pusher();
    const ref = `${fx.plain.host}/ns/moving:v1`;
    let other: Promise<unknown> | undefined;
    const r = await p.push(ref, planOf(img), {
      onBytes: () => {
        other ??= pushImage(multi, { url: fx.plain.url, repo: 'ns/moving', tag: 'v1' });
      },
    });
    expect(r.digest).toBe(img.top.digest);
    // The other writer is let finish first: docker-registry rewrites a tag's link file in place, so
    // a read while it writes can get a 500 that says nothing about either push.
    await other;
    // Whichever wrote last, the tag names a complete image that skopeo copies whole.
    const out = path.join(tmp.dir, 'moving-layout');
    await skopeo(['copy', '--src-tls-verify=false', `docker://${ref}`, `oci:${out}:x`]);
    await p.close();
  });

  it('follows relative upload Locations, and starts an upload again after a 5xx', async () => {
    const { p, logs } = pusher({ chunkSize: 64 * 1024 });
    fx.proxy.reset();
    fx.proxy.faults.push({ kind: 'relative-location', on: 'upload', times: 1000 });
    const ref = `${fx.proxy.host}/ns/relative:v1`;
    expect((await p.push(ref, planOf(img))).digest).toBe(img.top.digest);
    expect(await skopeoDigest(ref)).toBe(img.top.digest);
    fx.proxy.reset();
    fx.proxy.faults.push({ kind: 'status-500', on: 'upload', times: 1 });
    const other = await buildImage({ layers: [{ entries: [{ name: 'five', content: '500' }] }], labels: {} });
    expect((await p.push(`${fx.proxy.host}/ns/five:v1`, planOf(other))).digest).toBe(other.top.digest);
    expect(logs.join('\n')).toMatch(/interrupted, starting it again/);
    await p.close();
  });

  it('says each refusal in one line: 405, 413, quota, 403', async () => {
    const { p } = pusher();
    const other = await buildImage({
      layers: [{ entries: [{ name: 'refused', content: 'no' }] }],
      labels: {},
    });
    const cases: Array<[Fault, RegExp]> = [
      [
        {
          kind: 'refuse',
          on: 'upload',
          times: 10,
          status: 405,
          errorCode: 'UNSUPPORTED',
          message: 'The operation is unsupported.',
        },
        /^error: failed to push image ".*": 127\.0\.0\.1:\d+ does not accept pushes \(HTTP 405\) \(UNSUPPORTED: The operation is unsupported\.\) \(the registry is read-only/,
      ],
      [
        {
          kind: 'refuse',
          on: 'upload',
          method: 'PUT',
          times: 10,
          status: 413,
          errorCode: 'SIZE_INVALID',
          message: 'too big',
        },
        /^error: failed to push image ".*": upload of blob sha256:[0-9a-f]{64}: too large for 127\.0\.0\.1:\d+ \(HTTP 413\)/,
      ],
      [
        {
          kind: 'refuse',
          on: 'upload',
          times: 10,
          status: 403,
          errorCode: 'DENIED',
          message: 'Quota exceeded for repository',
        },
        /^error: failed to push image ".*": upload of blob sha256:[0-9a-f]{64}: quota exceeded in .* \(HTTP 403\) \(DENIED: Quota exceeded for repository\) \(free space/,
      ],
      [
        {
          kind: 'refuse',
          on: 'upload',
          times: 10,
          status: 403,
          errorCode: 'DENIED',
          message: 'requested access to the resource is denied',
        },
        /^error: failed to push image ".*": push to 127\.0\.0\.1:\d+\/ns\/refused denied \(HTTP 403\) .*\(log in with credentials that may push to ns\/refused/,
      ],
    ];
    for (const [fault, line] of cases) {
      fx.proxy.reset();
      fx.proxy.faults.push(fault);
      const err = await failure(p.push(`${fx.proxy.host}/ns/refused:v1`, planOf(other)));
      expect(cliLine(err)).toMatch(line);
      expect(cliLine(err)).not.toContain('\n');
    }
    fx.proxy.reset();
    await expect(
      skopeo(['inspect', '--tls-verify=false', '--raw', `docker://${fx.proxy.host}/ns/refused:v1`]),
    ).rejects.toThrow();
    await p.close();
  });

  it('honours registries.conf: a blocked destination is one line, nothing sent', async () => {
    const conf = path.join(tmp.dir, 'registries.conf');
    writeFileSync(
      conf,
      `[[registry]]\nprefix = "${fx.proxy.host}/blocked"\nlocation = "${fx.proxy.host}/blocked"\nblocked = true\n`,
    );
    const { p } = pusher({ env: { CONTAINERS_REGISTRIES_CONF: conf } });
    fx.proxy.reset();
    const err = await failure(p.push(`${fx.proxy.host}/blocked/x:v1`, planOf(img)));
    expect(err.code).toBe('E_REGISTRY_BLOCKED');
    expect(cliLine(err)).toMatch(
      /^error: failed to push image ".*blocked\/x:v1": registry ".*\/blocked" is blocked by /,
    );
    expect(fx.proxy.counts).toEqual({ blob: 0, manifest: 0, other: 0 });
    await p.close();
  });

  it('refuses to push to a digest, with a hint', async () => {
    const { p } = pusher();
    const err = await failure(p.push(`${fx.plain.host}/ns/x@${img.top.digest}`, planOf(img)));
    expect(cliLine(err)).toMatch(/a digest cannot be pushed to \(name a tag/);
    await p.close();
  });
});
