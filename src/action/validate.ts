/**
 * `opm validate` as a library call: load a catalog directory, check every blob against the schemas,
 * convert it to the model with every check of opm (`alpha/declcfg/declcfg_to_model.go`,
 * `alpha/model/model.go`), run the rules beyond opm (src/lint), apply the configured severities,
 * and return all findings in a stable order together with the message opm
 * would have printed.
 */
import type { DeclarativeConfig } from '../declcfg/types.js';
import type { ImageSource } from '../oci/image-source.js';
import { CatalogDirError, loadCatalogDir } from '../declcfg/load.js';
import { OpmError } from '../errors.js';
import { mergeSortedFindings, sortFindings, type Finding } from '../findings.js';
import { convertToModel } from '../model/convert.js';
import type { Model } from '../model/model.js';
import { lintFindings, type LintPolicies } from '../lint/index.js';
import { applySeverities } from '../lint/config.js';
import type { RuleId, RuleLevel } from '../rules.js';
import { schemaFindings } from '../schema/schema.js';
import { errnoText } from '../go/errno.js';

/**
 * Loads a catalog directory, reporting file problems (syntax errors…) as findings, sorted, instead of
 * failing; a root that is missing or not a directory throws CatalogDirError (as loadCatalogDir does).
 */
export type CatalogLoader = (dir: string) => Promise<{ cfg: DeclarativeConfig; findings: Finding[] }>;

export interface ValidateOptions {
  /** How to read the directory; the FBC loader by default. */
  load?: CatalogLoader;
  /** Run the JSON Schema checks (default true). */
  schemas?: boolean;
  /** How to name the directory in errors (the path as the user wrote it); `dir` by default. */
  displayDir?: string;
  /** Run the rules beyond opm (default true). */
  lint?: boolean;
  /** Severity per rule, overriding the defaults (rules opm enforces are not affected). */
  severities?: ReadonlyMap<RuleId, RuleLevel>;
  /** Settings of the policy rules. */
  policies?: LintPolicies;
  /** Other catalogs that may satisfy dependencies, already loaded. */
  others?: readonly DeclarativeConfig[];
  /**
   * References of other catalogs that may satisfy dependencies (`--with`): catalog directories or
   * images, bundle directories or images, read as `render` reads them.
   */
  with?: readonly string[];
  /** Where `with` image references are pulled from. */
  imageSource?: ImageSource;
  /** Directory `with` paths are relative to (default: the process's). */
  cwd?: string;
  /** Warnings fail the validation too. */
  strict?: boolean;
}

export interface ValidateResult {
  /** No error (and, with `strict`, no warning either). */
  passed: boolean;
  /** Errors and warnings, sorted by file, line, rule and message. */
  findings: Finding[];
  /** When not passed: opm's error text if opm would fail too, else the first error finding. */
  message?: string;
}

/**
 * The FBC loader, with bundle manifests dropped once checked (validation needs the graph, and of
 * the manifests only the CSV's annotations).
 */
const defaultLoader: CatalogLoader = (dir) =>
  loadCatalogDir(dir, { elidePayloads: true, keepCsvAnnotations: true });

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

/** opm validate's words for a root that is missing (Go's os.Stat error text) or not a directory. */
function directoryError(err: CatalogDirError, shown: string): OpmError {
  const e = err.statError;
  if (e === undefined) return new OpmError(`"${shown}" is not a directory`);
  return new OpmError(`stat ${shown}: ${errnoText(e)}`, { cause: e });
}

/** Load the `--with` catalogs as render does (errors name the reference). */
async function loadOthers(opts: ValidateOptions): Promise<DeclarativeConfig[]> {
  const out = [...(opts.others ?? [])];
  if (opts.with !== undefined && opts.with.length > 0) {
    const { render } = await import('./render.js');
    for (const ref of opts.with) {
      out.push(
        await render({
          refs: [ref],
          ...(opts.imageSource === undefined ? {} : { imageSource: opts.imageSource }),
          ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
        }),
      );
    }
  }
  return out;
}

export async function validateCatalog(dir: string, opts: ValidateOptions = {}): Promise<ValidateResult> {
  let loaded;
  try {
    loaded = await (opts.load ?? defaultLoader)(dir);
  } catch (err) {
    throw err instanceof CatalogDirError ? directoryError(err, opts.displayDir ?? dir) : err;
  }
  const { cfg, findings: loadFindings } = loaded;
  // Findings of the checks below; the loader's come sorted already.
  const findings: Finding[] = [];
  const otherConfigs = opts.lint === false ? [] : await loadOthers(opts);
  const annotations = takeCsvAnnotations(cfg);
  const loadFailed = loadFindings.some((f) => f.severity === 'error');
  if (opts.schemas !== false) findings.push(...schemaFindings(cfg));

  const levels = opts.severities ?? new Map<RuleId, RuleLevel>();
  let opmMessage: string | undefined;
  if (!loadFailed) {
    // Blobs of a file that failed to parse are missing; model checks would only add echoes of that.
    const converted = convertToModel(cfg);
    findings.push(...converted.findings);
    opmMessage = converted.opmMessage;
    if (opts.lint !== false) {
      const others: Model[] = otherConfigs.map((o) => convertToModel(o).model);
      findings.push(
        ...lintFindings(
          {
            model: converted.model,
            others,
            policies: opts.policies ?? {},
            csvAnnotations: annotations,
          },
          levels,
        ),
      );
    }
  }
  const sorted = mergeSortedFindings(
    applySeverities(loadFindings, levels),
    sortFindings(applySeverities(findings, levels)),
  );
  const firstError = sorted.find((f) => f.severity === 'error');
  const firstWarning = opts.strict === true ? sorted.find((f) => f.severity === 'warning') : undefined;
  const firstFailure = firstError ?? firstWarning;
  const passed = firstFailure === undefined;
  const result: ValidateResult = { passed, findings: sorted };
  if (!passed) {
    const firstLoad = loadFindings.find((f) => f.severity === 'error');
    // opm's `error.message` carries no location (findings do); for files that do not parse, the
    // words are the reader's own, which are not go-yaml's.
    if (firstLoad !== undefined) result.message = firstLoad.message;
    else result.message = opmMessage ?? firstFailure.message;
  }
  return result;
}
