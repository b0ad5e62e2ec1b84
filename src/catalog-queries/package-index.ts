/**
 * What the catalog server knows of every package without reading a bundle (operator-registry
 * `pkg/cache/pkgs.go`): per package its name, description, icon, default channel, deprecation and
 * channels; per channel its head and bundles; per bundle its replaces and skips. The queries
 * answer GetPackage and the channel-entry calls from it; the on-disk cache stores it as
 * `packages.json` (serve-cache/packages-json.ts). Built from a model here, once for both.
 */
import type { Model } from '../model/model.js';
import { ChannelGraph } from '../model/channel-graph.js';

export interface IndexBundle {
  package: string;
  channel: string;
  name: string;
  replaces: string;
  /** null when the channel entry had none (Go's nil slice, which `packages.json` writes as null). */
  skips: string[] | null;
}

export interface IndexChannel {
  name: string;
  /** The one bundle of the channel that no other bundle of it replaces or skips. */
  head: string;
  bundles: Map<string, IndexBundle>;
  deprecation?: { message: string };
}

export interface IndexPackage {
  name: string;
  description: string;
  /** Standard base64 of the icon's bytes, and its media type; null when the package has none. */
  icon: { base64data: string; mediatype: string } | null;
  defaultChannel: string;
  channels: Map<string, IndexChannel>;
  deprecation?: { message: string };
}

export type PackageIndex = Map<string, IndexPackage>;

/** A package index that cannot be read, or a channel whose head cannot be found. */
export class PackageIndexError extends Error {}

/**
 * The index of a model (opm's packagesFromModel): each channel's head is the one bundle nothing in
 * the channel replaces or skips, and a channel with none or several fails in opm's words.
 * A channel entry's `skips` is null when empty: the model does not keep apart an entry without
 * skips from one with an empty list (opm writes `[]` for the latter).
 */
export function packageIndexFromModel(model: Model): PackageIndex {
  const index: PackageIndex = new Map();
  for (const p of model.values()) {
    const channels = new Map<string, IndexChannel>();
    for (const ch of p.channels.values()) {
      const heads = ChannelGraph.fromModel(ch).heads();
      if (heads.length === 0) throw new PackageIndexError('no channel head found in graph');
      if (heads.length > 1)
        throw new PackageIndexError(`multiple channel heads found in graph: ${heads.join(', ')}`);
      const bundles = new Map<string, IndexBundle>();
      for (const b of ch.bundles.values()) {
        bundles.set(b.name, {
          package: p.name,
          channel: ch.name,
          name: b.name,
          replaces: b.replaces,
          skips: b.skips.length === 0 ? null : [...b.skips],
        });
      }
      const c: IndexChannel = { name: ch.name, head: heads[0] as string, bundles };
      if (ch.deprecation !== undefined) c.deprecation = { message: ch.deprecation.message };
      channels.set(ch.name, c);
    }
    const pkg: IndexPackage = {
      name: p.name,
      description: p.description,
      icon: p.icon === undefined ? null : { base64data: p.icon.base64data, mediatype: p.icon.mediatype },
      defaultChannel: p.defaultChannel?.name ?? '',
      channels,
    };
    if (p.deprecation !== undefined) pkg.deprecation = { message: p.deprecation.message };
    index.set(p.name, pkg);
  }
  return index;
}
