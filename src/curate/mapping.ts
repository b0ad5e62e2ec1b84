/**
 * `source=destination` lines for mirroring tools (`oc image mirror -f`, skopeo sync scripts): each
 * image goes to the same repository path under a mirror prefix, keeping its digest when it has one
 * and its tag otherwise.
 */
import { OpmError, UsageError } from '../errors.js';
import { parseReference } from '../oci/reference.js';
import type { CatalogImage } from './images.js';

/** Check and normalise a `REGISTRY/PREFIX` (or just `REGISTRY`) destination. */
export function mirrorPrefix(text: string): string {
  const prefix = text.replace(/\/+$/, '');
  try {
    // The first component must read as a registry host, not as a Docker Hub repository.
    if (parseReference(`${prefix}/probe:latest`).registry !== prefix.split('/')[0]) {
      throw new Error('no registry host');
    }
  } catch (err) {
    const why = err instanceof OpmError ? err.message : 'it must start with a registry host';
    throw new UsageError(`invalid --mapping "${text}": ${why}`, {
      hint: 'give a registry host and an optional path, such as mirror.example.com:5000/olm',
    });
  }
  return prefix;
}

/** The destination of `image` under `prefix` (from mirrorPrefix). */
function mirrorDestination(image: string, prefix: string): string {
  const ref = parseReference(image);
  const dest = `${prefix}/${ref.repository}`;
  return ref.digest !== undefined ? `${dest}@${ref.digest}` : `${dest}:${ref.tag ?? 'latest'}`;
}

/** One `source=destination` line per image, in the images' order. Throws for an unparsable image. */
export function mappingLines(images: readonly CatalogImage[], prefix: string): string[] {
  return images.map((img) => {
    try {
      return `${img.image}=${mirrorDestination(img.image, prefix)}`;
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      throw new OpmError(`cannot map the image of bundle "${img.bundles[0] ?? ''}": ${msg}`, {});
    }
  });
}
