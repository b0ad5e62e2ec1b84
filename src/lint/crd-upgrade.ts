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
 * from its image's manifests when they were pulled, else kept apart by the loader, or read from its
 * properties. Undefined when its manifests are unknown (a catalog without olm.bundle.object
 * properties for it): a bundle that ships no CRD is then not told from one whose CRDs are missing.
 */
function crdsOf(b: ModelBundle, input: LintInput, out: Finding[]): CrdSet | undefined {
  const dir = input.bundleDirs?.get(b.image);
  if (dir !== undefined) {
    try {
      return crdSetOf(parseBundleDirSync(dir).objects.map((o) => o.object));
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      out.push(
        finding('crd.bundle-unreadable', `bundle directory ${dir} of ${b.name}: ${why}`, bundlePlace(b)),
      );
      return undefined;
    }
  }
  const pulled = input.imageCrds?.get(b.image);
  if (pulled !== undefined) {
    if ('error' in pulled) {
      out.push(
        finding(
          'crd.bundle-unreadable',
          `bundle image ${b.image} of ${b.name}: ${pulled.error}`,
          bundlePlace(b),
        ),
      );
      return undefined;
    }
    return crdSetOf(pulled.crds);
  }
  const kept = b.blob === undefined ? undefined : input.bundleCrds?.get(b.blob);
  if (kept !== undefined) return crdSetOf(kept);
  const objects: unknown[] = [];
  let manifests = false;
  for (const p of b.properties) {
    if (p.type !== 'olm.bundle.object') continue;
    manifests = true;
    const crd = crdOfBundleObject(p.value);
    if (crd !== undefined) objects.push(crd);
  }
  return manifests ? crdSetOf(objects) : undefined;
}

export interface CrdEdgeStats {
  /** Upgrade edges whose both ends' manifests are known, with a CRD on at least one end. */
  edges: number;
  /** Of those, edges with at least one problem. */
  unsafe: number;
}

function packageFindings(p: ModelPackage, input: LintInput, out: Finding[], stats: CrdEdgeStats): void {
  const sets = new Map<string, CrdSet | undefined>();
  const setOf = (b: ModelBundle): CrdSet | undefined => {
    if (!sets.has(b.name)) sets.set(b.name, crdsOf(b, input, out));
    return sets.get(b.name);
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
        if (before === undefined || after === undefined || (before.size === 0 && after.size === 0)) continue;
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
