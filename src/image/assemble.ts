/**
 * An image on top of a base (or of nothing, `FROM scratch`): the base's layers named by digest, new
 * layers after them, and a config that keeps the base's (environment, user, working folder…) with
 * the entrypoint, command, labels, history and `rootfs.diff_ids` of the build. One image per
 * platform of the base that was chosen; several are joined by an index of the base's family.
 */
import { OpmError } from '../errors.js';
import { isRecord } from '../go/json-value.js';
import { formatPlatform, type Descriptor, type Platform } from '../oci/manifest.js';
import { bytesBlob, fileBlob, type BlobSource } from '../oci/push/blob-source.js';
import type { PushPlan } from '../oci/push/image-push.js';
import { manifestBytes, type ManifestBytes } from '../oci/push/manifest-put.js';
import type { BuiltLayer } from './layer.js';
import { MEDIA, familyOf, type MediaFamily } from './media.js';

/** One platform's image of a base: its layers as blobs to reuse, and its config's bytes. */
export interface BasePlatformImage {
  platform: Platform;
  /** The base's layer descriptors, in order. */
  layers: Descriptor[];
  /** Each layer as a blob a push or a layout can read (or mount). */
  layerBlobs: BlobSource[];
  config: Uint8Array;
}

export interface BaseImage {
  /** The media type of what the base reference names: an index's, or a manifest's. */
  mediaType: string;
  /** Whether the base reference names an index (or list). */
  isIndex: boolean;
  images: BasePlatformImage[];
}

/** What the build sets in the config. */
export interface ConfigEdit {
  entrypoint?: string[];
  cmd?: string[];
  labels?: Record<string, string>;
  /** Ports the image exposes (`50051/tcp`), added to the base's. */
  exposedPorts?: string[];
  /** The user the image runs as (`USER 1001`). */
  user?: string;
  /** Environment of the image's processes (`NAME=value`), replacing the base's. */
  env?: string[];
  /** What each new layer is, for the history (one per layer, in order). */
  history: string[];
  /** A history line for the settings that add no layer (entrypoint, command, labels). */
  settings?: string;
  /** Seconds since 1970 for `created` (SOURCE_DATE_EPOCH); default 0. */
  epoch?: number;
}

export interface AssembledImage {
  platform: Platform;
  config: Uint8Array;
  manifest: ManifestBytes;
  blobs: BlobSource[];
}

export interface Assembled {
  images: AssembledImage[];
  index?: ManifestBytes;
  /** What a tag points at: the index, or the one image's manifest. */
  top: ManifestBytes;
  plan: PushPlan;
}

/** `1970-01-01T00:00:00Z`: Go's RFC 3339 text of a whole second. */
function rfc3339(epoch: number): string {
  return new Date(epoch * 1000).toISOString().replace(/\.000Z$/, 'Z');
}

function editConfig(
  base: Uint8Array | undefined,
  platform: Platform,
  layers: BuiltLayer[],
  edit: ConfigEdit,
): Uint8Array {
  let doc: Record<string, unknown> = {};
  if (base !== undefined) {
    const parsed: unknown = JSON.parse(Buffer.from(base).toString('utf8'));
    if (!isRecord(parsed)) throw new OpmError('invalid base image config: not a JSON object');
    doc = parsed;
  } else {
    doc = { architecture: platform.architecture, os: platform.os };
    if (platform.variant !== undefined) doc.variant = platform.variant;
  }
  const created = rfc3339(edit.epoch ?? 0);
  doc.created = created;
  const cfg: Record<string, unknown> = isRecord(doc.config) ? { ...doc.config } : {};
  if (edit.entrypoint !== undefined) cfg.Entrypoint = edit.entrypoint;
  if (edit.cmd !== undefined) cfg.Cmd = edit.cmd;
  if (edit.user !== undefined) cfg.User = edit.user;
  if (edit.env !== undefined) cfg.Env = edit.env;
  if (edit.labels !== undefined) {
    const labels: Record<string, unknown> = isRecord(cfg.Labels) ? { ...cfg.Labels } : {};
    for (const [k, v] of Object.entries(edit.labels)) labels[k] = v;
    cfg.Labels = labels;
  }
  if (edit.exposedPorts !== undefined) {
    const ports: Record<string, unknown> = isRecord(cfg.ExposedPorts) ? { ...cfg.ExposedPorts } : {};
    for (const p of edit.exposedPorts) ports[p] = {};
    cfg.ExposedPorts = ports;
  }
  doc.config = cfg;
  const rootfs = isRecord(doc.rootfs) ? doc.rootfs : {};
  const diffIds = Array.isArray(rootfs.diff_ids) ? rootfs.diff_ids : [];
  doc.rootfs = { type: 'layers', diff_ids: [...diffIds, ...layers.map((l) => l.diffId)] };
  const history = Array.isArray(doc.history) ? [...(doc.history as unknown[])] : [];
  layers.forEach((_, i) => history.push({ created, created_by: edit.history[i] ?? 'opm image build' }));
  if (edit.settings !== undefined) history.push({ created, created_by: edit.settings, empty_layer: true });
  doc.history = history;
  return Buffer.from(JSON.stringify(doc));
}

