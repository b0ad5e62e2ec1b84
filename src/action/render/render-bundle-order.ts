/**
 * The order render gives a bundle's lists, whatever the input's: object properties last, related
 * images by image. Apart from render.ts, so that the render worker (render-worker.ts) starts
 * without the code of image pulls and bundle directories.
 */
import type { Bundle } from '../../declcfg/types.js';
import { compareUtf8 } from '../../go/utf8.js';
import { TYPE_BUNDLE_OBJECT, TYPE_CSV_METADATA } from '../../property/property.js';

/** A rendered bundle's lists in render's order (both of the changes below). */
export function putInRenderOrder(b: Bundle): void {
  moveObjectPropertiesToEnd(b);
  sortRelatedImages(b);
}

/** opm moves `olm.bundle.object` and `olm.csv.metadata` properties after all others, keeping their order. */
function moveObjectPropertiesToEnd(b: Bundle): void {
  const props = b.properties;
  if (props === undefined) return;
  const isObj = (t: string): boolean => t === TYPE_BUNDLE_OBJECT || t === TYPE_CSV_METADATA;
  b.properties = [...props.filter((p) => !isObj(p.type)), ...props.filter((p) => isObj(p.type))];
}

/** relatedImages sorted by image (byte order; equal images keep their order). */
function sortRelatedImages(b: Bundle): void {
  b.relatedImages?.sort((x, y) => compareUtf8(x.image, y.image));
}
