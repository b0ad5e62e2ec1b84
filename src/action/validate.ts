/**
 * `opm validate` as a library call: load a catalog directory, check every blob against the schemas,
 * convert it to the model with every check of opm (`alpha/declcfg/declcfg_to_model.go`,
 * `alpha/model/model.go`), and return all findings in a stable order together with the message opm
 * would have printed.
 */
import type { DeclarativeConfig } from '../declcfg/types.js';
import { CatalogDirError, loadCatalogDir } from '../declcfg/load.js';
import { OpmError } from '../errors.js';
import { mergeSortedFindings, sortFindings, type Finding } from '../findings.js';
import { convertToModel } from '../model/convert.js';
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
}

export interface ValidateResult {
  passed: boolean;
  /** Errors and warnings, sorted by file, line, rule and message. */
  findings: Finding[];
  /** When not passed: opm's error text if opm would fail too, else the first error finding. */
  message?: string;
}

/** The FBC loader, with bundle manifests dropped once checked: validation needs the graph only. */
const defaultLoader: CatalogLoader = (dir) => loadCatalogDir(dir, { elidePayloads: true });

/** opm validate's words for a root that is missing (Go's os.Stat error text) or not a directory. */
function directoryError(err: CatalogDirError, shown: string): OpmError {
  const e = err.statError;
  if (e === undefined) return new OpmError(`"${shown}" is not a directory`);
  return new OpmError(`stat ${shown}: ${errnoText(e)}`, { cause: e });
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
  const loadFailed = loadFindings.some((f) => f.severity === 'error');
  if (opts.schemas !== false) findings.push(...schemaFindings(cfg));

  let opmMessage: string | undefined;
  if (!loadFailed) {
    // Blobs of a file that failed to parse are missing; model checks would only add echoes of that.
    const converted = convertToModel(cfg);
    findings.push(...converted.findings);
    opmMessage = converted.opmMessage;
  }
  const sorted = mergeSortedFindings(loadFindings, sortFindings(findings));
  const firstError = sorted.find((f) => f.severity === 'error');
  const passed = firstError === undefined;
  const result: ValidateResult = { passed, findings: sorted };
  if (!passed) {
    const firstLoad = loadFindings.find((f) => f.severity === 'error');
    // opm's `error.message` carries no location (findings do); for files that do not parse, the
    // words are the reader's own, which are not go-yaml's.
    if (firstLoad !== undefined) result.message = firstLoad.message;
    else result.message = opmMessage ?? firstError.message;
  }
  return result;
}
