import type { RegistriesConf, RegistryEntry } from './config.js';
import { hostOf } from './parse.js';

/** One place to try, in order: mirrors first, the (possibly relocated) source last. */
export interface PullSource {
  /** The reference to pull there, `host[:port]/repository(:tag|@digest)`. */
  reference: string;
  insecure: boolean;
  mirror: boolean;
}

/**
 * Where `ref` (a canonical `registry/repository[:tag][@digest]`) matches `prefix`: the length of
 * the matched part, or -1. A plain prefix matches whole path components (`example.com/foo` matches
 * `example.com/foo/bar` and `example.com/foo:1`, not `example.com/foobar`); a prefix naming only a
 * host does not match another port of it. `*.example.com` matches any subdomain of example.com.
 */
export function matchPrefix(ref: string, prefix: string): number {
  if (prefix.startsWith('*.')) {
    const suffix = prefix.slice(1);
    const i = ref.indexOf(suffix);
    if (i <= 0 || ref.slice(0, i).includes('/')) return -1;
    const end = i + suffix.length;
    if (end === ref.length) return end;
    const c = ref[end];
    return c === ':' || c === '/' || c === '@' ? end : -1;
  }
  if (!ref.startsWith(prefix)) return -1;
  if (ref.length === prefix.length) return prefix.length;
  const c = ref[prefix.length];
  if (c === '/' || c === '@') return prefix.length;
  // After a bare host a ':' starts a port, not a tag.
  if (c === ':' && prefix.includes('/')) return prefix.length;
  return -1;
}

/** The `[[registry]]` table with the longest prefix matching `ref`. */
export function findRegistry(conf: RegistriesConf, ref: string): RegistryEntry | undefined {
  let best: RegistryEntry | undefined;
  for (const r of conf.registries) {
    if (matchPrefix(ref, r.prefix) >= 0 && (best === undefined || r.prefix.length > best.prefix.length))
      best = r;
  }
  return best;
}

function rewrite(ref: string, prefix: string, location: string): string {
  if (location === '') return ref;
  return location + ref.slice(matchPrefix(ref, prefix));
}

/**
 * Where to pull `ref` from under `entry`: the mirrors that serve this kind of reference (by digest
 * or by tag), in order, then the registry's location.
 */
export function pullSources(entry: RegistryEntry | undefined, ref: string, byDigest: boolean): PullSource[] {
  if (entry === undefined) return [{ reference: ref, insecure: false, mirror: false }];
  const mirrors = entry.mirrors.filter((m) => {
    if (entry.mirrorByDigestOnly) return byDigest;
    if (m.pullFromMirror === 'digest-only') return byDigest;
    if (m.pullFromMirror === 'tag-only') return !byDigest;
    return true;
  });
  return [
    ...mirrors.map((m) => ({
      reference: rewrite(ref, entry.prefix, m.location),
      insecure: m.insecure,
      mirror: true,
    })),
    { reference: rewrite(ref, entry.prefix, entry.location), insecure: entry.insecure, mirror: false },
  ];
}

/** Whether `text` names an image without a registry (`busybox`, `library/busybox:1`). */
function isShortName(text: string): boolean {
  const name = text.trim();
  return hostOf(name) === undefined && name !== 'localhost' && !name.startsWith('localhost/');
}

/**
 * A short name with an alias, resolved: `name[:tag|@digest]` becomes the alias's repository with
 * the same tag or digest. Undefined when there is no alias for it.
 */
export function resolveAlias(
  conf: RegistriesConf,
  text: string,
): { reference: string; file: string } | undefined {
  const name = text.trim();
  if (!isShortName(name)) return undefined;
  const at = name.indexOf('@');
  let base = at >= 0 ? name.slice(0, at) : name;
  const suffixDigest = at >= 0 ? name.slice(at) : '';
  const colon = base.lastIndexOf(':');
  let suffixTag = '';
  if (colon > base.lastIndexOf('/')) {
    suffixTag = base.slice(colon);
    base = base.slice(0, colon);
  }
  const alias = conf.aliases.get(base);
  if (alias === undefined) return undefined;
  return { reference: `${alias.value}${suffixTag}${suffixDigest}`, file: alias.file };
}
