/**
 * One image (or an index of images) into one repository, in the order that never leaves a tag
 * pointing at something incomplete: every blob first (checked, mounted or uploaded), then each
 * platform's manifest by digest, then the index, and the tag last. A manifest refused because the
 * registry lacks a blob it had claimed (HEAD 200, then BLOB_UNKNOWN) gets that blob uploaded again,
 * once, and is sent again.
 */
import { InternalError } from '../../errors.js';
import { Limiter } from '../../util/limit.js';
import type { BlobSource } from './blob-source.js';
import type { BlobOutcome, BlobUploader, PushTarget } from './blob-upload.js';
import { putManifest, tagDigest, type ManifestBytes } from './manifest-put.js';
import { BlobUnknownError } from './push-errors.js';

const BLOB_CONCURRENCY = 3;

/** One platform's image: its manifest and the blobs it names (config and layers). */
export interface PlatformImage {
  manifest: ManifestBytes;
  blobs: BlobSource[];
}

/** What to push: one image, or several joined by an index (`top`). */
export interface PushPlan {
  images: PlatformImage[];
  /** The index over `images`; without it, the one image's manifest is what the tag points at. */
  index?: ManifestBytes;
}

export interface PushResult {
  /** Digest of what the tag points at. */
  digest: string;
  /** How each blob got there, by digest. */
  blobs: Map<string, BlobOutcome>;
}

export function topOf(plan: PushPlan): ManifestBytes {
  const top = plan.index ?? plan.images[0]?.manifest;
  if (top === undefined || (plan.index === undefined && plan.images.length !== 1))
    throw new InternalError('nothing to push: a plan of several images needs an index');
  return top;
}

export async function pushPlan(
  t: PushTarget,
  uploader: BlobUploader,
  plan: PushPlan,
  tag: string | undefined,
  log: (line: string) => void,
): Promise<PushResult> {
  const top = topOf(plan);
  const byDigest = new Map<string, BlobSource>();
  for (const img of plan.images)
    for (const b of img.blobs) if (!byDigest.has(b.digest)) byDigest.set(b.digest, b);
  const outcomes = new Map<string, BlobOutcome>();
  const limiter = new Limiter(BLOB_CONCURRENCY);
  const settled = await Promise.allSettled(
    [...byDigest.values()].map((b) =>
      limiter.run(async () => {
        outcomes.set(b.digest, await uploader.ensure(t, b));
      }),
    ),
  );
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed !== undefined) throw failed.reason;

  /** PUT a manifest; when the registry lacks a blob, upload it (or all of them) again, once. */
  const put = async (m: ManifestBytes, reference: string, blobs: BlobSource[]): Promise<void> => {
    try {
      await putManifest(t, m, reference);
    } catch (err) {
      if (!(err instanceof BlobUnknownError)) throw err;
      // A registry that claimed one blob it lacks may have claimed others: every blob it said it
      // had is sent again (the one it names, at least), then the manifest, once.
      const claimed = blobs.filter((b) => outcomes.get(b.digest) === 'exists' || b.digest === err.digest);
      const again = claimed.length > 0 ? claimed : blobs;
      log(
        `${t.ref.registry} does not have ${err.digest !== undefined ? `blob ${err.digest}` : 'a blob'} it said it had; uploading ${again.length} blob${again.length === 1 ? '' : 's'} again`,
      );
      for (const b of again) outcomes.set(b.digest, await uploader.ensure(t, b, true));
      await putManifest(t, m, reference);
    }
  };
  if (plan.index !== undefined) {
    for (const img of plan.images) await put(img.manifest, img.manifest.digest, img.blobs);
    await put(plan.index, tag ?? plan.index.digest, []);
  } else {
    const only = plan.images[0];
    if (only !== undefined) await put(only.manifest, tag ?? only.manifest.digest, only.blobs);
  }
  if (tag !== undefined) {
    const now = await tagDigest(t, tag);
    if (now !== undefined && now !== top.digest) {
      log(
        `warning: tag "${tag}" of ${t.ref.registry}/${t.ref.repository} was moved to ${now} by another push right after this one; this image stays reachable as @${top.digest}`,
      );
    }
  }
  return { digest: top.digest, blobs: outcomes };
}
