/**
 * Every image a catalog needs mirrored: the bundle images and their relatedImages, each once, in
 * byte order, with the packages and bundles that use it.
 */
import type { DeclarativeConfig } from '../declcfg/types.js';
import { compareUtf8 } from '../go/utf8.js';
import { expectConfig } from '../util/args.js';

export interface CatalogImage {
  image: string;
  /** Packages whose bundles use the image, in byte order. */
  packages: string[];
  /** Bundles that use it (as their image or a related image), in byte order. */
  bundles: string[];
}

/**
 * Every image the bundles of `cfg` name (their own and their related images), once each, in byte
 * order, with the packages and bundles that use it: what `opm list images` prints.
 */
export function catalogImages(cfg: DeclarativeConfig): CatalogImage[] {
  expectConfig(cfg, 'catalogImages(cfg)');
  const uses = new Map<string, { packages: Set<string>; bundles: Set<string> }>();
  const add = (image: string, pkg: string, bundle: string): void => {
    if (image === '') return;
    let u = uses.get(image);
    if (u === undefined) {
      u = { packages: new Set(), bundles: new Set() };
      uses.set(image, u);
    }
    u.packages.add(pkg);
    u.bundles.add(bundle);
  };
  for (const b of cfg.bundles) {
    add(b.image, b.package, b.name);
    for (const r of b.relatedImages ?? []) add(r.image, b.package, b.name);
  }
  return [...uses.keys()].sort(compareUtf8).map((image) => {
    const u = uses.get(image) as { packages: Set<string>; bundles: Set<string> };
    return {
      image,
      packages: [...u.packages].sort(compareUtf8),
      bundles: [...u.bundles].sort(compareUtf8),
    };
  });
}
