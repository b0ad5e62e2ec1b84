import { OpmError } from '../../errors.js';
import { formatReference, parseReference, type ImageReference } from '../reference.js';
import type { RegistriesConf } from './config.js';
import { findRegistry, pullSources, resolveAlias } from './match.js';

export interface Source {
  ref: ImageReference;
  /** Plain HTTP and unverified TLS allowed here (`insecure = true`). */
  insecure: boolean;
  mirror: boolean;
}

/**
 * Where to pull `refText` from: a short name goes through `[aliases]`; the `[[registry]]` table with
 * the longest matching prefix gives the mirrors to try and the location to end with. A blocked
 * registry is refused here, before anything is sent. Without configuration (or without a matching
 * table) the only source is the reference itself.
 */
export function planPull(conf: RegistriesConf, refText: string): Source[] {
  const alias = resolveAlias(conf, refText);
  const ref = parseReference(alias?.reference ?? refText);
  const canonical = formatReference(ref);
  const entry = findRegistry(conf, canonical);
  if (entry === undefined) return [{ ref, insecure: false, mirror: false }];
  if (entry.blocked) {
    throw new OpmError(
      `registry "${entry.prefix}" is blocked by ${entry.file}${alias !== undefined ? ` (short name resolved to ${canonical} by ${alias.file})` : ''}`,
      {
        code: 'E_REGISTRY_BLOCKED',
        hint: `remove "blocked = true" from its [[registry]] table to allow pulls`,
      },
    );
  }
  return pullSources(entry, canonical, ref.digest !== undefined).map((s) => {
    let r: ImageReference;
    try {
      r = s.reference === canonical ? ref : parseReference(s.reference);
    } catch (err) {
      throw new OpmError(
        `${entry.file}: [[registry]] prefix "${entry.prefix}" rewrites ${canonical} to "${s.reference}", which is not a valid reference`,
        { code: 'E_REGISTRIES_CONF', cause: err },
      );
    }
    return { ref: r, insecure: s.insecure, mirror: s.mirror };
  });
}