function descriptor(mediaType: string, digest: string, size: number): Record<string, unknown> {
  return { mediaType, digest, size };
}

/** Docker layer media types and the OCI ones that say the same of the same bytes. */
const TO_OCI: Record<string, string> = {
  'application/vnd.docker.image.rootfs.diff.tar.gzip': 'application/vnd.oci.image.layer.v1.tar+gzip',
  'application/vnd.docker.image.rootfs.diff.tar': 'application/vnd.oci.image.layer.v1.tar',
  'application/vnd.docker.image.rootfs.foreign.diff.tar.gzip':
    'application/vnd.oci.image.layer.nondistributable.v1.tar+gzip',
};

function platformJson(p: Platform): Record<string, unknown> {
  return {
    architecture: p.architecture,
    os: p.os,
    ...(p.variant !== undefined ? { variant: p.variant } : {}),
  };
}

/**
 * Pick the base's images for `platforms`: every one with `all`, else those named (`os/arch[/variant]`;
 * a name without a variant matches the base's entry of that os and architecture).
 */
export function selectPlatforms(base: BaseImage, platforms: Platform[] | 'all'): BasePlatformImage[] {
  if (platforms === 'all') return base.images;
  const chosen: BasePlatformImage[] = [];
  for (const want of platforms) {
    const hit = base.images.find(
      (i) =>
        i.platform.os === want.os &&
        i.platform.architecture === want.architecture &&
        (want.variant === undefined ||
          (i.platform.variant ?? (i.platform.architecture === 'arm64' ? 'v8' : undefined)) === want.variant),
    );
    if (hit === undefined) {
      throw new OpmError(
        `the base image has no ${formatPlatform(want)} image (it has ${base.images.map((i) => formatPlatform(i.platform)).join(', ')})`,
        {
          code: 'E_PLATFORM_NOT_FOUND',
          hint: 'choose among its platforms with --platform, or --platform all',
        },
      );
    }
    if (!chosen.includes(hit)) chosen.push(hit);
  }
  return chosen;
}

/**
 * Assemble the image: `layers` on each chosen platform image of `base` (or on nothing, for
 * `platform` alone, when `base` is undefined), in the base's media family (OCI from scratch).
 */
export function assemble(
  base: { image: BaseImage; platforms: Platform[] | 'all' } | { scratch: Platform },
  layers: BuiltLayer[],
  edit: ConfigEdit,
  /** Another family than the base's (an OCI layout of a Docker base: its tools read OCI only). */
  as?: MediaFamily,
): Assembled {
  const family: MediaFamily = as ?? ('scratch' in base ? 'oci' : familyOf(base.image.mediaType));
  const media = MEDIA[family];
  const baseDescriptor = (d: Descriptor): Record<string, unknown> => ({
    ...descriptor(family === 'oci' ? (TO_OCI[d.mediaType] ?? d.mediaType) : d.mediaType, d.digest, d.size),
    ...(d.urls !== undefined ? { urls: d.urls } : {}),
  });
  const newBlobs = layers.map((l) => fileBlob(l.digest, media.layer, l.file, l.size));
  const bases: Array<BasePlatformImage | { scratch: Platform }> =
    'scratch' in base ? [{ scratch: base.scratch }] : selectPlatforms(base.image, base.platforms);
  const images: AssembledImage[] = bases.map((b) => {
    const platform = 'scratch' in b ? b.scratch : b.platform;
    const baseLayers = 'scratch' in b ? [] : b.layers;
    const config = editConfig('scratch' in b ? undefined : b.config, platform, layers, edit);
    const configBlob = bytesBlob(digestOf(config), media.config, config);
    const manifest = manifestBytes(
      media.manifest,
      Buffer.from(
        JSON.stringify({
          schemaVersion: 2,
          mediaType: media.manifest,
          config: descriptor(media.config, configBlob.digest, config.length),
          layers: [
            ...baseLayers.map(baseDescriptor),
            ...layers.map((l) => descriptor(media.layer, l.digest, l.size)),
          ],
        }),
      ),
    );
    return {
      platform,
      config,
      manifest,
      blobs: [configBlob, ...('scratch' in b ? [] : b.layerBlobs), ...newBlobs],
    };
  });
  const wantIndex = !('scratch' in base) && base.image.isIndex && images.length > 1;
  const index = wantIndex
    ? manifestBytes(
        media.index,
        Buffer.from(
          JSON.stringify({
            schemaVersion: 2,
            mediaType: media.index,
            manifests: images.map((i) => ({
              ...descriptor(i.manifest.mediaType, i.manifest.digest, i.manifest.bytes.length),
              platform: platformJson(i.platform),
            })),
          }),
        ),
      )
    : undefined;
  const first = images[0];
  if (first === undefined) throw new OpmError('the base image has no image to build on');
  const plan: PushPlan = {
    images: images.map((i) => ({ manifest: i.manifest, blobs: i.blobs })),
    ...(index !== undefined ? { index } : {}),
  };
  return { images, ...(index !== undefined ? { index } : {}), top: index ?? first.manifest, plan };
}

function digestOf(b: Uint8Array): string {
  return manifestBytes('', b).digest;
}
