/**
 * The catalog image `generate dockerfile`'s Dockerfile builds: the base image, a layer with the
 * catalog at `/configs`, a layer with the serve cache at `/tmp/cache`, `ENTRYPOINT ["/bin/opm"]`,
 * `CMD ["serve", "/configs", "--cache-dir=/tmp/cache"]` and the label naming `/configs`, then the
 * extra labels.
 */
import path from 'node:path';
import type { Platform } from '../oci/manifest.js';
import { assemble, type Assembled, type BaseImage, type ConfigEdit } from './assemble.js';
import { writeLayer } from './layer.js';
import { CONFIGS_LABEL } from '../bundle/labels.js';

export const CATALOG_ENTRYPOINT = ['/bin/opm'];
export const CATALOG_CMD = ['serve', '/configs', '--cache-dir=/tmp/cache'];

export interface CatalogImageOptions {
  catalogDir: string;
  /** opm's serve cache of the catalog (what `serve --cache-only` wrote). */
  cacheDir: string;
  base: BaseImage;
  platforms: Platform[] | 'all';
  /** Extra labels, after the configs label (the same key replaces it). */
  labels?: Record<string, string>;
  workDir: string;
  epoch?: number;
  signal?: AbortSignal;
}

export interface CatalogImage {
  /** In the base's media family. */
  image: Assembled;
  /** The same image in OCI media types (for an OCI layout; the same as `image` on an OCI base). */
  asOci(): Assembled;
}

export async function buildCatalogImage(o: CatalogImageOptions): Promise<CatalogImage> {
  const opts = {
    ...(o.epoch !== undefined ? { epoch: o.epoch } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
  };
  const configs = await writeLayer(
    [{ dir: o.catalogDir, at: 'configs' }],
    path.join(o.workDir, 'configs.tar.gz'),
    opts,
  );
  // No entry for /tmp itself: the base's (mode 1777) stays as it is.
  const cache = await writeLayer(
    [{ dir: o.cacheDir, at: 'tmp/cache' }],
    path.join(o.workDir, 'cache.tar.gz'),
    opts,
  );
  const edit: ConfigEdit = {
    entrypoint: CATALOG_ENTRYPOINT,
    cmd: CATALOG_CMD,
    labels: { [CONFIGS_LABEL]: '/configs', ...o.labels },
    history: [
      `COPY ${path.basename(path.resolve(o.catalogDir))} /configs`,
      'COPY /tmp/cache /tmp/cache (opm serve /configs --cache-dir=/tmp/cache --cache-only)',
    ],
    settings: `ENTRYPOINT ${JSON.stringify(CATALOG_ENTRYPOINT)} CMD ${JSON.stringify(CATALOG_CMD)} LABEL ${CONFIGS_LABEL}=/configs`,
    ...(o.epoch !== undefined ? { epoch: o.epoch } : {}),
  };
  const base = { image: o.base, platforms: o.platforms };
  const image = assemble(base, [configs, cache], edit);
  return {
    image,
    asOci: () =>
      image.top.mediaType.startsWith('application/vnd.oci.')
        ? image
        : assemble(base, [configs, cache], edit, 'oci'),
  };
}
