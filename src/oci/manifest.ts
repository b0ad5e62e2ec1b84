import { goArch } from '../go/arch.js';
import { OpmError } from '../errors.js';
import { parseDigest } from './digest.js';
import { isRecord } from '../go/json-value.js';

const MEDIA = {
  ociIndex: 'application/vnd.oci.image.index.v1+json',
  dockerList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
} as const;

/**
 * All four are always sent: distribution answers 404 for an OCI manifest it may not serve, and
 * silently converts Docker manifests to schema 1 (another digest) when v2 is not accepted.
 */
export const MANIFEST_ACCEPT = [
  MEDIA.ociIndex,
  MEDIA.dockerList,
  MEDIA.ociManifest,
  MEDIA.dockerManifest,
].join(', ');

export interface Platform {
  os: string;
  architecture: string;
  variant?: string;
}

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  platform?: Platform;
  urls?: string[];
}

export interface ImageManifest {
  kind: 'manifest';
  mediaType: string;
  config: Descriptor;
  layers: Descriptor[];
}

export interface ImageIndex {
  kind: 'index';
  mediaType: string;
  manifests: Descriptor[];
}

export interface ImageConfig {
  labels: Record<string, string>;
  /** The config's `Cmd` (arguments of the entrypoint); empty when it has none. */
  cmd: string[];
  diffIds: string[];
  platform: Platform | undefined;
}

function bad(what: string, why: string): OpmError {
  return new OpmError(`invalid ${what}: ${why}`, { code: 'E_MANIFEST_INVALID' });
}

function parseJson(bytes: Uint8Array, what: string): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    throw bad(what, 'not JSON');
  }
  if (!isRecord(doc)) throw bad(what, 'not a JSON object');
  return doc;
}

function parsePlatform(v: unknown): Platform | undefined {
  if (!isRecord(v) || typeof v.os !== 'string' || typeof v.architecture !== 'string') return undefined;
  return {
    os: v.os,
    architecture: v.architecture,
    ...(typeof v.variant === 'string' && v.variant !== '' ? { variant: v.variant } : {}),
  };
}

function parseDescriptor(v: unknown, what: string): Descriptor {
  if (!isRecord(v)) throw bad(what, 'descriptor is not an object');
  const { mediaType, digest, size } = v;
  if (typeof digest !== 'string') throw bad(what, 'descriptor without digest');
  parseDigest(digest);
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0)
    throw bad(what, `descriptor ${digest} has no valid size`);
  const platform = parsePlatform(v.platform);
  const urls = Array.isArray(v.urls) ? v.urls.filter((u): u is string => typeof u === 'string') : undefined;
  return {
    mediaType: typeof mediaType === 'string' ? mediaType : '',
    digest,
    size,
    ...(platform ? { platform } : {}),
    ...(urls && urls.length > 0 ? { urls } : {}),
  };
}

/** Parse a manifest or index from the exact bytes received, with the response's Content-Type. */
export function parseManifest(
  bytes: Uint8Array,
  contentType: string | undefined,
): ImageManifest | ImageIndex {
  const doc = parseJson(bytes, 'manifest');
  const declared = typeof doc.mediaType === 'string' ? doc.mediaType : undefined;
  const header = contentType?.split(';')[0]?.trim().toLowerCase();
  if (doc.schemaVersion !== 2) {
    throw bad('manifest', `schema version ${String(doc.schemaVersion)} is not supported (only schema 2)`);
  }
  // Prefer the document's own media type; fall back to the header, then to the shape.
  let mediaType =
    declared ?? (header !== undefined && header !== '' && header !== 'application/json' ? header : undefined);
  if (mediaType === undefined) mediaType = Array.isArray(doc.manifests) ? MEDIA.ociIndex : MEDIA.ociManifest;
  if (mediaType === MEDIA.ociIndex || mediaType === MEDIA.dockerList) {
    if (!Array.isArray(doc.manifests)) throw bad('index', 'no "manifests" list');
    return { kind: 'index', mediaType, manifests: doc.manifests.map((m) => parseDescriptor(m, 'index')) };
  }
  if (mediaType === MEDIA.ociManifest || mediaType === MEDIA.dockerManifest) {
    if (!Array.isArray(doc.layers)) throw bad('manifest', 'no "layers" list');
    return {
      kind: 'manifest',
      mediaType,
      config: parseDescriptor(doc.config, 'manifest'),
      layers: doc.layers.map((l) => parseDescriptor(l, 'manifest')),
    };
  }
  throw bad('manifest', `unsupported media type "${mediaType}"`);
}

