/**
 * An image read as a base to build on: its top manifest (an index's children for every platform it
 * names), and each platform's config, all checked against their digests. Layers are not fetched:
 * a build names them by digest, and a push streams them only where the destination lacks them.
 */
import { OpmError } from '../../errors.js';
import { digestMismatch, sizeMismatch } from '../blob-cache.js';
import { digestOf, parseDigest } from '../digest.js';
import { header, readBounded } from '../http/types.js';
import type { RegistrySession } from '../auth/session.js';
import {
  MANIFEST_ACCEPT,
  parseManifest,
  type Descriptor,
  type ImageManifest,
  type Platform,
} from '../manifest.js';
import type { ImageReference } from '../reference.js';
import { statusError } from '../registry-errors.js';
import { isRecord } from '../../go/json-value.js';

const MANIFEST_LIMIT = 4 * 1024 * 1024;
const CONFIG_LIMIT = 8 * 1024 * 1024;

export interface RemotePlatformImage {
  platform: Platform;
  manifestDigest: string;
  manifest: ImageManifest;
  /** The config's exact bytes. */
  config: Buffer;
}

export interface RemoteImage {
  /** Where it was read from (a mirror's reference when a mirror served it). */
  ref: ImageReference;
  /** Digest of what the reference names (an index's, for a multi-platform image). */
  digest: string;
  /** The media type of what the reference names: an index or list, or a single manifest's. */
  mediaType: string;
  images: RemotePlatformImage[];
}

function platformOfConfig(config: Buffer): Platform {
  let doc: unknown;
  try {
    doc = JSON.parse(config.toString('utf8'));
  } catch {
    throw new OpmError('invalid image config: not JSON', { code: 'E_MANIFEST_INVALID' });
  }
  if (!isRecord(doc))
    throw new OpmError('invalid image config: not an object', { code: 'E_MANIFEST_INVALID' });
  const os = typeof doc.os === 'string' ? doc.os : 'linux';
  const architecture = typeof doc.architecture === 'string' ? doc.architecture : 'amd64';
  const variant = typeof doc.variant === 'string' && doc.variant !== '' ? doc.variant : undefined;
  return { os, architecture, ...(variant !== undefined ? { variant } : {}) };
}

async function fetchVerified(
  session: RegistrySession,
  ref: ImageReference,
  path: string,
  accept: string,
  what: 'manifest' | 'blob' | 'tag',
  expected: { digest?: string; size?: number },
  limit: number,
  signal: AbortSignal | undefined,
): Promise<{ bytes: Buffer; digest: string; contentType: string | undefined }> {
  const res = await session.get(path, ref.repository, accept, signal);
  if (res.status !== 200) throw await statusError(res, ref, what);
  const bytes = await readBounded(res.body, limit, what === 'blob' ? 'image config' : 'manifest');
  if (expected.size !== undefined && bytes.length !== expected.size)
    throw sizeMismatch(what, expected.digest ?? '', expected.size, bytes.length);
  const want = expected.digest ?? header(res, 'docker-content-digest');
  let digest: string;
  if (want !== undefined && want !== '') {
    const got = digestOf(bytes, parseDigest(want).algorithm);
    if (got !== want) throw digestMismatch(`${what} ${want}`, want, got);
    digest = want;
  } else digest = digestOf(bytes);
  return { bytes, digest, contentType: header(res, 'content-type') };
}

async function platformImage(
  session: RegistrySession,
  ref: ImageReference,
  manifestDigest: string,
  manifest: ImageManifest,
  signal: AbortSignal | undefined,
): Promise<RemotePlatformImage> {
  const c = manifest.config;
  const { bytes } = await fetchVerified(
    session,
    ref,
    `/v2/${ref.repository}/blobs/${c.digest}`,
    '*/*',
    'blob',
    { digest: c.digest, size: c.size },
    CONFIG_LIMIT,
    signal,
  );
  return { platform: platformOfConfig(bytes), manifestDigest, manifest, config: bytes };
}

const IMAGE_TYPES = new Set([
  '',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
]);

/** Read an image's manifests and configs (every platform of an index that names one). */
export async function readRemoteImage(
  session: RegistrySession,
  ref: ImageReference,
  signal?: AbortSignal,
): Promise<RemoteImage> {
  const tagOrDigest = ref.digest ?? ref.tag ?? 'latest';
  const top = await fetchVerified(
    session,
    ref,
    `/v2/${ref.repository}/manifests/${tagOrDigest}`,
    MANIFEST_ACCEPT,
    ref.digest !== undefined ? 'manifest' : 'tag',
    ref.digest !== undefined ? { digest: ref.digest } : {},
    MANIFEST_LIMIT,
    signal,
  );
  const doc = parseManifest(top.bytes, top.contentType);
  if (doc.kind === 'manifest') {
    return {
      ref,
      digest: top.digest,
      mediaType: doc.mediaType,
      images: [await platformImage(session, ref, top.digest, doc, signal)],
    };
  }
  const entries = doc.manifests.filter(
    (d: Descriptor) =>
      IMAGE_TYPES.has(d.mediaType) && d.platform !== undefined && d.platform.os !== 'unknown',
  );
  const images: RemotePlatformImage[] = [];
  for (const d of entries) {
    const child = await fetchVerified(
      session,
      ref,
      `/v2/${ref.repository}/manifests/${d.digest}`,
      MANIFEST_ACCEPT,
      'manifest',
      { digest: d.digest, size: d.size },
      MANIFEST_LIMIT,
      signal,
    );
    const m = parseManifest(child.bytes, d.mediaType);
    if (m.kind !== 'manifest')
      throw new OpmError(`index entry ${d.digest} is itself an index`, { code: 'E_MANIFEST_INVALID' });
    const img = await platformImage(session, ref, d.digest, m, signal);
    // The index's platform is what a client selects by; the config's may lack the variant.
    images.push({ ...img, platform: d.platform ?? img.platform });
  }
  if (images.length === 0)
    throw new OpmError(`${ref.original}: the index names no image for any platform`, {
      code: 'E_MANIFEST_INVALID',
    });
  return { ref, digest: top.digest, mediaType: doc.mediaType, images };
}

/**
 * A layer of a remote image, streamed from the registry each time it is read and checked against
 * its digest and size as it goes (a mismatch fails the read at its end).
 */
export function remoteBlobStream(
  session: RegistrySession,
  ref: ImageReference,
  d: Descriptor,
  signal?: AbortSignal,
): () => AsyncIterable<Uint8Array> {
  return async function* () {
    const res = await session.get(`/v2/${ref.repository}/blobs/${d.digest}`, ref.repository, '*/*', signal);
    if (res.status !== 200) throw await statusError(res, ref, 'blob');
    const { algorithm } = parseDigest(d.digest);
    const hash = process.getBuiltinModule('node:crypto').createHash(algorithm);
    let n = 0;
    for await (const chunk of res.body) {
      n += chunk.length;
      if (n > d.size) {
        res.body.destroy();
        throw sizeMismatch('layer', d.digest, d.size, n);
      }
      hash.update(chunk);
      yield chunk;
    }
    if (n !== d.size) throw sizeMismatch('layer', d.digest, d.size, n);
    const got = `${algorithm}:${hash.digest('hex')}`;
    if (got !== d.digest) throw digestMismatch(`layer ${d.digest}`, d.digest, got);
  };
}
