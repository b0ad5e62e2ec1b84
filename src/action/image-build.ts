/**
 * `opm image build DIR`: the catalog image `generate dockerfile` describes, built without a
 * container engine. The serve cache is made by the build `serve --cache-only` runs on an empty
 * cache directory (the cache only: nothing is opened or indexed for serving); the
 * base image is read by reference (manifests and configs only); the result is pushed to each tag
 * and/or written as an OCI image layout.
 */
import { mkdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { OpmError, UsageError } from '../errors.js';
import { parsePlatformString, type Platform } from '../oci/manifest.js';
import type { RegistryPusher } from '../oci/push/pusher.js';
import type { RemoteImage } from '../oci/push/remote-image.js';
import { parseReference } from '../oci/reference.js';
import { buildDiskCache } from '../serve-cache/load-cache.js';
import { checkImageDestination } from './image-destination.js';
import { phase, type ProgressSink } from '../util/progress.js';
import { makeOwnedDir, releaseOwned } from '../util/owned-temp.js';
import { throwIfAborted } from '../util/abort.js';
import type { Assembled, BaseImage } from '../image/assemble.js';
import { buildCatalogImage } from '../image/catalog-image.js';
import { sourceDateEpoch } from '../image/layer.js';
import { writeOciLayout } from '../image/layout.js';

export interface ImageBuildOptions {
  /** The catalog folder (becomes `/configs`). */
  catalogDir: string;
  /** References to push to (each a tag); with `push`. */
  tags: string[];
  push: boolean;
  /** A folder to write the image to as an OCI image layout. */
  ociLayout?: string;
  /** The tag of the layout's image; default the first tag's. */
  layoutTag?: string;
  baseImage: string;
  /** `key=value` labels added after the configs label. */
  labels: string[];
  /** `os/arch[/variant]` of the base to build on; `all` or none: every platform it has. */
  platforms?: string[];
  /** Reads the base and pushes (its registry options: credentials, TLS, proxies, registries.conf). */
  registry: Pick<RegistryPusher, 'readImage' | 'baseLayer' | 'push'>;
  workDir?: string;
  cwd?: string;
  env?: Record<string, string | undefined>;
  signal?: AbortSignal;
  onProgress?: ProgressSink;
  log?: (line: string) => void;
}

export interface ImageBuildResult {
  /** Digest of what the tags point at (an index's for several platforms). */
  digest: string;
  mediaType: string;
  platforms: Platform[];
  pushed: Array<{ ref: string; digest: string; uploaded: number; reused: number }>;
  /** The layout written and the digest of its image (OCI media types: another digest on a Docker base). */
  ociLayout?: { dir: string; digest: string };
}

/** `key=value` labels, checked. */
export function parseLabels(items: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of items) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new UsageError(`invalid label "${item}": expected key=value`);
    out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}

/** `--platform` values: `all`, or a comma-separated list of `os/arch[/variant]`. */
export function parsePlatforms(values: string[] | undefined): Platform[] | 'all' {
  const items = (values ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
  if (items.length === 0 || items.includes('all')) return 'all';
  return items.map((v) => {
    const p = parsePlatformString(v);
    if (p === undefined)
      throw new UsageError(`invalid --platform value "${v}", expected os/arch[/variant] or all`);
    return p;
  });
}

/** The base as the image builder takes it: layers reused by digest (mounted, checked, or streamed). */
export async function baseImageOf(
  registry: Pick<RegistryPusher, 'baseLayer'>,
  remote: RemoteImage,
  signal?: AbortSignal,
): Promise<BaseImage> {
  const images = [];
  for (const i of remote.images) {
    const layerBlobs = [];
    for (const d of i.manifest.layers) layerBlobs.push(await registry.baseLayer(remote, d, signal));
    images.push({ platform: i.platform, layers: i.manifest.layers, layerBlobs, config: i.config });
  }
  return {
    mediaType: remote.mediaType,
    isIndex: remote.mediaType.endsWith('index.v1+json') || remote.mediaType.endsWith('list.v2+json'),
    images,
  };
}

export async function imageBuild(o: ImageBuildOptions): Promise<ImageBuildResult> {
  checkImageDestination(o);
  const labels = parseLabels(o.labels);
  const platforms = parsePlatforms(o.platforms);
  const epoch = sourceDateEpoch(o.env);
  const catalogDir = path.resolve(o.cwd ?? '', o.catalogDir);
  const signal = o.signal;
  const work = await makeOwnedDir(o.workDir ?? os.tmpdir(), 'opm-image-');
  try {
    const cacheDir = path.join(work, 'cache');
    await mkdir(cacheDir);
    // The base is read while the cache is built: neither needs the other.
    const remote = phase(o.onProgress, `reading base image ${o.baseImage}`, () =>
      o.registry.readImage(o.baseImage, signal),
    );
    remote.catch(() => undefined);
    await phase(o.onProgress, `building the serve cache of ${o.catalogDir}`, () =>
      buildDiskCache(catalogDir, cacheDir, {
        configLabel: catalogDir,
        ...(o.env !== undefined ? { env: o.env } : {}),
        ...(signal !== undefined ? { signal } : {}),
      }),
    );
    const base = await baseImageOf(o.registry, await remote, signal);
    throwIfAborted(signal);
    const built = await phase(o.onProgress, 'writing the layers', () =>
      buildCatalogImage({
        catalogDir,
        cacheDir,
        base,
        platforms,
        labels,
        workDir: work,
        ...(epoch !== undefined ? { epoch } : {}),
        ...(signal !== undefined ? { signal } : {}),
      }),
    );
    const image: Assembled = built.image;
    const result: ImageBuildResult = {
      digest: image.top.digest,
      mediaType: image.top.mediaType,
      platforms: image.images.map((i) => i.platform),
      pushed: [],
    };
    if (o.ociLayout !== undefined) {
      const dir = path.resolve(o.cwd ?? '', o.ociLayout);
      const tag = o.layoutTag ?? (o.tags[0] !== undefined ? parseReference(o.tags[0]).tag : undefined);
      // OCI media types there whatever the base's: the tools that read layouts read only those.
      const oci = built.asOci();
      await phase(o.onProgress, `writing OCI layout ${o.ociLayout}`, () =>
        writeOciLayout(dir, oci, tag, signal),
      );
      result.ociLayout = { dir, digest: oci.top.digest };
      if (!o.push) result.digest = oci.top.digest;
    }
    if (o.push) {
      for (const t of o.tags) {
        const pushed = await phase(o.onProgress, `pushing ${t}`, () =>
          o.registry.push(t, image.plan, signal !== undefined ? { signal } : {}),
        );
        const outcomes = [...pushed.blobs.values()];
        result.pushed.push({
          ref: t,
          digest: pushed.digest,
          uploaded: outcomes.filter((x) => x === 'uploaded').length,
          reused: outcomes.filter((x) => x !== 'uploaded').length,
        });
        if (pushed.digest !== image.top.digest)
          throw new OpmError(`pushed ${t} as ${pushed.digest}, not the built ${image.top.digest}`);
      }
    }
    return result;
  } finally {
    await rm(work, { recursive: true, force: true });
    releaseOwned(work);
  }
}
