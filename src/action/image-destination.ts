import { UsageError } from '../errors.js';
import { parseReference } from '../oci/reference.js';

/**
 * The destinations of an image that opm-ts builds itself (`image build`, `image base`): somewhere to
 * go, a tag to push to, and tags only (a digest cannot be pushed to).
 */
export function checkImageDestination(o: { tags: string[]; push: boolean; ociLayout?: string }): void {
  if (!o.push && o.ociLayout === undefined)
    throw new UsageError('say where the image goes: --push (to each --tag), --oci-layout DIR, or both');
  if (o.push && o.tags.length === 0) throw new UsageError('--push needs at least one --tag');
  for (const t of o.tags) {
    if (parseReference(t).digest !== undefined)
      throw new UsageError(`invalid --tag "${t}": a digest cannot be pushed to; name a tag`);
  }
}
