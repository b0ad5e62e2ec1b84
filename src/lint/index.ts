/**
 * The rules beyond opm: what OLM checks later, when it resolves, upgrades or installs, plus
 * policies a catalog's maintainers may turn on. Every finding has a rule id from src/rules.ts; its
 * severity is set afterwards from the defaults and the configuration (config.ts).
 */
import type { Finding } from '../findings.js';
import { RULE_IDS, ruleInfo, type RuleId, type RuleLevel } from '../rules.js';
import type { LintInput } from './context.js';
import { blobSchemaFindings } from './blob-schema.js';
import { dependencyFindings } from './dependencies.js';
import { metadataFindings } from './metadata.js';
import { policyFindings } from './policies.js';
import { upgradeGraphFindings } from './upgrade-graph.js';
import { crdUpgradeFindings } from './crd-upgrade.js';

export type { ImageCrds, LintInput, LintPolicies, Provider } from './context.js';
export { providersOf } from './dependencies.js';

/** Each group of rules, by the prefix of its rule ids. */
const DEPENDENCIES = { prefixes: ['dependency.', 'constraint.'], run: dependencyFindings };
const CRD_UPGRADE = { prefixes: ['crd.'], run: crdUpgradeFindings };
const GROUPS: readonly { prefixes: readonly string[]; run: (input: LintInput) => Finding[] }[] = [
  DEPENDENCIES,
  { prefixes: ['blob.'], run: (input) => blobSchemaFindings(input.unknownBlobs ?? []) },
  { prefixes: ['upgrade.'], run: upgradeGraphFindings },
  { prefixes: ['metadata.'], run: metadataFindings },
  { prefixes: ['policy.'], run: policyFindings },
  CRD_UPGRADE,
];

/**
 * Findings of every group with a rule not turned off by `levels` (the configured severities; the
 * rule's default otherwise). A group whose rules are all off is not run: its findings would all be
 * dropped (the policies are off by default). `dependencies` true runs only the dependency rules,
 * false all others (for a catalog checked in parts, whose dependencies are judged once every
 * part's bundles are known).
 */
export function lintFindings(
  input: LintInput,
  levels?: ReadonlyMap<RuleId, RuleLevel>,
  dependencies?: boolean,
): Finding[] {
  const out: Finding[] = [];
  for (const g of GROUPS) {
    if (dependencies !== undefined && (g === DEPENDENCIES) !== dependencies) continue;
    if (groupOn(g, levels)) out.push(...g.run(input));
  }
  return out;
}

/** Whether any dependency rule is on under `levels` (else a catalog in parts need not gather bundles). */
export function dependencyRulesOn(levels?: ReadonlyMap<RuleId, RuleLevel>): boolean {
  return groupOn(DEPENDENCIES, levels);
}

/** Whether any CRD upgrade rule is on under `levels` (else the loader need not keep the CRDs). */
export function crdRulesOn(levels?: ReadonlyMap<RuleId, RuleLevel>): boolean {
  return groupOn(CRD_UPGRADE, levels);
}

/** Whether some rule of `g` is not turned off by `levels` (the rule's default otherwise). */
function groupOn(g: { prefixes: readonly string[] }, levels?: ReadonlyMap<RuleId, RuleLevel>): boolean {
  return RULE_IDS.some(
    (id) => g.prefixes.some((p) => id.startsWith(p)) && (levels?.get(id) ?? ruleInfo(id).severity) !== 'off',
  );
}
