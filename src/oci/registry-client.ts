import { constants as fsConstants, createReadStream, rmSync } from 'node:fs';
import { access, mkdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { errnoText } from '../go/errno.js';
import { makeOwnedDir, releaseOwned, removeStale } from '../util/owned-temp.js';
import { OpmError } from '../errors.js';
import { RegistrySession, registryError } from './auth/session.js';
import { defaultCacheDir } from '../util/cache-dir.js';
import { BlobStore, digestMismatch, sizeMismatch } from './blob-cache.js';
import { digestOf, hasherFor, parseDigest } from './digest.js';
import type { ImageSource, PulledImage, RegistryOptions } from './image-source.js';
import { Limiter } from '../util/limit.js';
import {
  MANIFEST_ACCEPT,
  formatPlatform,
  hostPlatform,
  listPlatforms,
  parseConfig,
  parseManifest,
  parsePlatformString,
  selectPlatform,
  type Descriptor,
  type ImageManifest,
  type Platform,
} from './manifest.js';
import { formatReference, type ImageReference } from './reference.js';
import type { RegistriesConf } from './registries-conf/config.js';
import { loadRegistriesConf } from './registries-conf/load.js';
import { planPull, type Source } from './registries-conf/plan.js';
import { Transport, readBounded, type HttpResponse } from './transport.js';
import { DEFAULT_LIMITS, Unpacker } from './unpack.js';

const MANIFEST_LIMIT = 4 * 1024 * 1024;
const CONFIG_LIMIT = 4 * 1024 * 1024;
const PULL_CONCURRENCY = 4;
const BLOB_CONCURRENCY = 6;
const BLOB_ATTEMPTS = 3;
/** Layers up to this size are read whole and unpacked without stream plumbing. */
const IN_MEMORY_LAYER = 16 * 1024 * 1024;

function header(res: HttpResponse, name: string): string | undefined {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function short(digest: string): string {
  const i = digest.indexOf(':');
  return `${digest.slice(0, i + 13)}`;
}

function humanSize(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** Pulls images from OCI/Docker registries into a blob cache and unpacks them for render. */
export class RegistryClient implements ImageSource {
  private readonly transport: Transport;
  private readonly sessions = new Map<string, RegistrySession>();
  private readonly pulls = new Limiter(PULL_CONCURRENCY);
  private readonly blobs = new Limiter(BLOB_CONCURRENCY);
  private readonly inflight = new Map<string, Promise<void>>();
  /** Stale temporary folders of dead runs, removed before the first pull. */
  private staleSwept: Promise<void> | undefined;
  /** Whether the cache can be written, found out once. */
  private cacheProbe: Promise<BlobStore | undefined> | undefined;
  private readonly platform: Platform;
  private readonly cache: BlobStore | undefined;
  private readonly log: (line: string) => void;

  private readonly opts: RegistryOptions;
  /** registries.conf, read once on the first pull. */
  private conf: Promise<RegistriesConf> | undefined;

  constructor(opts: RegistryOptions) {
    this.opts = opts;
    this.log = opts.log ?? (() => undefined);
    this.transport = new Transport({
      skipTlsVerify: opts.skipTlsVerify || opts.useHttp,
      env: opts.env,
      ...(opts.certDirs !== undefined ? { certDirs: opts.certDirs } : {}),
      log: this.log,
      warn: (line) => (this.opts.warn ?? this.log)(line),
    });
    if (opts.platform !== undefined && opts.platform !== '') {
      const p = parsePlatformString(opts.platform);
      if (p === undefined) {
        throw new OpmError(`invalid platform "${opts.platform}"`, {
          hint: 'expected os/arch[/variant], e.g. linux/arm64',
        });
      }
      this.platform = p;
    } else {
      this.platform = hostPlatform();
    }
    this.cache =
      opts.noCache === true ? undefined : new BlobStore(opts.cacheDir ?? defaultCacheDir(opts.env));
  }

  private session(ref: ImageReference, insecure = false): RegistrySession {
    const key = `${ref.apiHost}|${insecure}`;
    let s = this.sessions.get(key);
    if (s === undefined) {
      s = new RegistrySession({
        transport: this.transport,
        host: ref.apiHost,
        registry: ref.registry,
        useHttp: this.opts.useHttp,
        skipTlsVerify: this.opts.skipTlsVerify || insecure,
        env: this.opts.env,
        warn: (line) => (this.opts.warn ?? this.log)(`warning: ${line}`),
      });
      this.sessions.set(key, s);
    }
    return s;
  }

  /** registries.conf (and drop-ins), read once; its warnings said once. */
  private registriesConf(): Promise<RegistriesConf> {
    this.conf ??= loadRegistriesConf({
      env: this.opts.env,
      ...(this.opts.configRoot !== undefined ? { root: this.opts.configRoot } : {}),
    }).then((conf) => {
      for (const w of conf.warnings) (this.opts.warn ?? this.log)(`warning: ${w}`);
      return conf;
    });
    return this.conf;
  }

  async pull(refText: string): Promise<PulledImage> {
    const conf = await this.registriesConf();
    let sources: Source[];
    try {
      sources = planPull(conf, refText);
    } catch (err) {
      throw err instanceof OpmError && err.code !== 'E_REGISTRIES_CONF'
        ? new OpmError(`failed to pull image "${refText}": ${err.message}`, {
            code: err.code,
            ...(err.hint !== undefined ? { hint: err.hint } : {}),
            cause: err,
          })
        : err;
    }
    return this.pulls.run(() => this.pullParsed(refText, sources));
  }

  /**
   * Fetch the manifest, config and layers from the first source that has them: mirrors in order,
   * then the source itself. A mirror that fails (unreachable, missing the image, or serving a
   * manifest that does not hash to the digest asked for) passes the pull on to the next source.
   */
  private async fetchImage(
    refText: string,
    sources: Source[],
    store: BlobStore,
  ): Promise<{
    session: RegistrySession;
    ref: ImageReference;
    digest: string;
    manifest: ImageManifest;
    config: Buffer;
  }> {
    const failures: Array<{ source: Source; err: unknown }> = [];
    for (const source of sources) {
      const { ref } = source;
      const session = this.session(ref, source.insecure);
      try {
        if (ref.original !== refText)
          this.log(`trying ${formatReference(ref)}${source.mirror ? ' (mirror)' : ''}`);
        const top = await this.resolveManifest(session, ref, store);
        // Config and layers are fetched together: nothing about the layers depends on the config.
        // All are waited for, so a failed pull leaves nothing running; the first failure in order
        // is reported.
        const configFetch = this.fetchSmall(session, ref, store, top.manifest.config, 'config', CONFIG_LIMIT);
        const fetched = await Promise.allSettled([
          configFetch,
          ...top.manifest.layers.map((l) => this.ensureBlob(session, ref, store, l)),
        ]);
        const failed = fetched.find((r) => r.status === 'rejected');
        if (failed !== undefined) {
          const reason: unknown = failed.reason;
          throw reason;
        }
        return { session, ref, ...top, config: await configFetch };
      } catch (err) {
        if (sources.length === 1) throw err;
        failures.push({ source, err });
        this.log(`${formatReference(ref)}: ${firstLine(err)}`);
      }
    }
    throw new SourcesFailed(failures);
  }

  private async pullParsed(refText: string, sources: Source[]): Promise<PulledImage> {
    let ref = (sources.at(-1) as Source).ref;
    const workDir = this.opts.workDir ?? os.tmpdir();
    let scratch: string | undefined;
    let root: string | undefined;
    try {
      let store = await this.usableCache();
      if (this.staleSwept === undefined) this.staleSwept = sweepStale(workDir);
      await this.staleSwept;
      if (store === undefined) {
        await mkdir(workDir, { recursive: true });
        scratch = await makeOwnedDir(workDir, 'opm-blobs-');
        store = new BlobStore(scratch);
      }
      this.log(`pulling ${refText}`);
      const top = await this.fetchImage(refText, sources, store);
      ({ ref } = top);
      const { session } = top;
      const image = parseConfig(top.config);
      await mkdir(workDir, { recursive: true });
      root = await makeOwnedDir(workDir, 'opm-unpack-');
      try {
        await this.unpack(root, refText, store, top.manifest.layers);
      } catch (err) {
        if (!(err instanceof DamagedCacheBlob)) throw err;
        // A cached layer was damaged on disk (it was dropped): fetch it again and start over, once.
        (this.opts.warn ?? this.log)(
          `warning: cached layer ${err.digest} of ${refText} was damaged; downloading it again`,
        );
        const layer = top.manifest.layers.find((l) => l.digest === err.digest);
        if (layer !== undefined) await this.ensureBlob(session, ref, store, layer);
        await rm(root, { recursive: true, force: true });
        await mkdir(root);
        await this.unpack(root, refText, store, top.manifest.layers);
      }
      const unpacked = root;
      let released = false;
      return {
        ref: refText,
        digest: top.digest,
        labels: image.labels,
        root: unpacked,
        release: async () => {
          if (released) return;
          released = true;
          // Synchronous: a few small files go faster than one thread-pool turn per file.
          rmSync(unpacked, { recursive: true, force: true });
          releaseOwned(unpacked);
        },
      };
    } catch (err) {
      if (root !== undefined) {
        await rm(root, { recursive: true, force: true });
        releaseOwned(root);
      }
      throw err instanceof SourcesFailed ? err.forImage(refText) : this.pullError(refText, ref, err);
    } finally {
      if (scratch !== undefined) {
        await rm(scratch, { recursive: true, force: true });
        releaseOwned(scratch);
      }
    }
  }

  private pullError(refText: string, ref: ImageReference, err: unknown): OpmError {
    if (!(err instanceof OpmError)) {
      const msg = err instanceof Error ? err.message : String(err);
      return new OpmError(`failed to pull image "${refText}": ${ref.apiHost}: ${msg.split('\n')[0] ?? ''}`, {
        code: 'E_REGISTRY',
        cause: err,
      });
    }
    const msg = err.message.split('\n')[0] ?? '';
    const withHost = msg.startsWith(`${ref.apiHost}: `) ? msg : `${ref.apiHost}: ${msg}`;
    return new OpmError(`failed to pull image "${refText}": ${withHost}`, {
      code: err.code,
      ...(err.hint !== undefined ? { hint: err.hint } : {}),
      cause: err,
    });
  }

  /** Resolve the reference to one image manifest, stepping through an index for the platform. */
  private async resolveManifest(
    session: RegistrySession,
    ref: ImageReference,
    store: BlobStore,
  ): Promise<{ digest: string; manifest: ImageManifest }> {
    let bytes: Buffer;
    let digest: string;
    let contentType: string | undefined;
    if (ref.digest !== undefined) {
      digest = ref.digest;
      const cached = await store.readSmall(digest);
      if (cached !== undefined) bytes = cached;
      else ({ bytes, contentType } = await this.fetchManifest(session, ref, digest, store));
    } else {
      ({ bytes, contentType, digest } = await this.fetchManifest(session, ref, ref.tag ?? 'latest', store));
    }
    const top = parseManifest(bytes, contentType);
    if (top.kind === 'manifest') return { digest, manifest: top };
    const pick = selectPlatform(top, this.platform);
    if (pick === undefined) {
      throw new OpmError(
        `no image for platform ${formatPlatform(this.platform)} (found: ${listPlatforms(top)})`,
        {
          code: 'E_PLATFORM_NOT_FOUND',
          hint: 'choose one of the listed platforms with --platform',
        },
      );
    }
    const childBytes = await this.fetchSmall(session, ref, store, pick, 'manifest', MANIFEST_LIMIT, true);
    const child = parseManifest(childBytes, pick.mediaType);
    if (child.kind !== 'manifest') {
      throw new OpmError(`index entry ${pick.digest} is itself an index`, { code: 'E_MANIFEST_INVALID' });
    }
    return { digest, manifest: child };
  }

  private async fetchManifest(
    session: RegistrySession,
    ref: ImageReference,
    tagOrDigest: string,
    store: BlobStore,
  ): Promise<{ bytes: Buffer; contentType: string | undefined; digest: string }> {
    const res = await session.get(
      `/v2/${ref.repository}/manifests/${tagOrDigest}`,
      ref.repository,
      MANIFEST_ACCEPT,
    );
    if (res.status !== 200)
      throw await this.statusError(res, ref, tagOrDigest.includes(':') ? 'manifest' : 'tag');
    const bytes = await readBounded(res.body, MANIFEST_LIMIT, 'manifest');
    const byDigest = tagOrDigest.includes(':');
    const expected = byDigest ? tagOrDigest : header(res, 'docker-content-digest');
    let digest: string;
    if (expected !== undefined && expected !== '') {
      const got = digestOf(bytes, parseDigest(expected).algorithm);
      if (got !== expected)
        throw digestMismatch(
          `manifest ${byDigest ? tagOrDigest : `for tag "${tagOrDigest}"`}`,
          expected,
          got,
        );
      digest = expected;
    } else {
      digest = digestOf(bytes);
    }
    // A tag that still points where it did needs no second copy of its manifest.
    if (this.cache !== undefined && (await store.lookup(digest, bytes.length)) === undefined)
      await store.putVerified(digest, bytes);
    return { bytes, contentType: header(res, 'content-type'), digest };
  }

  private async statusError(
    res: HttpResponse,
    ref: ImageReference,
    what: 'tag' | 'manifest' | 'blob',
  ): Promise<OpmError> {
    const e = await registryError(res);
    const detail = e.code !== '' ? ` (${e.code}${e.message !== '' ? `: ${e.message}` : ''})` : '';
    if (res.status === 404) {
      if (e.code === 'NAME_UNKNOWN') {
        return new OpmError(`repository "${ref.repository}" not found${detail}`, {
          code: 'E_REGISTRY_NOT_FOUND',
          hint: 'check the repository name',
        });
      }
      const thing =
        what === 'tag'
          ? `tag "${ref.tag ?? 'latest'}"`
          : what === 'manifest'
            ? `manifest ${ref.digest ?? ''}`
            : 'blob';
      return new OpmError(`${thing} not found in repository "${ref.repository}"${detail}`, {
        code: 'E_REGISTRY_NOT_FOUND',
        hint: 'check the repository name and the tag or digest',
      });
    }
    if (res.status === 403) {
      return new OpmError(`access denied (HTTP 403)${detail}`, { code: 'E_REGISTRY_AUTH' });
    }
    if (res.status === 429) {
      return new OpmError(`rate limited (HTTP 429)${detail}`, {
        code: 'E_REGISTRY_RATE_LIMIT',
        hint: 'retry later',
      });
    }
    return new OpmError(`unexpected HTTP ${res.status}${detail}`, { code: 'E_REGISTRY_HTTP' });
  }

  /** A small blob (config or child manifest) by descriptor: from the store, else fetched and checked. */
  private async fetchSmall(
    session: RegistrySession,
    ref: ImageReference,
    store: BlobStore,
    d: Descriptor,
    what: 'config' | 'manifest',
    limit: number,
    isManifest = false,
  ): Promise<Buffer> {
    if (d.size > limit)
      throw new OpmError(`${what} ${d.digest} is too large (${d.size} bytes)`, {
        code: 'E_MANIFEST_INVALID',
      });
    const cached = await store.readSmall(d.digest);
    if (cached !== undefined && cached.length === d.size) return cached;
    let bytes: Buffer;
    if (isManifest) {
      const res = await session.get(
        `/v2/${ref.repository}/manifests/${d.digest}`,
        ref.repository,
        MANIFEST_ACCEPT,
      );
      if (res.status !== 200) throw await this.statusError(res, ref, 'manifest');
      bytes = await readBounded(res.body, limit, what);
    } else {
      await this.ensureBlob(session, ref, store, d, what);
      const b = await store.readSmall(d.digest);
      if (b === undefined)
        throw new OpmError(`${what} ${d.digest} vanished from the cache`, { code: 'E_CACHE' });
      return b;
    }
    if (bytes.length !== d.size) throw sizeMismatch(what, d.digest, d.size, bytes.length);
    const got = digestOf(bytes, parseDigest(d.digest).algorithm);
    if (got !== d.digest) throw digestMismatch(`${what} ${d.digest}`, d.digest, got);
    await store.putVerified(d.digest, bytes);
    return bytes;
  }

  /** Make sure a blob is in the store, downloading it at most once even when several pulls need it. */
  private async ensureBlob(
    session: RegistrySession,
    ref: ImageReference,
    store: BlobStore,
    d: Descriptor,
    what = 'layer',
  ): Promise<void> {
    if ((await store.lookup(d.digest, d.size)) !== undefined) {
      return;
    }
    const key = `${store.root}|${d.digest}`;
    let p = this.inflight.get(key);
    if (p === undefined) {
      p = this.blobs
        .run(() => this.download(session, ref, store, d, what))
        .finally(() => this.inflight.delete(key));
      this.inflight.set(key, p);
    }
    await p;
  }

  private async download(
    session: RegistrySession,
    ref: ImageReference,
    store: BlobStore,
    d: Descriptor,
    what: string,
  ): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const res = await session.get(`/v2/${ref.repository}/blobs/${d.digest}`, ref.repository, '*/*');
      if (res.status !== 200) throw await this.statusError(res, ref, 'blob');
      try {
        await store.write(d.digest, d.size, res.body, what);
        this.log(`fetched ${what} ${short(d.digest)} (${humanSize(d.size)})`);
        return;
      } catch (err) {
        res.body.destroy();
        // A connection dropped mid-body is worth another try; wrong content is not.
        if (err instanceof OpmError || attempt >= BLOB_ATTEMPTS) {
          if (err instanceof OpmError) throw err;
          throw new OpmError(
            `${what} ${d.digest}: download failed: ${err instanceof Error ? err.message : String(err)}`,
            {
              code: 'E_REGISTRY_TRANSFER',
              cause: err,
            },
          );
        }
        this.log(`${what} ${short(d.digest)}: download interrupted, retrying`);
      }
    }
  }

  /**
   * Unpack a layer from the store without hashing it again. Blobs enter the store only through an
   * atomic rename after their digest and size were checked, the store is private to the user and its
   * files are read-only, and `lookup` checked the size; hashing every cached layer on every run would
   * cost as much as a third of a warm render of a large catalog. Damage that still gets in (a disk
   * error, someone editing the cache) breaks the gzip or zstd checksums or the tar structure, so when
   * unpacking fails for such a reason the blob is hashed then, and dropped from the cache if it no
   * longer matches, so the next run downloads it again. Damage inside an uncompressed layer that
   * keeps the tar structure intact is not detected; such layers are rare in bundle and catalog images.
   */
  private async applyStoredLayer(unpacker: Unpacker, store: BlobStore, d: Descriptor): Promise<void> {
    const file = store.pathOf(d.digest);
    try {
      if (d.size <= IN_MEMORY_LAYER) await unpacker.applyLayerBytes(await readFile(file));
      else await unpacker.applyLayer(createReadStream(file));
    } catch (err) {
      // Unsafe entries and size limits are about the image's content, which decoded fine.
      if (err instanceof OpmError && (err.code === 'E_UNSAFE_LAYER' || err.code === 'E_UNPACK_LIMIT'))
        throw err;
      const got = await hashFile(file, d.digest).catch(() => undefined);
      if (got !== undefined && got !== d.digest) {
        await rm(file, { force: true });
        throw new DamagedCacheBlob(d.digest, digestMismatch(`cached layer ${d.digest}`, d.digest, got));
      }
      throw err;
    }
  }

  /**
   * The blob cache, if it can be written: a cache is only an optimisation, so an unwritable one (no
   * home folder, a read-only OLM_CACHE_DIR) is said once and the pulls go on without it.
   */
  private usableCache(): Promise<BlobStore | undefined> {
    const cache = this.cache;
    if (cache === undefined) return Promise.resolve(undefined);
    this.cacheProbe ??= (async () => {
      try {
        await mkdir(path.join(cache.root, 'tmp'), { recursive: true });
        await access(path.join(cache.root, 'tmp'), fsConstants.W_OK);
        return cache;
      } catch (err) {
        (this.opts.warn ?? this.log)(
          `warning: the image cache ${cache.root} cannot be written (${errnoText(err)}); pulling without it (set OLM_CACHE_DIR to a writable folder to cache images)`,
        );
        return undefined;
      }
    })();
    return this.cacheProbe;
  }

  private async unpack(root: string, refText: string, store: BlobStore, layers: Descriptor[]): Promise<void> {
    const unpacker = new Unpacker(root, `layer of ${refText}`, {
      ...DEFAULT_LIMITS,
      ...(this.opts.maxUnpackedBytes !== undefined ? { maxBytes: this.opts.maxUnpackedBytes } : {}),
    });
    for (const layer of layers) await this.applyStoredLayer(unpacker, store, layer);
    await unpacker.finish();
  }

  /** Close idle connections. */
  async close(): Promise<void> {
    await this.transport.close();
  }
}

async function hashFile(file: string, digest: string): Promise<string> {
  const hash = hasherFor(digest);
  for await (const chunk of createReadStream(file))
    hash.update(Buffer.isBuffer(chunk) ? chunk : String(chunk));
  return `${parseDigest(digest).algorithm}:${hash.digest('hex')}`;
}

export function createImageSource(opts: RegistryOptions): ImageSource {
  return new RegistryClient(opts);
}

/** Unpacked images and scratch blobs that interrupted runs left in the work folder (once per client). */
async function sweepStale(workDir: string): Promise<void> {
  await Promise.all([removeStale(workDir, 'opm-unpack-'), removeStale(workDir, 'opm-blobs-')]);
}

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
}

