/**
 * The rules beyond opm: what OLM checks later, when it resolves, upgrades or installs, plus
 * policies a catalog's maintainers may turn on. Every finding has a rule id from src/rules.ts; its
 * severity is set afterwards from the defaults and the configuration (config.ts).
 */
import type { Finding } from '../findings.js';
import type { LintInput } from './context.js';
import { dependencyFindings } from './dependencies.js';
import { metadataFindings } from './metadata.js';
import { policyFindings } from './policies.js';
import { upgradeGraphFindings } from './upgrade-graph.js';

export type { LintInput, LintPolicies } from './context.js';

export function lintFindings(input: LintInput): Finding[] {
  return [
    ...dependencyFindings(input),
    ...upgradeGraphFindings(input),
    ...metadataFindings(input),
    ...policyFindings(input),
  ];
}
