/**
 * The catalog image `generate dockerfile`'s Dockerfile builds: the base image, a layer with the
 * catalog at `/configs`, a layer with the serve cache at `/tmp/cache`, `ENTRYPOINT ["/bin/opm"]`,
 * `CMD ["serve", "/configs", "--cache-dir=/tmp/cache"]` and the label naming `/configs`, then the
 * extra labels. The cache belongs to the base's user (1001:0 on opm's base), as it does when the
 * Dockerfile's `RUN … --cache-only` writes it under the base's `USER`, with the modes opm gives it
 * (folders 0770, files 0660): the image's user reads it as its owner, and any other user of group 0
 * (OpenShift's arbitrary user IDs) through the group.
 */
import path from 'node:path';
import type { Platform } from '../oci/manifest.js';
import { assemble, type Assembled, type BaseImage, type ConfigEdit } from './assemble.js';
import { writeLayer, type Owner } from './layer.js';
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

/**
 * The numeric owner a `RUN` step under the base's `USER` gives its files: `1001` is 1001:0 (no group
 * given: group 0), `1001:1002` is 1001:1002; none, or a name (which only the base's /etc/passwd could
 * turn into a number), root's 0:0.
 */
export function runOwner(base: BaseImage): Owner {
  const config = base.images[0]?.config;
  let user: unknown;
  try {
    const doc =
      config === undefined ? undefined : (JSON.parse(Buffer.from(config).toString('utf8')) as unknown);
    user = (doc as { config?: { User?: unknown } } | undefined)?.config?.User;
  } catch {
    user = undefined; // assemble() reports a config that is not JSON
  }
  const m = typeof user === 'string' ? /^(\d+)(?::(\d+))?$/.exec(user) : null;
  if (m === null) return { uid: 0, gid: 0 };
  return { uid: Number(m[1]), gid: Number(m[2] ?? 0) };
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
    [{ dir: o.cacheDir, at: 'tmp/cache', owner: runOwner(o.base) }],
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
