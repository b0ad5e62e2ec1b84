/**
 * Upgrade impact of a catalog change: the bundles from which users could upgrade to their
 * channel's head in the old catalog and cannot in the new one. OLM upgrades an installed bundle to
 * a channel entry that replaces it, skips it, or whose skipRange matches its version, so a bundle
 * that the new catalog no longer lists still upgrades when some entry on a path to the head names
 * it (or its version). In a channel with several heads (which does not validate) the head is the
 * one with the highest version: bundles that only reach another head are cut off.
 */
import type { Channel } from '../declcfg/types.js';
import { compareUtf8 } from '../go/utf8.js';
import { ChannelGraph, VersionIndex, type VersionOf } from '../model/channel-graph.js';
import type { SemVer } from '../model/semver.js';

export type ImpactReason = 'stranded' | 'removed' | 'channel-removed' | 'package-removed';

export interface UpgradeImpact {
  package: string;
  channel: string;
  bundle: string;
  reason: ImpactReason;
}

/** One side of the comparison: a package's channels and its bundles' versions. */
export interface PackageGraph {
  channels: ReadonlyMap<string, Channel>;
  versionOf: VersionOf;
}

/** A channel's graph and the names in it from which its head can be reached. */
function reaching(ch: Channel, versionOf: VersionOf): { graph: ChannelGraph; reached: Set<string> } {
  const graph = ChannelGraph.fromEntries(ch.entries ?? [], versionOf);
  const head = graph.head();
  return { graph, reached: graph.reaching(head === undefined ? [] : [head]) };
}

/**
 * Of the bundles no longer listed (`gone`, with their old versions), those that no entry on a path
 * to the head replaces, skips or skipRanges.
 */
function notTaken(
  graph: ChannelGraph,
  reached: ReadonlySet<string>,
  gone: readonly string[],
  versionOf: VersionOf,
): Set<string> {
  const left = new Set(gone);
  const versions: { item: string; version: SemVer }[] = [];
  for (const name of gone) {
    const version = versionOf(name);
    if (version !== undefined) versions.push({ item: name, version });
  }
  const take = new VersionIndex(versions).search();
  for (const e of graph.entries) {
    if (!reached.has(e.name)) continue;
    left.delete(e.replaces);
    for (const s of e.skips) left.delete(s);
    const range = graph.skipRangeOf(e);
    if (range !== undefined) take(range, (name) => left.delete(name));
  }
  return left;
}

/** The impact on one package; `after` undefined when the package was removed. */
export function packageImpact(
  pkg: string,
  before: PackageGraph,
  after: PackageGraph | undefined,
): UpgradeImpact[] {
  const out: UpgradeImpact[] = [];
  for (const name of [...before.channels.keys()].sort(compareUtf8)) {
    const oldCh = before.channels.get(name) as Channel;
    const oldReach = reaching(oldCh, before.versionOf).reached;
    const users = [...oldReach].sort(compareUtf8);
    const newCh = after?.channels.get(name);
    if (after === undefined || newCh === undefined) {
      const reason: ImpactReason = after === undefined ? 'package-removed' : 'channel-removed';
      for (const bundle of users) out.push({ package: pkg, channel: name, bundle, reason });
      continue;
    }
    const { graph, reached: newReach } = reaching(newCh, after.versionOf);
    // Installed on clusters though no longer listed: something on a path to the head must take it.
    const gone = users.filter((b) => !graph.has(b));
    const cutOff = notTaken(graph, newReach, gone, before.versionOf);
    for (const bundle of users) {
      if (graph.has(bundle)) {
        if (!newReach.has(bundle)) out.push({ package: pkg, channel: name, bundle, reason: 'stranded' });
      } else if (cutOff.has(bundle)) {
        out.push({ package: pkg, channel: name, bundle, reason: 'removed' });
      }
    }
  }
  return out;
}

/** The sentence for one impact, as the text and markdown outputs print it. */
export function impactSentence(i: UpgradeImpact, name: (s: string) => string = (s) => s): string {
  const who = `users on ${name(i.bundle)} in channel ${name(i.channel)} of package ${name(i.package)} can no longer upgrade`;
  switch (i.reason) {
    case 'stranded':
      return `${who}: it has no upgrade path to the channel head any more`;
    case 'removed':
      return `${who}: it was removed and no bundle on a path to the head replaces, skips or skipRanges it`;
    case 'channel-removed':
      return `${who}: the channel was removed`;
    case 'package-removed':
      return `${who}: the package was removed`;
  }
}
