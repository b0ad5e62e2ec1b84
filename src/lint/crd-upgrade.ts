/**
 * CRD upgrade safety along every upgrade edge of a catalog (replaces, skips, skipRange, in every
 * channel): the CRDs of the bundle upgraded from against those of the bundle upgraded to, by OLM
 * v1's preflight and OLM v0's rules (src/crd-safety). The CRDs come from the bundles'
 * olm.bundle.object properties. A finding sits on the blob of the bundle upgraded to and names the
 * edge, the CRD, the version and the field's path.
 */
import {
  compareCrdSets,
  crdOfBundleObject,
  crdSetOf,
  problemLine,
  type CrdProblem,
  type CrdSet,
} from '../crd-safety/index.js';
import type { Finding } from '../findings.js';
import { parseBundleDirSync } from '../bundle/parse.js';
import { ChannelGraph } from '../model/channel-graph.js';
import type { ModelBundle, ModelPackage } from '../model/model.js';
import type { RuleId } from '../rules.js';
import { bundlePlace, finding, packages, sortedByName, type LintInput } from './context.js';

/** `storedVersionRemoval` → `crd.stored-version-removal`. */
export function crdRuleId(check: CrdProblem['check']): RuleId {
  return `crd.${check.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}` as RuleId;
}

/**
 * The CRDs of a bundle: read from its directory when `--bundle-dirs` maps its image to one, else
 * kept apart by the loader, or read from its properties.
 */
function crdsOf(b: ModelBundle, input: LintInput, out: Finding[]): CrdSet {
  const dir = input.bundleDirs?.get(b.image);
  if (dir !== undefined) {
    try {
      return crdSetOf(parseBundleDirSync(dir).objects.map((o) => o.object));
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      out.push(
        finding('crd.bundle-unreadable', `bundle directory ${dir} of ${b.name}: ${why}`, bundlePlace(b)),
      );
      return new Map();
    }
  }
  const kept = b.blob === undefined ? undefined : input.bundleCrds?.get(b.blob);
  if (kept !== undefined) return crdSetOf(kept);
  const objects: unknown[] = [];
  for (const p of b.properties) {
    if (p.type !== 'olm.bundle.object') continue;
    const crd = crdOfBundleObject(p.value);
    if (crd !== undefined) objects.push(crd);
  }
  return crdSetOf(objects);
}

export interface CrdEdgeStats {
  /** Upgrade edges whose both ends ship CRDs that were compared. */
  edges: number;
  /** Of those, edges with at least one problem. */
  unsafe: number;
}

function packageFindings(p: ModelPackage, input: LintInput, out: Finding[], stats: CrdEdgeStats): void {
  const sets = new Map<string, CrdSet>();
  const setOf = (b: ModelBundle): CrdSet => {
    let s = sets.get(b.name);
    if (s === undefined) sets.set(b.name, (s = crdsOf(b, input, out)));
    return s;
  };
  const done = new Set<string>();
  for (const ch of sortedByName(p.channels.values())) {
    if (ch.synthesized) continue;
    const graph = ChannelGraph.fromModel(ch);
    for (const to of sortedByName(ch.bundles.values())) {
      for (const edge of graph.edgesInto(to)) {
        const from = ch.bundles.get(edge.from);
        const key = `${edge.from}\u0000${edge.to}`;
        // An edge in several channels is one upgrade.
        if (from === undefined || done.has(key)) continue;
        done.add(key);
        const [before, after] = [setOf(from), setOf(to)];
        if (before.size === 0 || after.size === 0) continue;
        stats.edges++;
        const problems = compareCrdSets(before, after);
        if (problems.length > 0) stats.unsafe++;
        for (const pr of problems) {
          out.push(
            finding(
              crdRuleId(pr.check),
              `upgrade ${from.name} -> ${to.name} (${edge.kind}): CRD ${JSON.stringify(pr.crd)}: ${problemLine(pr)}`,
              bundlePlace(to),
            ),
          );
        }
      }
    }
  }
}

/** The findings, and how many edges were checked and found unsafe (for figures). */
export function crdUpgradeCheck(input: LintInput): { findings: Finding[]; stats: CrdEdgeStats } {
  const findings: Finding[] = [];
  const stats: CrdEdgeStats = { edges: 0, unsafe: 0 };
  for (const p of packages(input.model)) packageFindings(p, input, findings, stats);
  return { findings, stats };
}

export function crdUpgradeFindings(input: LintInput): Finding[] {
  return crdUpgradeCheck(input).findings;
}
