import { constants as fsConstants, rmSync } from 'node:fs';
import { access, mkdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { errnoText } from '../go/errno.js';
import { makeOwnedDir, releaseOwned, removeStale } from '../util/owned-temp.js';
import { OpmError } from '../errors.js';
import { defaultCacheDir } from '../util/cache-dir.js';
import { BlobStore } from './blob-cache.js';
import type {
  ImageSource,
  ImageSourceOptions,
  PullOptions,
  PulledImage,
  RegistryOptions,
} from './image-source.js';
import {
  expectObject,
  expectOptionalBoolean,
  expectOptionalFunction,
  expectOptionalString,
  expectOptions,
  expectString,
} from '../util/args.js';
import { Limiter } from '../util/limit.js';
import { hostPlatform, parseConfig, parsePlatformString, type Platform } from './manifest.js';
import { formatReference, type ImageReference } from './reference.js';
import type { RegistriesConf } from './registries-conf/config.js';
import { loadRegistriesConf } from './registries-conf/load.js';
import { planPull, type Source } from './registries-conf/plan.js';
import { SessionPool } from './sessions.js';
import { Transport } from './transport.js';
import { BlobFetcher } from './pull/blob-fetcher.js';
import { DamagedCacheBlob, unpackImage } from './pull/image-unpacker.js';
import { ManifestResolver, type ResolvedManifest } from './pull/manifest-resolver.js';
import { MirrorHealth, SourcesFailed, firstSource, mirrorBudgetMs } from './pull/sources.js';
import type { PullTarget } from './pull/target.js';
import { PullMeter } from './pull/pull-meter.js';
import { progressId } from '../util/progress.js';

const CONFIG_LIMIT = 4 * 1024 * 1024;
const PULL_CONCURRENCY = 4;

/**
 * Pulls images from OCI/Docker registries into a blob cache and unpacks them for render. The pieces
 * it is made of (sessions, manifest resolution, blob fetching, unpacking, the transport under them)
 * stand on their own, for other users of a registry.
 */
export class RegistryClient implements ImageSource {
  private readonly transport: Transport;
  private readonly sessions: SessionPool;
  private readonly pulls = new Limiter(PULL_CONCURRENCY);
  private readonly blobs: BlobFetcher;
  private readonly manifests: ManifestResolver;
  private readonly mirrors: MirrorHealth;
  /** Stale temporary folders of dead runs, removed before the first pull. */
  private staleSwept: Promise<void> | undefined;
  /** Whether the cache can be written, found out once. */
  private cacheProbe: Promise<BlobStore | undefined> | undefined;
  private readonly cache: BlobStore | undefined;
  private readonly log: (line: string) => void;
  private readonly warn: (line: string) => void;

  private readonly opts: RegistryOptions;
  /** registries.conf, read once on the first pull. */
  private conf: Promise<RegistriesConf> | undefined;

  constructor(opts: RegistryOptions) {
    this.opts = opts;
    this.log = opts.log ?? (() => undefined);
    this.warn = (line) => (this.opts.warn ?? this.log)(line);
    this.transport = new Transport({
      skipTlsVerify: opts.skipTlsVerify || opts.useHttp,
      env: opts.env,
      ...(opts.certDirs !== undefined ? { certDirs: opts.certDirs } : {}),
      ...(opts.rootCaPem !== undefined ? { rootCaPem: opts.rootCaPem } : {}),
      log: this.log,
      warn: this.warn,
    });
    this.sessions = new SessionPool({
      transport: this.transport,
      useHttp: opts.useHttp,
      skipTlsVerify: opts.skipTlsVerify,
      env: opts.env,
      warn: this.warn,
    });
    let platform: Platform;
    if (opts.platform !== undefined && opts.platform !== '') {
      const p = parsePlatformString(opts.platform);
      if (p === undefined) {
        throw new OpmError(`invalid platform "${opts.platform}"`, {
          hint: 'expected os/arch[/variant], e.g. linux/arm64',
        });
      }
      platform = p;
    } else {
      platform = hostPlatform();
    }
    this.cache =
      opts.noCache === true ? undefined : new BlobStore(opts.cacheDir ?? defaultCacheDir(opts.env));
    this.manifests = new ManifestResolver(platform, this.cache !== undefined);
    this.blobs = new BlobFetcher({ log: this.log, bodyDeadlineMs: this.transport.timeouts.bodyDeadlineMs });
    this.mirrors = new MirrorHealth(mirrorBudgetMs(opts.env), this.warn);
  }

  /** registries.conf (and drop-ins), read once; its warnings said once. */
  private registriesConf(): Promise<RegistriesConf> {
    this.conf ??= loadRegistriesConf({
      env: this.opts.env,
      ...(this.opts.configRoot !== undefined ? { root: this.opts.configRoot } : {}),
    }).then((conf) => {
      for (const w of conf.warnings) this.warn(`warning: ${w}`);
      return conf;
    });
    return this.conf;
  }

  async pull(refText: string, options?: PullOptions): Promise<PulledImage> {
    expectString(refText, 'pull(ref)', 'an image reference');
    expectOptions(options, 'pull(ref, options)');
    const signal = options?.signal;
    if (
      signal !== undefined &&
      typeof (signal as Partial<AbortSignal> | null)?.throwIfAborted !== 'function'
    ) {
      throw new TypeError('pull(ref, options).signal must be an AbortSignal');
    }
    signal?.throwIfAborted();
    const conf = await this.registriesConf();
    signal?.throwIfAborted();
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
    if (signal === undefined) return this.pulls.run(() => this.pullParsed(refText, sources, undefined));
    // A pull still waiting for its turn stops at once; one under way stops itself and cleans up first.
    let started = false;
    const run = this.pulls.run(() => {
      signal.throwIfAborted();
      started = true;
      return this.pullParsed(refText, sources, signal);
    });
    run.catch(() => undefined);
    return new Promise<PulledImage>((resolve, reject) => {
      const onAbort = (): void => {
        if (!started) reject(signal.reason as Error);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      run.then(
        (pulled) => {
          signal.removeEventListener('abort', onAbort);
          resolve(pulled);
        },
        (err: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject((signal.aborted ? signal.reason : err) as Error);
        },
      );
    });
  }

  /**
   * Fetch the manifest, config and layers from the first source that has them: mirrors in order,
   * then the source itself. A mirror that fails (unreachable, missing the image, or serving a
   * manifest that does not hash to the digest asked for) passes the pull on to the next source.
   */
  private fetchImage(
    refText: string,
    sources: Source[],
    store: BlobStore,
    signal: AbortSignal | undefined,
    meter: PullMeter | undefined,
  ): Promise<ResolvedManifest & { target: PullTarget; config: Buffer }> {
    return firstSource(sources, this.mirrors, this.log, signal, async (source) => {
      const { ref } = source;
      const target: PullTarget = {
        session: this.sessions.for(ref, source.insecure, source.mirror),
        ref,
        store,
        signal,
        ...(meter === undefined
          ? {}
          : { onBlobBytes: (digest: string, got: number) => meter.received(digest, got) }),
      };
      if (ref.original !== refText)
        this.log(`trying ${formatReference(ref)}${source.mirror ? ' (mirror)' : ''}`);
      const top = await this.manifests.resolve(target);
      // Config and layers are fetched together: nothing about the layers depends on the config.
      // All are waited for, so a failed pull leaves nothing running; the first failure in order
      // is reported.
      const { config, layers } = top.manifest;
      meter?.begin([config, ...layers]);
      const configFetch = this.blobs.readSmall(target, config, 'config', CONFIG_LIMIT);
      void configFetch.then(
        () => meter?.stored(config),
        () => undefined,
      );
      const fetched = await Promise.allSettled([
        configFetch,
        ...layers.map((l) => this.blobs.ensure(target, l).then(() => meter?.stored(l))),
      ]);
      const failed = fetched.find((r) => r.status === 'rejected');
      if (failed !== undefined) {
        const reason: unknown = failed.reason;
        throw reason;
      }
      return { ...top, target, config: await configFetch };
    });
  }

  private async pullParsed(
    refText: string,
    sources: Source[],
    signal: AbortSignal | undefined,
  ): Promise<PulledImage> {
    let ref: ImageReference = (sources.at(-1) as Source).ref;
    const workDir = this.opts.workDir ?? os.tmpdir();
    let scratch: string | undefined;
    let root: string | undefined;
    const progress = this.opts.onProgress;
    const meter = progress === undefined ? undefined : new PullMeter(progress, progressId(), refText);
    try {
      let store = await this.usableCache();
      if (this.staleSwept === undefined) this.staleSwept = sweepStale(workDir);
      await this.staleSwept;
      signal?.throwIfAborted();
      if (store === undefined) {
        await mkdir(workDir, { recursive: true });
        scratch = await makeOwnedDir(workDir, 'opm-blobs-');
        store = new BlobStore(scratch);
      }
      if (meter === undefined) this.log(`pulling ${refText}`);
      else meter.start();
      const top = await this.fetchImage(refText, sources, store, signal, meter);
      const { target } = top;
      ({ ref } = target);
      const image = parseConfig(top.config);
      await mkdir(workDir, { recursive: true });
      signal?.throwIfAborted();
      root = await makeOwnedDir(workDir, 'opm-unpack-');
      let modes: ReadonlyMap<string, number> = new Map();
      const unpack = async (into: string): Promise<void> => {
        modes = await unpackImage(into, `layer of ${refText}`, target.store, top.manifest.layers, {
          ...(this.opts.maxUnpackedBytes !== undefined ? { maxBytes: this.opts.maxUnpackedBytes } : {}),
          signal,
        });
      };
      try {
        await unpack(root);
      } catch (err) {
        if (!(err instanceof DamagedCacheBlob)) throw err;
        // A cached layer was damaged on disk (it was dropped): fetch it again and start over, once.
        this.warn(`warning: cached layer ${err.digest} of ${refText} was damaged; downloading it again`);
        const layer = top.manifest.layers.find((l) => l.digest === err.digest);
        if (layer !== undefined) await this.blobs.ensure(target, layer);
        await rm(root, { recursive: true, force: true });
        await mkdir(root);
        await unpack(root);
      }
      const unpacked = root;
      let released = false;
      meter?.done();
      return {
        ref: refText,
        digest: top.digest,
        labels: image.labels,
        cmd: image.cmd,
        root: unpacked,
        modes,
        // Inside the executor, a failure to remove rejects the promise rather than throwing.
        release: () =>
          new Promise<void>((resolve) => {
            if (!released) {
              released = true;
              // Synchronous: a few small files go faster than one thread-pool turn per file.
              rmSync(unpacked, { recursive: true, force: true });
              releaseOwned(unpacked);
            }
            resolve();
          }),
      };
    } catch (err) {
      meter?.failed();
      if (root !== undefined) {
        await rm(root, { recursive: true, force: true });
        releaseOwned(root);
      }
      if (signal?.aborted === true) throw signal.reason;
      throw err instanceof SourcesFailed ? err.forImage(refText) : pullError(refText, ref, err);
    } finally {
      if (scratch !== undefined) {
        await rm(scratch, { recursive: true, force: true });
        releaseOwned(scratch);
      }
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
        this.warn(
          `warning: the image cache ${cache.root} cannot be written (${errnoText(err)}); pulling without it (set OLM_CACHE_DIR to a writable folder to cache images)`,
        );
        return undefined;
      }
    })();
    return this.cacheProbe;
  }

  /** Close idle connections. */
  async close(): Promise<void> {
    await this.transport.close();
  }
}

