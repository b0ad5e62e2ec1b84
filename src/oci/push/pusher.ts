/**
 * The push side of the registry client: reads base images (manifests and configs, never layers
 * unless asked) and pushes images, with the same credentials, TLS trust, proxies and registries.conf
 * (blocked registries, `insecure`, `location` rewrites; mirrors are for pulls only) as pulls.
 */
import { OpmError } from '../../errors.js';
import { defaultCacheDir } from '../../util/cache-dir.js';
import { BlobStore } from '../blob-cache.js';
import type { RegistryOptions } from '../image-source.js';
import type { Descriptor } from '../manifest.js';
import { formatReference, type ImageReference } from '../reference.js';
import type { RegistriesConf } from '../registries-conf/config.js';
import { loadRegistriesConf } from '../registries-conf/load.js';
import { planPull, type Source } from '../registries-conf/plan.js';
import type { RegistrySession } from '../auth/session.js';
import { SessionPool } from '../sessions.js';
import { Transport } from '../transport.js';
import { fileBlob, type BlobSource } from './blob-source.js';
import { BlobUploader, type PushTarget } from './blob-upload.js';
import { pushPlan, type PushPlan, type PushResult } from './image-push.js';
import { readRemoteImage, remoteBlobStream, type RemoteImage } from './remote-image.js';

export interface PusherOptions extends RegistryOptions {
  /** Blobs larger than this go up in PATCHes of this size (default 32 MiB). */
  chunkSize?: number;
  /** Transport attempts per request (tests lower it). */
  attempts?: number;
}

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
}

/** The same error, its message prefixed as opm-ts words a failed push or read. */
function wrap(prefix: string, host: string, err: unknown): OpmError {
  const msg = firstLine(err);
  // A message that names the host already is not given it twice.
  const withHost = host === '' || msg.includes(host) ? msg : `${host}: ${msg}`;
  return new OpmError(`${prefix}: ${withHost}`, {
    code: err instanceof OpmError ? err.code : 'E_REGISTRY',
    ...(err instanceof OpmError && err.hint !== undefined ? { hint: err.hint } : {}),
    cause: err,
  });
}

export class RegistryPusher {
  private readonly transport: Transport;
  private readonly sessions: SessionPool;
  private readonly uploader: BlobUploader;
  private readonly cache: BlobStore | undefined;
  private readonly opts: PusherOptions;
  private readonly log: (line: string) => void;
  private conf: Promise<RegistriesConf> | undefined;
  /** The session each read image came through (a mirror's, an `insecure` registry's). */
  private readonly readThrough = new WeakMap<RemoteImage, RegistrySession>();

  constructor(opts: PusherOptions) {
    this.opts = opts;
    this.log = opts.log ?? (() => undefined);
    const warn = (line: string): void => (opts.warn ?? this.log)(line);
    this.transport = new Transport({
      skipTlsVerify: opts.skipTlsVerify || opts.useHttp,
      env: opts.env,
      ...(opts.certDirs !== undefined ? { certDirs: opts.certDirs } : {}),
      ...(opts.attempts !== undefined ? { attempts: opts.attempts, backoffMs: 50 } : {}),
      log: this.log,
      warn,
    });
    this.sessions = new SessionPool({
      transport: this.transport,
      useHttp: opts.useHttp,
      skipTlsVerify: opts.skipTlsVerify,
      env: opts.env,
      warn,
    });
    this.uploader = new BlobUploader({
      log: this.log,
      ...(opts.chunkSize !== undefined ? { chunkSize: opts.chunkSize } : {}),
    });
    this.cache =
      opts.noCache === true ? undefined : new BlobStore(opts.cacheDir ?? defaultCacheDir(opts.env));
  }

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

  private async sources(refText: string): Promise<Source[]> {
    return planPull(await this.registriesConf(), refText);
  }

  /** Read an image's manifests and configs: mirrors first, as pulls do, then the source. */
  async readImage(refText: string, signal?: AbortSignal): Promise<RemoteImage> {
    let sources: Source[];
    try {
      sources = await this.sources(refText);
    } catch (err) {
      throw wrap(`failed to read image "${refText}"`, '', err);
    }
    let last: unknown;
    for (const s of sources) {
      try {
        const session = this.sessions.for(s.ref, s.insecure, s.mirror);
        const remote = await readRemoteImage(session, s.ref, signal);
        this.readThrough.set(remote, session);
        return remote;
      } catch (err) {
        if (signal?.aborted === true) throw signal.reason;
        last = wrap(`failed to read image "${refText}"`, s.ref.apiHost, err);
        if (s.mirror) this.log(`mirror ${formatReference(s.ref)}: ${firstLine(err)}; trying the next source`);
      }
    }
    throw last;
  }

  /**
   * A layer of a read image as a blob to push: mounted when the destination is the base's
   * registry, else read from the blob cache when it holds it, else streamed from the base's registry.
   */
  async baseLayer(base: RemoteImage, d: Descriptor, signal?: AbortSignal): Promise<BlobSource> {
    const cached = await this.cache?.lookup(d.digest, d.size);
    const session = this.readThrough.get(base) ?? this.sessions.for(base.ref, false, false);
    return {
      ...(cached !== undefined
        ? fileBlob(d.digest, d.mediaType, cached, d.size)
        : {
            digest: d.digest,
            mediaType: d.mediaType,
            length: d.size,
            open: remoteBlobStream(session, base.ref, d, signal),
          }),
      mountFrom: { registry: base.ref.registry, repository: base.ref.repository },
    };
  }

  /** Push a plan to `refText` (its tag, or by digest when it names none): the digest pushed. */
  async push(
    refText: string,
    plan: PushPlan,
    options: { signal?: AbortSignal; onBytes?: (digest: string, sent: number) => void } = {},
  ): Promise<PushResult> {
    let target: PushTarget;
    let ref: ImageReference;
    try {
      const sources = await this.sources(refText);
      const primary = sources.filter((s) => !s.mirror).at(-1) ?? sources.at(-1);
      if (primary === undefined) throw new OpmError(`no registry for ${refText}`);
      ref = primary.ref;
      if (ref.digest !== undefined)
        throw new OpmError(`invalid push reference "${refText}": a digest cannot be pushed to`, {
          code: 'E_IMAGE_REFERENCE',
          hint: 'name a tag (registry/repository:tag); the digest is printed after the push',
        });
      target = {
        session: this.sessions.for(ref, primary.insecure, false),
        ref,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onBytes ? { onBytes: options.onBytes } : {}),
      };
    } catch (err) {
      throw err instanceof OpmError && err.code === 'E_IMAGE_REFERENCE'
        ? err
        : wrap(`failed to push image "${refText}"`, '', err);
    }
    try {
      return await pushPlan(target, this.uploader, plan, ref.tag, this.log);
    } catch (err) {
      if (options.signal?.aborted === true) throw options.signal.reason;
      throw wrap(`failed to push image "${refText}"`, ref.apiHost, err);
    }
  }

  async close(): Promise<void> {
    await this.transport.close();
  }
}
