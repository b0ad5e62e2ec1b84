/**
 * The CRDs of bundles a catalog carries no manifests of (`olm.csv.metadata` only, as opm's
 * `bundle-object-to-csv-metadata` migration leaves them), read from their bundle images for the
 * CRD upgrade rules (`validate --crd-from-images`). The images are pulled as `render` pulls bundle
 * images (the same client, cache and unpacking), so a second run reads them from the cache.
 */
import { crdOfBundleObject } from '../../crd-safety/index.js';
import type { DeclarativeConfig } from '../../declcfg/types.js';
import type { ImageCrds } from '../../lint/index.js';
import type { ImageSource } from '../../oci/image-source.js';
import { throwIfAborted } from '../../util/abort.js';
import { Limiter } from '../../util/limit.js';
import { compareUtf8 } from '../../go/utf8.js';
import { REF_BUNDLE_IMAGES, render } from '../render/render.js';

export interface CrdImageOptions {
  imageSource: ImageSource;
  /** Images `--bundle-dirs` maps to a directory: read from there, not pulled. */
  bundleDirs?: ReadonlyMap<string, string>;
  cwd?: string;
  env?: Readonly<Record<string, string | undefined>>;
  signal?: AbortSignal;
}

/** How many bundle images are pulled at once. */
const PULL_CONCURRENCY = 4;

/**
 * The images of the bundles whose CRDs only an image can give: on an upgrade edge (in a channel
 * with another entry), with an image, without olm.bundle.object properties, and not mapped to a
 * bundle directory. Sorted, each once.
 */
export function imagesToPull(cfg: DeclarativeConfig, bundleDirs?: ReadonlyMap<string, string>): string[] {
  const onEdges = new Set<string>();
  for (const ch of cfg.channels) {
    const entries = ch.entries ?? [];
    if (entries.length < 2) continue;
    for (const e of entries) onEdges.add(`${ch.package}\u0000${e.name}`);
  }
  const out = new Set<string>();
  for (const b of cfg.bundles) {
    if (b.image === '' || bundleDirs?.has(b.image) === true) continue;
    if (!onEdges.has(`${b.package}\u0000${b.name}`)) continue;
    if ((b.properties ?? []).some((p) => p.type === 'olm.bundle.object')) continue;
    out.add(b.image);
  }
  return [...out].sort(compareUtf8);
}

/** The CRDs among a rendered bundle image's manifests. */
function crdsOfRendered(cfg: DeclarativeConfig): unknown[] {
  const crds: unknown[] = [];
  for (const b of cfg.bundles)
    for (const p of b.properties ?? []) {
      if (p.type !== 'olm.bundle.object') continue;
      const crd = crdOfBundleObject(p.value);
      if (crd !== undefined) crds.push(crd);
    }
  return crds;
}

/**
 * Each image of `imagesToPull(cfg)` rendered as `opm render IMAGE` renders it, and the CRDs of its
 * manifests; an image that cannot be pulled or is no bundle image gives why (a finding, not a
 * failure of the whole validation). An abort rejects with the signal's reason.
 */
export async function pullBundleCrds(
  cfg: DeclarativeConfig,
  opts: CrdImageOptions,
): Promise<Map<string, ImageCrds>> {
  const images = imagesToPull(cfg, opts.bundleDirs);
  const limiter = new Limiter(PULL_CONCURRENCY);
  const results = await Promise.all(
    images.map((image) =>
      limiter.run(async (): Promise<ImageCrds> => {
        throwIfAborted(opts.signal);
        try {
          const rendered = await render({
            refs: [image],
            allow: REF_BUNDLE_IMAGES,
            imageSource: opts.imageSource,
            ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
            ...(opts.env === undefined ? {} : { env: opts.env }),
            ...(opts.signal === undefined ? {} : { signal: opts.signal }),
          });
          return { crds: crdsOfRendered(rendered) };
        } catch (err) {
          if (opts.signal?.aborted === true) throw opts.signal.reason;
          const why = err instanceof Error ? err.message : String(err);
          return { error: why.replace(`render reference ${JSON.stringify(image)}: `, '') };
        }
      }),
    ),
  );
  return new Map(images.map((image, i) => [image, results[i] ?? { error: 'not pulled' }]));
}