function pullError(refText: string, ref: ImageReference, err: unknown): OpmError {
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

/**
 * The registry client: pulls images as opm does (credentials from the usual files and helpers,
 * registries.conf mirrors, blobs cached by digest), for `render`, `filter`, `diff`,
 * `listImages` and `validateCatalog`'s `with`, or on its own with `pull(ref)`.
 *
 * @example
 * const images = createImageSource({ platform: 'linux/arm64', log: (line) => console.error(line) });
 * const image = await images.pull('quay.io/example/catalog:latest');
 * try { console.log(image.digest, image.root); } finally { await image.release(); }
 */
export function createImageSource(opts: ImageSourceOptions = {}): ImageSource {
  expectOptions(opts, 'createImageSource(options)');
  for (const key of ['skipTlsVerify', 'useHttp', 'noCache'] as const) {
    expectOptionalBoolean(opts[key], `createImageSource(options).${key}`);
  }
  for (const key of ['platform', 'cacheDir', 'workDir', 'configRoot', 'rootCaPem'] as const) {
    expectOptionalString(opts[key], `createImageSource(options).${key}`);
  }
  for (const key of ['log', 'warn'] as const)
    expectOptionalFunction(opts[key], `createImageSource(options).${key}`);
  if (opts.env !== undefined)
    expectObject(opts.env, 'createImageSource(options).env', 'process.env or a copy of it');
  const full: RegistryOptions = {
    ...opts,
    skipTlsVerify: opts.skipTlsVerify ?? false,
    useHttp: opts.useHttp ?? false,
    // The library's entry (index.ts) passes the process's environment when its caller gives none.
    env: opts.env ?? {},
  };
  return new RegistryClient(full);
}

/** Unpacked images and scratch blobs that interrupted runs left in the work folder (once per client). */
async function sweepStale(workDir: string): Promise<void> {
  await Promise.all([removeStale(workDir, 'opm-unpack-'), removeStale(workDir, 'opm-blobs-')]);
}
