/**
 * CRD upgrade safety of the upgrade edges a catalog change adds: for each edge of the new catalog
 * that the old one did not have in that package (users on `from` may now upgrade to `to`), the
 * CRDs of the two bundles compared by the rules of `validate --crd-upgrade-safety`
 * (src/crd-safety). The CRDs come from the bundles' olm.bundle.object properties, or from bundle
 * directories mapped by image reference; an edge is left out when either bundle's manifests are
 * unknown. The bundle upgraded from may be one the new catalog dropped: users still run it.
 */
import { parseBundleDirSync } from '../bundle/parse.js';
import {
  compareCrdSets,
  crdOfBundleObject,
  crdSetOf,
  problemLine,
  type CrdSet,
} from '../crd-safety/index.js';
import type { Bundle, Channel } from '../declcfg/types.js';
import { compareUtf8 } from '../go/utf8.js';
import { crdRuleId } from '../lint/crd-upgrade.js';
import { ChannelGraph, versionLookup, type EdgeKind } from '../model/channel-graph.js';
import type { RuleId } from '../rules.js';

/** A problem of one new upgrade edge. */
export interface CrdEdgeProblem {
  package: string;
  /** The first channel (in byte order) that has the edge. */
  channel: string;
  from: string;
  to: string;
  edge: EdgeKind;
  /** The validate rule (`crd.type`). */
  rule: RuleId;
  crd: string;
  /** As validate words it: `v1: ^.spec.size: type: type changed : "integer" -> "string"`. */
  message: string;
}

/** One side of a package: its channels and bundles by name. */
export interface PackageSide {
  channels: ReadonlyMap<string, Channel>;
  bundles: ReadonlyMap<string, Bundle>;
}

/** The edges of a package's channels, each once (`from\0to`), with the first channel that has it. */
function edgesOf(
  side: PackageSide,
): Map<string, { channel: string; from: string; to: string; kind: EdgeKind }> {
  const out = new Map<string, { channel: string; from: string; to: string; kind: EdgeKind }>();
  const versionOf = versionLookup(side.bundles);
  for (const name of [...side.channels.keys()].sort(compareUtf8)) {
    const ch = side.channels.get(name) as Channel;
    const graph = ChannelGraph.fromEntries(ch.entries ?? [], versionOf);
    for (const e of graph.entries) {
      for (const edge of graph.edgesInto(e)) {
        const key = `${edge.from}\u0000${edge.to}`;
        if (!out.has(key)) out.set(key, { channel: name, ...edge });
      }
    }
  }
  return out;
}

/** A bundle's CRDs, or undefined when its manifests are unknown (or its directory unreadable). */
function crdsOf(b: Bundle, bundleDirs: ReadonlyMap<string, string> | undefined): CrdSet | undefined {
  const dir = b.image === '' ? undefined : bundleDirs?.get(b.image);
  if (dir !== undefined) {
    try {
      return crdSetOf(parseBundleDirSync(dir).objects.map((o) => o.object));
    } catch {
      return undefined;
    }
  }
  const objects = (b.properties ?? []).filter((p) => p.type === 'olm.bundle.object');
  if (objects.length === 0) return undefined;
  const crds: unknown[] = [];
  for (const p of objects) {
    const crd = crdOfBundleObject(p.value);
    if (crd !== undefined) crds.push(crd);
  }
  return crdSetOf(crds);
}

/** The CRD problems of the edges `after` has and `before` (undefined: a new package) had not. */
export function newEdgeCrdProblems(
  pkg: string,
  before: PackageSide | undefined,
  after: PackageSide,
  bundleDirs?: ReadonlyMap<string, string>,
): CrdEdgeProblem[] {
  const old = before === undefined ? new Map() : edgesOf(before);
  const sets = new Map<Bundle, CrdSet | undefined>();
  const setOf = (b: Bundle): CrdSet | undefined => {
    if (!sets.has(b)) sets.set(b, crdsOf(b, bundleDirs));
    return sets.get(b);
  };
  const out: CrdEdgeProblem[] = [];
  for (const [key, e] of edgesOf(after)) {
    if (old.has(key)) continue;
    const from = after.bundles.get(e.from) ?? before?.bundles.get(e.from);
    const to = after.bundles.get(e.to);
    if (from === undefined || to === undefined) continue;
    const [a, b] = [setOf(from), setOf(to)];
    if (a === undefined || b === undefined) continue;
    for (const p of compareCrdSets(a, b)) {
      out.push({
        package: pkg,
        channel: e.channel,
        from: e.from,
        to: e.to,
        edge: e.kind,
        rule: crdRuleId(p.check),
        crd: p.crd,
        message: problemLine(p),
      });
    }
  }
  // Edge by edge in byte order, each edge's problems in check order.
  return out.sort((x, y) => compareUtf8(x.to, y.to) || compareUtf8(x.from, y.from));
}
