/**
 * The semantic model of a catalog (operator-registry `alpha/model/model.go`): packages own
 * channels, channels own bundles. A bundle listed in N channels is N model bundles
 * (replaces/skips/skipRange come from each channel's entry; image and properties from the single
 * olm.bundle blob).
 */
import type { Bundle, ChannelEntry, Icon, Location, RelatedImage } from '../declcfg/types.js';
import type { Property } from '../property/types.js';
import type { PropertiesParse } from '../property/property.js';
import { formatRelease, type Release } from './release.js';
import { formatSemver, type SemVer } from './semver.js';

export interface ModelDeprecation {
  message: string;
  loc?: Location;
}

export interface ModelPackage {
  name: string;
  description: string;
  icon?: Icon;
  /** The name the olm.package blob gave ('' when unset). */
  defaultChannelName: string;
  defaultChannel?: ModelChannel;
  channels: Map<string, ModelChannel>;
  deprecation?: ModelDeprecation;
  loc?: Location;
}

export interface ModelChannel {
  package: ModelPackage;
  name: string;
  bundles: Map<string, ModelBundle>;
  properties: Property[];
  deprecation?: ModelDeprecation;
  loc?: Location;
  /** Made up for a default channel that has no olm.channel blob. */
  synthesized: boolean;
}

export interface ModelBundle {
  package: ModelPackage;
  channel: ModelChannel;
  name: string;
  replaces: string;
  skips: string[];
  skipRange: string;
  /** The olm.bundle blob; undefined when a channel lists a bundle that has none. */
  blob?: Bundle;
  image: string;
  properties: Property[];
  relatedImages: RelatedImage[];
  /** Whether the bundle carries olm.bundle.object properties (its manifests). */
  hasObjects: boolean;
  version?: SemVer;
  release: Release;
  deprecation?: ModelDeprecation;
  /** Set when conversion already reported a problem with this bundle's blob. */
  blobReported: boolean;
  /** The properties as conversion parsed them (so validation need not parse them again). */
  propertiesParse?: PropertiesParse;
}

export type Model = Map<string, ModelPackage>;

/** A channel entry as a model bundle, before its olm.bundle blob (image, properties…) is read. */
export function entryBundle(pkg: ModelPackage, channel: ModelChannel, e: ChannelEntry): ModelBundle {
  return {
    package: pkg,
    channel,
    name: e.name,
    replaces: e.replaces ?? '',
    skips: e.skips ?? [],
    skipRange: e.skipRange ?? '',
    image: '',
    properties: [],
    relatedImages: [],
    hasObjects: false,
    release: [],
    blobReported: false,
  };
}

/** `Version.String()` plus `-<release>` when there is one; a bundle without a version counts as 0.0.0. */
export function bundleVersionString(b: ModelBundle): string {
  const v = b.version === undefined ? '0.0.0' : formatSemver(b.version);
  return b.release.length > 0 ? `${v}-${formatRelease(b.release)}` : v;
}

/** Where a bundle's problems are reported: its blob, else the channel listing it. */
export function bundleLocation(b: ModelBundle): Location | undefined {
  return b.blob?.loc ?? b.channel.loc;
}
