/**
 * File-Based Catalog wire types (opm's declcfg). Field order of the JSON output is decided by the
 * writers (src/declcfg/write.ts), not by these declarations.
 */
import type { JsonObject } from '../go/json-value.js';
import type { Property } from '../property/types.js';
import { expectConfig } from '../util/args.js';

/** File (relative to the catalog root, POSIX separators) and 1-based line where a blob starts. */
export interface Location {
  file: string;
  line: number;
}

export const SCHEMA_PACKAGE = 'olm.package';
export const SCHEMA_CHANNEL = 'olm.channel';
export const SCHEMA_BUNDLE = 'olm.bundle';
export const SCHEMA_DEPRECATIONS = 'olm.deprecations';

export interface Icon {
  /** Standard padded base64. */
  base64data: string;
  mediatype: string;
}

export interface Package {
  schema: typeof SCHEMA_PACKAGE;
  name: string;
  /** Always written, may be ''. */
  defaultChannel: string;
  icon?: Icon;
  description?: string;
  properties?: Property[];
  loc?: Location;
}

export interface ChannelEntry {
  name: string;
  replaces?: string;
  skips?: string[];
  skipRange?: string;
}

export interface Channel {
  schema: typeof SCHEMA_CHANNEL;
  name: string;
  package: string;
  /** null when the blob had no entries (written as `null`, as opm does). */
  entries: ChannelEntry[] | null;
  properties?: Property[];
  loc?: Location;
}

export interface RelatedImage {
  name: string;
  image: string;
}

export interface Bundle {
  schema: typeof SCHEMA_BUNDLE;
  name: string;
  package: string;
  /** Always written, may be ''. */
  image: string;
  properties?: Property[];
  relatedImages?: RelatedImage[];
  loc?: Location;
  /**
   * Set when the loader dropped the contents of olm.bundle.object properties to save memory
   * (validation needs the graph, not the payloads): the properties stay, with `value` `{}`.
   */
  payloadsElided?: boolean;
  /**
   * With `keepCsvAnnotations`, the metadata.annotations of the ClusterServiceVersion among the
   * elided payloads (validation reads them; the rest of the CSV is not kept).
   */
  csvAnnotations?: Record<string, string>;
  /** With `keepCrds`, the CustomResourceDefinitions among the elided payloads. */
  crds?: unknown[];
}

export interface PackageScopedReference {
  schema: string;
  name?: string;
}

export interface DeprecationEntry {
  reference: PackageScopedReference;
  message: string;
}

export interface Deprecation {
  schema: typeof SCHEMA_DEPRECATIONS;
  package: string;
  /** null when the blob had no entries (written as `null`, as opm does). */
  entries: DeprecationEntry[] | null;
  loc?: Location;
}

/** A blob of any other schema, kept whole. */
export interface Meta {
  schema: string;
  package: string;
  name: string;
  blob: JsonObject;
  loc?: Location;
}

/** One blob of any schema, tagged with its kind. */
export type Blob =
  | { kind: 'package'; value: Package }
  | { kind: 'channel'; value: Channel }
  | { kind: 'bundle'; value: Bundle }
  | { kind: 'deprecation'; value: Deprecation }
  | { kind: 'other'; value: Meta };

/**
 * Where the bundles a loader left without their olm.bundle.object payloads (`payloadsElided`) get
 * them back (LoadOptions.deferPayloads; payloads.ts reads them from the catalog files). The writers
 * call `restore` as each bundle's turn comes.
 */
export interface DeferredPayloads {
  /** `bundle` whole, or `bundle` itself when its payloads were not deferred here. */
  restore(bundle: Bundle): Bundle;
  /** This and `other` as one, for a merged config (before anything is restored). */
  merge(other: DeferredPayloads): DeferredPayloads;
}

export interface DeclarativeConfig {
  packages: Package[];
  channels: Channel[];
  bundles: Bundle[];
  deprecations: Deprecation[];
  others: Meta[];
  /** Set when bundles were loaded without their payloads; the writers read them back through it. */
  payloads?: DeferredPayloads;
}

/** A catalog with no blobs: the start of one built in code. */
export function emptyConfig(): DeclarativeConfig {
  return { packages: [], channels: [], bundles: [], deprecations: [], others: [] };
}

/** Add a blob to the list of its kind, after those already there. */
export function addBlob(cfg: DeclarativeConfig, b: Blob): void {
  if (b.kind === 'package') cfg.packages.push(b.value);
  else if (b.kind === 'channel') cfg.channels.push(b.value);
  else if (b.kind === 'bundle') cfg.bundles.push(b.value);
  else if (b.kind === 'deprecation') cfg.deprecations.push(b.value);
  else cfg.others.push(b.value);
}

/** opm's DeclarativeConfig.Merge: plain concatenation (deferred payloads merged too). */
export function mergeConfigs(configs: DeclarativeConfig[]): DeclarativeConfig {
  if (!Array.isArray(configs))
    throw new TypeError('mergeConfigs(configs) must be an array of DeclarativeConfigs');
  configs.forEach((c, i) => expectConfig(c, `mergeConfigs(configs)[${i}]`));
  const out = emptyConfig();
  for (const c of configs) {
    out.packages.push(...c.packages);
    out.channels.push(...c.channels);
    out.bundles.push(...c.bundles);
    out.deprecations.push(...c.deprecations);
    out.others.push(...c.others);
    if (c.payloads !== undefined) {
      out.payloads = out.payloads === undefined ? c.payloads : out.payloads.merge(c.payloads);
    }
  }
  return out;
}
