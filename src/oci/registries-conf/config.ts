/**
 * The parts of containers-registries.conf(5), version 2, that decide where an image is pulled from:
 * `[[registry]]` tables (prefix, location, insecure, blocked, mirrors) and short-name `[aliases]`.
 * The shapes here are the result of parsing and merging; `parse.ts` builds them from TOML.
 */
import { compareUtf8 } from '../../go/utf8.js';

export type PullFromMirror = 'all' | 'digest-only' | 'tag-only';

export interface MirrorEndpoint {
  /** `host[:port][/namespace…]`, without a scheme. */
  location: string;
  /** Plain HTTP and unverified TLS allowed for this endpoint. */
  insecure: boolean;
  /** Which references this mirror serves. */
  pullFromMirror: PullFromMirror;
}

export interface RegistryEntry {
  /** What an image name must start with; `*.example.com` matches any subdomain. */
  prefix: string;
  /** Where the prefix-rooted namespace really lives; '' only for a wildcard prefix (no rewrite). */
  location: string;
  insecure: boolean;
  blocked: boolean;
  /** Legacy switch: mirrors only for references by digest. */
  mirrorByDigestOnly: boolean;
  mirrors: MirrorEndpoint[];
  /** The file the entry came from, for messages. */
  file: string;
}

export interface Alias {
  /** Fully qualified repository, without tag or digest. */
  value: string;
  file: string;
}

export interface RegistriesConf {
  /** Sorted by prefix; one entry per prefix. */
  registries: RegistryEntry[];
  /** Short name → repository. */
  aliases: Map<string, Alias>;
  /** `host[:port]` entries, when some file set them (opm-ts does not search them; see README). */
  unqualifiedSearchRegistries: string[] | undefined;
  shortNameMode: 'enforcing' | 'permissive' | 'disabled' | undefined;
  /** Every file read, in the order read. */
  files: string[];
  /** Keys that were ignored, as `file: message` lines. */
  warnings: string[];
}

export function emptyConf(): RegistriesConf {
  return {
    registries: [],
    aliases: new Map(),
    unqualifiedSearchRegistries: undefined,
    shortNameMode: undefined,
    files: [],
    warnings: [],
  };
}

/**
 * Lay a later file over an earlier one, as containers/image does for drop-ins: a `[[registry]]`
 * with the same prefix replaces the earlier table whole, aliases are replaced one by one (an empty
 * value erases one), and top-level settings a later file sets replace the earlier ones.
 */
export function mergeConf(base: RegistriesConf, later: RegistriesConf): RegistriesConf {
  const byPrefix = new Map(base.registries.map((r) => [r.prefix, r]));
  for (const r of later.registries) byPrefix.set(r.prefix, r);
  const aliases = new Map(base.aliases);
  for (const [name, a] of later.aliases) {
    if (a.value === '') aliases.delete(name);
    else aliases.set(name, a);
  }
  return {
    registries: sortByPrefix([...byPrefix.values()]),
    aliases,
    unqualifiedSearchRegistries: later.unqualifiedSearchRegistries ?? base.unqualifiedSearchRegistries,
    shortNameMode: later.shortNameMode ?? base.shortNameMode,
    files: [...base.files, ...later.files],
    warnings: [...base.warnings, ...later.warnings],
  };
}

export function sortByPrefix(entries: RegistryEntry[]): RegistryEntry[] {
  return entries.sort((a, b) => compareUtf8(a.prefix, b.prefix));
}
