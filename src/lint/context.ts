/**
 * What every lint rule sees: the catalog's model (after opm's checks), the bundles of the catalogs
 * named with `--with`, the policy settings, and a way to report findings with a place.
 */
import type { Location, Meta } from '../declcfg/types.js';
import type { Finding } from '../findings.js';
import { compareUtf8 } from '../go/utf8.js';
import type { Model, ModelBundle, ModelPackage } from '../model/model.js';
import type { RuleId } from '../rules.js';
import type { SemVer } from '../model/semver.js';

export interface LintPolicies {
  /** Channel names allowed by `policy.channel-name` (`*` matches any run of characters). */
  channelNames?: string[];
}

export interface Gvk {
  group: string;
  version: string;
  kind: string;
}

/**
 * A bundle a requirement can be satisfied by: what it provides and what names it in messages. Plain
 * data, so that the bundles of a catalog checked in parts on several threads can be handed to
 * every part (src/action/validate/validate-shards.ts).
 */
export interface Provider {
  package: string;
  name: string;
  version?: SemVer;
  gvks: Gvk[];
  deprecated: boolean;
  /** 0: this catalog, 1: a `--with` catalog. */
  origin: 0 | 1;
}

export interface LintInput {
  model: Model;
  /** Models of other catalogs (`--with`), used only to satisfy dependencies. */
  others: Model[];
  /**
   * Every bundle of the catalog, in the order of its whole model, when `model` is only part of it
   * (a catalog checked in parts on several threads); used only to satisfy dependencies.
   */
  providers?: readonly Provider[];
  policies: LintPolicies;
  /** The blobs of schemas opm does not decode (checked for misspelt schemas). */
  unknownBlobs?: readonly Meta[];
  /**
   * CSV annotations of bundles whose manifests travel as olm.bundle.object (the CSV itself is
   * dropped after loading to save memory; its annotations are kept).
   */
  csvAnnotations?: ReadonlyMap<object, Readonly<Record<string, string>>>;
  /** The CRDs of bundles whose manifests travel as olm.bundle.object (kept apart, as the annotations). */
  bundleCrds?: ReadonlyMap<object, readonly unknown[]>;
  /** Bundle image reference → bundle directory, where bundles' CRDs are read when the catalog lacks them. */
  bundleDirs?: ReadonlyMap<string, string>;
  /**
   * Bundle image reference → the CRDs among the manifests of that image, pulled for bundles the
   * catalog carries no manifests of (`--crd-from-images`), or why they could not be read.
   */
  imageCrds?: ReadonlyMap<string, ImageCrds>;
}

/** The CRDs of a pulled bundle image, or why its manifests could not be read. */
export type ImageCrds = { crds: readonly unknown[] } | { error: string };

export interface Place {
  loc?: Location | undefined;
  package?: string | undefined;
  channel?: string | undefined;
  bundle?: string | undefined;
}

/** Build a finding at its default severity (the configuration adjusts severities afterwards). */
export function finding(rule: RuleId, message: string, place: Place): Finding {
  const f: Finding = { rule, severity: 'warning', message };
  if (place.loc !== undefined) {
    f.file = place.loc.file;
    f.line = place.loc.line;
  }
  if (place.package) f.package = place.package;
  if (place.channel) f.channel = place.channel;
  if (place.bundle) f.bundle = place.bundle;
  return f;
}

/** Where a bundle's findings go: its olm.bundle blob. */
export function bundlePlace(b: ModelBundle): Place {
  return { loc: b.blob?.loc ?? b.channel.loc, package: b.package.name, bundle: b.name };
}

/**
 * Every bundle that has a blob, once (a bundle in several channels is one model bundle per
 * channel; package-wide rules look at it once), in package then name order.
 */
export function uniqueBundles(model: Model): ModelBundle[] {
  const out: ModelBundle[] = [];
  for (const p of sortedByName(model.values())) {
    const seen = new Set<string>();
    for (const ch of sortedByName(p.channels.values())) {
      for (const b of sortedByName(ch.bundles.values())) {
        if (b.blob === undefined || seen.has(b.name)) continue;
        seen.add(b.name);
        out.push(b);
      }
    }
  }
  return out;
}

export function sortedByName<T extends { name: string }>(items: Iterable<T>): T[] {
  return [...items].sort((a, b) => compareUtf8(a.name, b.name));
}

/** A bundle counts as deprecated when it, or its whole package, is. */
export function isDeprecated(b: ModelBundle): boolean {
  return b.deprecation !== undefined || b.package.deprecation !== undefined;
}

export function packages(model: Model): ModelPackage[] {
  return sortedByName(model.values());
}
