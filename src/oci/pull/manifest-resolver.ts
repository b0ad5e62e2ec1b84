/**
 * A reference to one image manifest: the top manifest by tag or digest (checked against the digest
 * asked for, or the registry's Docker-Content-Digest), stepping through an index to the platform's
 * image.
 */
import { OpmError } from '../../errors.js';
import { digestMismatch, sizeMismatch } from '../blob-cache.js';
import { digestOf, parseDigest } from '../digest.js';
import { header, readBounded } from '../http/types.js';
import {
  MANIFEST_ACCEPT,
  formatPlatform,
  listPlatforms,
  parseManifest,
  selectPlatform,
  type Descriptor,
  type ImageManifest,
  type Platform,
} from '../manifest.js';
import { statusError } from '../registry-errors.js';
import type { PullTarget } from './target.js';

const MANIFEST_LIMIT = 4 * 1024 * 1024;

export interface ResolvedManifest {
  /** Digest of the top manifest (an index's, when the reference names one). */
  digest: string;
  manifest: ImageManifest;
}

export class ManifestResolver {
  private readonly platform: Platform;
  private readonly keepTopManifests: boolean;

  /** `keepTopManifests`: store the manifests fetched by tag in the blob store (a lasting cache). */
  constructor(platform: Platform, keepTopManifests: boolean) {
    this.platform = platform;
    this.keepTopManifests = keepTopManifests;
  }

  /** Resolve the reference to one image manifest, stepping through an index for the platform. */
  async resolve(t: PullTarget): Promise<ResolvedManifest> {
    const { ref, store } = t;
    let bytes: Buffer;
    let digest: string;
    let contentType: string | undefined;
    if (ref.digest !== undefined) {
      digest = ref.digest;
      const cached = await store.readSmall(digest);
      if (cached !== undefined) bytes = cached;
      else ({ bytes, contentType } = await this.fetchTop(t, digest));
    } else {
      ({ bytes, contentType, digest } = await this.fetchTop(t, ref.tag ?? 'latest'));
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
    const child = parseManifest(await this.fetchChild(t, pick), pick.mediaType);
    if (child.kind !== 'manifest') {
      throw new OpmError(`index entry ${pick.digest} is itself an index`, { code: 'E_MANIFEST_INVALID' });
    }
    return { digest, manifest: child };
  }

  private async fetchTop(
    t: PullTarget,
    tagOrDigest: string,
  ): Promise<{ bytes: Buffer; contentType: string | undefined; digest: string }> {
    const { ref, store } = t;
    const res = await t.session.get(
      `/v2/${ref.repository}/manifests/${tagOrDigest}`,
      ref.repository,
      MANIFEST_ACCEPT,
      t.signal,
    );
    if (res.status !== 200) throw await statusError(res, ref, tagOrDigest.includes(':') ? 'manifest' : 'tag');
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
    if (this.keepTopManifests && (await store.lookup(digest, bytes.length)) === undefined)
      await store.putVerified(digest, bytes);
    return { bytes, contentType: header(res, 'content-type'), digest };
  }

  /** An index entry's manifest: from the store, else fetched and checked. */
  private async fetchChild(t: PullTarget, d: Descriptor): Promise<Buffer> {
    const { ref, store } = t;
    if (d.size > MANIFEST_LIMIT)
      throw new OpmError(`manifest ${d.digest} is too large (${d.size} bytes)`, {
        code: 'E_MANIFEST_INVALID',
      });
    const cached = await store.readSmall(d.digest);
    if (cached !== undefined && cached.length === d.size) return cached;
    const res = await t.session.get(
      `/v2/${ref.repository}/manifests/${d.digest}`,
      ref.repository,
      MANIFEST_ACCEPT,
      t.signal,
    );
    if (res.status !== 200) throw await statusError(res, ref, 'manifest');
    const bytes = await readBounded(res.body, MANIFEST_LIMIT, 'manifest');
    if (bytes.length !== d.size) throw sizeMismatch('manifest', d.digest, d.size, bytes.length);
    const got = digestOf(bytes, parseDigest(d.digest).algorithm);
    if (got !== d.digest) throw digestMismatch(`manifest ${d.digest}`, d.digest, got);
    await store.putVerified(d.digest, bytes);
    return bytes;
  }
}
