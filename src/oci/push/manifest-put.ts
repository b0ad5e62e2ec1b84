/**
 * Manifests into a repository: PUT by digest (an index's children) or by tag (what a tag points
 * at, always last), with the digest the registry answers checked against the bytes sent.
 */
import { OpmError } from '../../errors.js';
import { digestOf } from '../digest.js';
import { header } from '../http/types.js';
import { MANIFEST_ACCEPT } from '../manifest.js';
import type { PushTarget } from './blob-upload.js';
import { pushStatusError } from './push-errors.js';

/** A manifest or index as it is sent: its exact bytes, their digest and media type. */
export interface ManifestBytes {
  mediaType: string;
  digest: string;
  bytes: Uint8Array;
}

export function manifestBytes(mediaType: string, bytes: Uint8Array): ManifestBytes {
  return { mediaType, bytes, digest: digestOf(bytes) };
}

/** PUT a manifest under `reference` (its digest, or a tag). */
export async function putManifest(t: PushTarget, m: ManifestBytes, reference: string): Promise<void> {
  const { ref } = t;
  const what = reference.includes(':') ? `manifest ${reference}` : `manifest for tag "${reference}"`;
  const res = await t.session.request({
    method: 'PUT',
    path: `/v2/${ref.repository}/manifests/${reference}`,
    repository: ref.repository,
    push: true,
    headers: { 'content-type': m.mediaType, 'content-length': String(m.bytes.length) },
    body: m.bytes,
    ...(t.signal ? { signal: t.signal } : {}),
  });
  if (res.status !== 201 && res.status !== 200) throw await pushStatusError(res, ref, what);
  await res.body.dump();
  const got = header(res, 'docker-content-digest');
  if (got !== undefined && got !== '' && got !== m.digest) {
    throw new OpmError(`${what}: ${ref.registry} stored it as ${got}, not ${m.digest}`, {
      code: 'E_DIGEST_MISMATCH',
      hint: 'the registry rewrote the manifest; push to a registry that keeps manifests as sent',
    });
  }
}

/** The digest a tag points at now (HEAD), or undefined when the tag is not there. */
export async function tagDigest(t: PushTarget, tag: string): Promise<string | undefined> {
  const res = await t.session.request({
    method: 'HEAD',
    path: `/v2/${t.ref.repository}/manifests/${tag}`,
    repository: t.ref.repository,
    push: true,
    headers: { accept: MANIFEST_ACCEPT },
    ...(t.signal ? { signal: t.signal } : {}),
  });
  await res.body.dump();
  if (res.status === 404) return undefined;
  if (res.status !== 200) throw await pushStatusError(res, t.ref, `checking tag "${tag}"`);
  return header(res, 'docker-content-digest');
}