/** Every source of a pull failed: one line naming each source tried and why it failed. */
class SourcesFailed extends Error {
  readonly failures: Array<{ source: Source; err: unknown }>;
  constructor(failures: Array<{ source: Source; err: unknown }>) {
    super('every source failed');
    this.failures = failures;
  }

  forImage(refText: string): OpmError {
    const parts = this.failures.map(({ source, err }) => {
      const host = `${source.ref.apiHost}: `;
      let msg = firstLine(err);
      if (msg.startsWith(host)) msg = msg.slice(host.length);
      return `${formatReference(source.ref)}${source.mirror ? ' (mirror)' : ''}: ${msg}`;
    });
    const last: unknown = this.failures.at(-1)?.err;
    return new OpmError(
      `failed to pull image "${refText}": all ${this.failures.length} sources failed: ${parts.join('; ')}`,
      {
        code: last instanceof OpmError ? last.code : 'E_REGISTRY',
        hint: 'the sources come from registries.conf mirrors and locations; check each one listed',
        cause: last,
      },
    );
  }
}

/** A cached layer no longer matched its digest and was removed from the cache. */
class DamagedCacheBlob extends OpmError {
  readonly digest: string;
  constructor(digest: string, cause: OpmError) {
    super(cause.message, { code: cause.code, cause });
    this.digest = digest;
  }
}
