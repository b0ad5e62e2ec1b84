/**
 * The checks `validate` runs on a loaded catalog: the JSON Schemas, opm's model conversion and its
 * checks, and the rules beyond opm. Apart from validate.ts so that a validating worker thread
 * (validate-shards.ts) runs the very same checks on its share of the catalog.
 */
import type { DeclarativeConfig } from '../../declcfg/types.js';
import type { Finding } from '../../findings.js';
import { convertToModel } from '../../model/convert.js';
import type { Model } from '../../model/model.js';
import {
  crdRulesOn,
  dependencyRulesOn,
  lintFindings,
  type ImageCrds,
  type LintInput,
  type LintPolicies,
} from '../../lint/index.js';
import type { RuleId, RuleLevel } from '../../rules.js';
import { schemaFindings } from '../../schema/schema.js';

export interface CheckOptions {
  /** Run the JSON Schema checks (default true). */
  schemas?: boolean;
  /** Run the rules beyond opm (default true). */
  lint?: boolean;
  /** Severity per rule: a group of rules that are all off is not run. */
  severities?: ReadonlyMap<RuleId, RuleLevel>;
  /** Settings of the policy rules. */
  policies?: LintPolicies;
  /**
   * Bundle image reference → registry+v1 bundle directory (`--bundle-dirs`): where the CRD
   * upgrade rules read the CRDs of bundles whose manifests the catalog does not carry.
   */
  bundleDirs?: ReadonlyMap<string, string>;
  /** Bundle image reference → the CRDs of the pulled image (crd-images.ts), or why there are none. */
  imageCrds?: ReadonlyMap<string, ImageCrds>;
}

export interface CatalogChecks {
  /** In check order, severities not yet applied. */
  findings: Finding[];
  /** The error text opm would print, when its model conversion fails. */
  opmMessage?: string;
  /**
   * With `deferDependencies`, what the dependency rules are to be run on once the bundles of the
   * rest of the catalog are known (undefined when they are not to run).
   */
  deferred?: LintInput;
}

/**
 * How validate loads a catalog: bundle manifests dropped once checked (validation needs the graph,
 * and of the manifests only the CSV's annotations).
 */
export const VALIDATE_LOAD_OPTIONS = { elidePayloads: true, keepCsvAnnotations: true } as const;

/** VALIDATE_LOAD_OPTIONS, keeping the bundles' CRDs too when a CRD upgrade rule is on. */
export function validateLoadOptions(
  severities: ReadonlyMap<RuleId, RuleLevel> | undefined,
): typeof VALIDATE_LOAD_OPTIONS & { keepCrds?: boolean } {
  return crdRulesOn(severities) ? { ...VALIDATE_LOAD_OPTIONS, keepCrds: true } : VALIDATE_LOAD_OPTIONS;
}

/** Take the CRDs the loader kept off the bundles (they are not part of the blob). */
function takeCrds(cfg: DeclarativeConfig): Map<object, unknown[]> {
  const out = new Map<object, unknown[]>();
  for (const b of cfg.bundles) {
    if (b.crds === undefined) continue;
    out.set(b, b.crds);
    delete b.crds;
  }
  return out;
}

/** Take the CSV annotations the loader kept off the bundles (they are not part of the blob). */
function takeCsvAnnotations(cfg: DeclarativeConfig): Map<object, Record<string, string>> {
  const out = new Map<object, Record<string, string>>();
  for (const b of cfg.bundles) {
    if (b.csvAnnotations === undefined) continue;
    out.set(b, b.csvAnnotations);
    delete b.csvAnnotations;
  }
  return out;
}

/**
 * Check a loaded catalog. When loading failed (`loadFailed`), blobs of the file that failed are
 * missing, and the model checks would only add echoes of that: only the schemas are checked.
 * With `deferDependencies` (a part of a catalog) the dependency rules are left to the caller.
 */
export function checkCatalog(
  cfg: DeclarativeConfig,
  loadFailed: boolean,
  others: readonly DeclarativeConfig[],
  opts: CheckOptions,
  deferDependencies = false,
): CatalogChecks {
  const findings: Finding[] = [];
  const annotations = takeCsvAnnotations(cfg);
  const crds = takeCrds(cfg);
  if (opts.schemas !== false) findings.push(...schemaFindings(cfg));
  if (loadFailed) return { findings };
  const converted = convertToModel(cfg);
  findings.push(...converted.findings);
  if (opts.lint !== false) {
    const otherModels: Model[] = others.map((o) => convertToModel(o).model);
    const input = {
      model: converted.model,
      others: otherModels,
      policies: opts.policies ?? {},
      csvAnnotations: annotations,
      bundleCrds: crds,
      ...(opts.bundleDirs === undefined ? {} : { bundleDirs: opts.bundleDirs }),
      ...(opts.imageCrds === undefined ? {} : { imageCrds: opts.imageCrds }),
      unknownBlobs: cfg.others,
    };
    const levels = opts.severities ?? new Map<RuleId, RuleLevel>();
    // Deferred, the dependency rules are left out here (false); else every group runs (undefined).
    findings.push(...lintFindings(input, levels, deferDependencies ? false : undefined));
    if (deferDependencies && dependencyRulesOn(levels))
      return withMessage({ findings, deferred: input }, converted.opmMessage);
  }
  return withMessage({ findings }, converted.opmMessage);
}

function withMessage(checks: CatalogChecks, opmMessage: string | undefined): CatalogChecks {
  return opmMessage === undefined ? checks : { ...checks, opmMessage };
}
