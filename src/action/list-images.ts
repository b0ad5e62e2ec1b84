/**
 * `opm list images <ref>`: every image the catalog (or the part of it a filter keeps) needs
 * mirrored, and optionally where each goes in a mirror registry.
 */
import { filterCatalog } from '../curate/filter.js';
import { catalogImages, type CatalogImage } from '../curate/images.js';
import { mappingLines, mirrorPrefix } from '../curate/mapping.js';
import { checkFilterOptions, readSelection, type FilterOptions } from './filter.js';
import { renderRef } from './catalog-source.js';
import { expectOptionalString } from '../util/args.js';

export interface ListImagesOptions extends FilterOptions {
  /** `REGISTRY/PREFIX` to map every image under. */
  mapping?: string;
}

export interface ListImagesResult {
  images: CatalogImage[];
  /** `source=destination` lines, with `mapping`. */
  mapping?: string[];
}

/**
 * Every image a catalog (or the part of it a selection keeps) needs mirrored, sorted, as `opm list
 * images` prints them; with `mapping`, the `source=destination` lines too.
 */
export async function listImages(opts: ListImagesOptions): Promise<ListImagesResult> {
  checkFilterOptions(opts, 'listImages');
  expectOptionalString(opts.mapping, 'listImages(options).mapping');
  const prefix = opts.mapping === undefined ? undefined : mirrorPrefix(opts.mapping);
  const spec = await readSelection(opts);
  let cfg = await renderRef(opts);
  // Without a selection the whole catalog counts, valid or not.
  if (spec.packages.length > 0 || spec.headsOnly) cfg = filterCatalog(cfg, spec).config;
  const images = catalogImages(cfg);
  return prefix === undefined ? { images } : { images, mapping: mappingLines(images, prefix) };
}