export function parseConfig(bytes: Uint8Array): ImageConfig {
  const doc = parseJson(bytes, 'image config');
  const labels: Record<string, string> = {};
  const cfg = isRecord(doc.config) ? doc.config : undefined;
  if (cfg && isRecord(cfg.Labels)) {
    for (const [k, v] of Object.entries(cfg.Labels)) if (typeof v === 'string') labels[k] = v;
  }
  const rootfs = isRecord(doc.rootfs) ? doc.rootfs : undefined;
  const diffIds =
    rootfs && Array.isArray(rootfs.diff_ids)
      ? rootfs.diff_ids.filter((d): d is string => typeof d === 'string')
      : [];
  const cmd = cfg && Array.isArray(cfg.Cmd) ? cfg.Cmd.filter((a): a is string => typeof a === 'string') : [];
  return { labels, cmd, diffIds, platform: parsePlatform(doc) };
}

/** `linux/<host arch>[/variant]`, as opm picks by default. */
export function hostPlatform(): Platform {
  const architecture = goArch();
  if (architecture === 'arm64') return { os: 'linux', architecture, variant: 'v8' };
  if (architecture === 'arm') {
    const v: unknown = Reflect.get(process.config.variables, 'arm_version');
    return typeof v === 'string' || typeof v === 'number'
      ? { os: 'linux', architecture, variant: `v${String(v)}` }
      : { os: 'linux', architecture };
  }
  return { os: 'linux', architecture };
}

/** Parse `os/arch[/variant]`; undefined when malformed. */
export function parsePlatformString(s: string): Platform | undefined {
  const parts = s.split('/');
  if (parts.length < 2 || parts.length > 3 || parts.some((p) => !/^[a-z0-9_.-]+$/i.test(p))) return undefined;
  const [os, architecture, variant] = parts;
  if (os === undefined || architecture === undefined) return undefined;
  return {
    os: os.toLowerCase(),
    architecture: architecture.toLowerCase(),
    ...(variant ? { variant: variant.toLowerCase() } : {}),
  };
}

export function formatPlatform(p: Platform): string {
  return `${p.os}/${p.architecture}${p.variant ? `/${p.variant}` : ''}`;
}

// arm64 images usually omit the variant; "v8" is what they mean.
function variantOf(p: Platform): string | undefined {
  return p.variant ?? (p.architecture === 'arm64' ? 'v8' : undefined);
}

/**
 * Pick the entry for `want` from an index: same os and architecture; an exact variant beats an
 * entry without one. Attestation entries (`unknown/unknown`) and unknown media types are skipped.
 */
export function selectPlatform(index: ImageIndex, want: Platform): Descriptor | undefined {
  const usable = index.manifests.filter(
    (d) =>
      (d.mediaType === '' || d.mediaType === MEDIA.ociManifest || d.mediaType === MEDIA.dockerManifest) &&
      d.platform !== undefined &&
      d.platform.os !== 'unknown',
  );
  const same = usable.filter(
    (d) => d.platform?.os === want.os && d.platform.architecture === want.architecture,
  );
  const wantVariant = variantOf(want);
  const exact = same.find((d) => d.platform !== undefined && variantOf(d.platform) === wantVariant);
  if (exact) return exact;
  if (want.variant !== undefined && want.architecture !== 'arm64')
    return same.find((d) => d.platform?.variant === undefined);
  return same[0];
}

export function listPlatforms(index: ImageIndex): string {
  const ps = index.manifests.flatMap((d) =>
    d.platform && d.platform.os !== 'unknown' ? [formatPlatform(d.platform)] : [],
  );
  return ps.length > 0 ? ps.join(', ') : 'none';
}
