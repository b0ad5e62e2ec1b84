/**
 * `opm validate` as a library call: load a catalog directory, check every blob against the schemas,
 * convert it to the model with every check of opm (`alpha/declcfg/declcfg_to_model.go`,
 * `alpha/model/model.go`), run the rules beyond opm (src/lint), apply the configured severities,
 * and return all findings in a stable order together with the message opm
 * would have printed.
 */
import type { DeclarativeConfig } from '../../declcfg/types.js';
import type { ImageSource } from '../../oci/image-source.js';
import {
  CatalogDirError,
  loadCatalogDir,
  walkCatalog,
  type CatalogDirLoader,
  type LoadResult,
} from '../../declcfg/load.js';
import { threadCount } from '../../declcfg/load-pool.js';
import { OpmError } from '../../errors.js';
import { mergeSortedFindings, sortFindings, type Finding } from '../../findings.js';
import { applySeverities } from '../../lint/config.js';
import { isRuleId, type RuleId, type RuleLevel } from '../../rules.js';
import { countFindings, type Counts } from '../../lint/github.js';
import {
  expectObject,
  expectOptionalBoolean,
  expectOptions,
  expectString,
  expectStringArray,
} from '../../util/args.js';
import { errnoText } from '../../go/errno.js';
import { phase, type ProgressSink } from '../../util/progress.js';
import { checkCatalog, validateLoadOptions, type CheckOptions } from './validate-checks.js';
import { pullBundleCrds } from './crd-images.js';
import { crdRulesOn } from '../../lint/index.js';
import { groupFiles, SHARD_MIN_BYTES, VALIDATE_WORKER, validateShards } from './validate-shards.js';
import { canStartWorker } from '../../util/worker-pool.js';
import { throwIfAborted } from '../../util/abort.js';

/**
 * Severity per rule: a Map, or a plain object such as `{ 'decode.unknown-field': 'error' }` (the
 * shape of JSON settings and of the README's example).
 */
export type Severities = ReadonlyMap<RuleId, RuleLevel> | Readonly<Partial<Record<RuleId, RuleLevel>>>;

/** The checks to run (CheckOptions: schemas, lint, severities, policies), and how. */
export interface ValidateOptions extends Omit<CheckOptions, 'severities'> {
  /** Severity per rule: a group of rules that are all off is not run. */
  severities?: Severities;
  /** How to read the directory; the FBC loader by default. */
  load?: CatalogDirLoader;
  /** How to name the directory in errors (the path as the user wrote it); `dir` by default. */
  displayDir?: string;
  /** Other catalogs that may satisfy dependencies, already loaded. */
  others?: readonly DeclarativeConfig[];
  /**
   * References of other catalogs that may satisfy dependencies (`--with`): catalog directories or
   * images, bundle directories or images, read as `render` reads them.
   */
  with?: readonly string[];
  /** Where `with` image references (and, with `crdFromImages`, bundle images) are pulled from. */
  imageSource?: ImageSource;
  /**
   * For the CRD upgrade rules, pull the bundle images of bundles on upgrade edges whose manifests
   * the catalog does not carry and `bundleDirs` does not map (needs `imageSource`; the catalog is
   * then validated in one piece).
   */
  crdFromImages?: boolean;
  /** Directory `with` paths are relative to (RenderOptions.cwd). */
  cwd?: string;
  /** The environment OPM_THREADS is read from (the command line passes the process's); none by default. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Stops the validation (between files, and between the steps of the checks); the promise rejects
   * with the signal's reason and worker threads are terminated (util/abort.ts).
   */
  signal?: AbortSignal;
  /** Warnings fail the validation too. */
  strict?: boolean;
  /**
   * Threads to validate with (1: this thread only); by default OPM_THREADS of `env`, else the available
   * parallelism, at most four (load-pool.ts).
   */
  threads?: number;
  /** Catalogs with fewer bytes are validated in this thread (default SHARD_MIN_BYTES). */
  shardMinBytes?: number;
  /** Progress as data: the validation as one phase (and the pulls of `with` images, by the source). */
  onProgress?: ProgressSink;
}

export interface ValidateResult {
  /** No error (and, with `strict`, no warning either). */
  passed: boolean;
  /** Errors and warnings, sorted by file, line, rule and message. */
  findings: Finding[];
  /** How many of the findings are errors and how many warnings (the `counts` of `-o json`). */
  counts: Counts;
  /** When not passed: opm's error text if opm would fail too, else the first error finding. */
  message?: string;
}

const LEVELS: readonly unknown[] = ['error', 'warning', 'off'] satisfies RuleLevel[];

/**
 * The `severities` option checked: a Map, or a plain object (`{ 'channel.multiple-heads':
 * 'warning' }`) for callers that write JSON-shaped settings; unknown rule ids and levels are a
 * TypeError rather than a setting silently ignored.
 */
function severitiesOf(value: unknown): ReadonlyMap<RuleId, RuleLevel> | undefined {
  if (value === undefined) return undefined;
  expectObject(
    value,
    'validateCatalog(dir, options).severities',
    "a Map or an object of rule id to 'error', 'warning' or 'off'",
  );
  const entries: [unknown, unknown][] = value instanceof Map ? [...value.entries()] : Object.entries(value);
  const out = new Map<RuleId, RuleLevel>();
  for (const [id, level] of entries) {
    if (typeof id !== 'string' || !isRuleId(id)) {
      throw new TypeError(
        `validateCatalog(dir, options).severities: unknown rule id ${JSON.stringify(id)} (RULE_IDS lists them)`,
      );
    }
    if (!LEVELS.includes(level)) {
      throw new TypeError(
        `validateCatalog(dir, options).severities: ${id} must be 'error', 'warning' or 'off', not ${JSON.stringify(level)}`,
      );
    }
    out.set(id, level as RuleLevel);
  }
  return out;
}

/** The options once checked: the severities as a Map. */
type CheckedOptions = Omit<ValidateOptions, 'severities'> & Pick<CheckOptions, 'severities'>;

/** The arguments of validateCatalog checked, for callers no compiler checks. */
function checkedOptions(dir: unknown, opts: unknown): CheckedOptions {
  expectString(dir, 'validateCatalog(dir)', 'the catalog directory');
  expectOptions(opts, 'validateCatalog(dir, options)');
  const { severities: given, ...o } = (opts ?? {}) as ValidateOptions;
  for (const key of ['schemas', 'lint', 'strict', 'crdFromImages'] as const) {
    expectOptionalBoolean(o[key], `validateCatalog(dir, options).${key}`);
  }
  if (o.with !== undefined)
    expectStringArray(o.with, 'validateCatalog(dir, options).with', 'catalog or bundle references');
  const severities = severitiesOf(given);
  return severities === undefined ? o : { ...o, severities };
}

/** opm validate's words for a root that is missing (Go's os.Stat error text) or not a directory. */
function directoryError(err: CatalogDirError, shown: string): OpmError {
  const e = err.statError;
  if (e === undefined) return new OpmError(`"${shown}" is not a directory`);
  return new OpmError(`stat ${shown}: ${errnoText(e)}`, { cause: e });
}

/** Load the `--with` catalogs as render does (errors name the reference). */
async function loadOthers(opts: CheckedOptions): Promise<DeclarativeConfig[]> {
  const out = [...(opts.others ?? [])];
  if (opts.with !== undefined && opts.with.length > 0) {
    const { render } = await import('../render/render.js');
    for (const ref of opts.with) {
      out.push(
        await render({
          refs: [ref],
          ...(opts.imageSource === undefined ? {} : { imageSource: opts.imageSource }),
          ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
          ...(opts.env === undefined ? {} : { env: opts.env }),
          ...(opts.signal === undefined ? {} : { signal: opts.signal }),
        }),
      );
    }
  }
  return out;
}

/** A catalog validated in shards on several threads, or loaded to be validated in one piece. */
type Prepared = { sharded: { loadFindings: Finding[]; findings: Finding[] } } | { loaded: LoadResult };

/**
 * The whole catalog's findings from shards validated on several threads (validate-shards.ts), or
 * the catalog loaded when it is to be validated in one piece: one thread, a small catalog, a
 * custom loader or other catalogs to resolve against, or shards whose findings may not be the
 * catalog's. The directory is walked once either way.
 */
async function shardOrLoad(dir: string, opts: CheckedOptions): Promise<Prepared> {
  const signal = opts.signal;
  if (opts.load !== undefined) return { loaded: await opts.load(dir) };
  const walked = await walkCatalog(dir, signal);
  const inOnePiece = async (): Promise<Prepared> => ({
    loaded: await loadCatalogDir(dir, {
      ...validateLoadOptions(opts.severities),
      walked,
      ...(opts.threads === undefined ? {} : { threads: opts.threads }),
      ...(opts.env === undefined ? {} : { env: opts.env }),
      ...(signal === undefined ? {} : { signal }),
    }),
  });
  const withOthers = (opts.others?.length ?? 0) > 0 || (opts.with?.length ?? 0) > 0 || pullsCrdImages(opts);
  let bytes = 0;
  for (const f of walked.files) bytes += f.size;
  const threads = threadCount(opts.threads, opts.env, bytes);
  if (
    threads < 2 ||
    withOthers ||
    walked.problems.length > 0 ||
    bytes < (opts.shardMinBytes ?? SHARD_MIN_BYTES)
  )
    return inOnePiece();
  const groups = groupFiles(walked.files);
  if (groups.length < 2 || !canStartWorker(VALIDATE_WORKER)) return inOnePiece();
  const merged = await validateShards(groups, threads, checkOptions(opts), signal);
  return merged === undefined ? inOnePiece() : { sharded: merged };
}

/** Whether bundle images are to be pulled for their CRDs (the CRD rules on, and asked for). */
function pullsCrdImages(opts: CheckedOptions): boolean {
  return opts.crdFromImages === true && opts.imageSource !== undefined && crdRulesOn(opts.severities);
}

/** The checks alone, for a worker thread (the loader, a function, cannot cross threads). */
function checkOptions(opts: CheckedOptions): CheckOptions {
  return {
    ...(opts.schemas === undefined ? {} : { schemas: opts.schemas }),
    ...(opts.lint === undefined ? {} : { lint: opts.lint }),
    ...(opts.severities === undefined ? {} : { severities: opts.severities }),
    ...(opts.policies === undefined ? {} : { policies: opts.policies }),
    ...(opts.bundleDirs === undefined ? {} : { bundleDirs: opts.bundleDirs }),
  };
}

/**
 * Validate the catalog in directory `dir` as `opm validate` does, with the rules beyond opm: every
 * finding at once, sorted, with its file and line. Never throws for a bad catalog (that is
 * `passed: false`); throws OpmError when `dir` is missing or not a directory, or a `with`
 * reference cannot be read.
 *
 * @example
 * const { passed, counts, findings } = await validateCatalog('catalog');
 */
export async function validateCatalog(dir: string, options: ValidateOptions = {}): Promise<ValidateResult> {
  // Checked inside the promise: a wrong argument rejects it, as every other failure does.
  const opts = checkedOptions(dir, options);
  return await phase(opts.onProgress, `validating ${opts.displayDir ?? dir}`, () => validateNow(dir, opts));
}

async function validateNow(dir: string, opts: CheckedOptions): Promise<ValidateResult> {
  throwIfAborted(opts.signal);
  let prepared;
  try {
    prepared = await shardOrLoad(dir, opts);
  } catch (err) {
    throw err instanceof CatalogDirError ? directoryError(err, opts.displayDir ?? dir) : err;
  }
  throwIfAborted(opts.signal);
  const levels = opts.severities ?? new Map<RuleId, RuleLevel>();
  if ('sharded' in prepared) {
    const { sharded } = prepared;
    return result(
      sortFindings(applySeverities(sharded.loadFindings, levels)),
      sortFindings(applySeverities(sharded.findings, levels)),
      undefined,
      opts.strict === true,
    );
  }
  const { cfg, findings: loadFindings } = prepared.loaded;
  const otherConfigs = opts.lint === false ? [] : await loadOthers(opts);
  throwIfAborted(opts.signal);
  const loadFailed = loadFindings.some((f) => f.severity === 'error');
  const imageCrds =
    pullsCrdImages(opts) && !loadFailed && opts.imageSource !== undefined
      ? await pullBundleCrds(cfg, {
          imageSource: opts.imageSource,
          ...(opts.bundleDirs === undefined ? {} : { bundleDirs: opts.bundleDirs }),
          ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
          ...(opts.env === undefined ? {} : { env: opts.env }),
          ...(opts.signal === undefined ? {} : { signal: opts.signal }),
        })
      : undefined;
  throwIfAborted(opts.signal);
  const checks = checkCatalog(cfg, loadFailed, otherConfigs, {
    ...opts,
    ...(imageCrds === undefined ? {} : { imageCrds }),
  });
  return result(
    applySeverities(loadFindings, levels),
    sortFindings(applySeverities(checks.findings, levels)),
    checks.opmMessage,
    opts.strict === true,
  );
}

/**
 * The result from the loader's findings and the checks', each sorted, and opm's message (its first
 * error, which is what opm prints) when its model conversion failed.
 */
function result(
  loadFindings: Finding[],
  checkFindings: Finding[],
  opmMessage: string | undefined,
  strict: boolean,
): ValidateResult {
  const sorted = mergeSortedFindings(loadFindings, checkFindings);
  const firstError = sorted.find((f) => f.severity === 'error');
  const firstWarning = strict ? sorted.find((f) => f.severity === 'warning') : undefined;
  const firstFailure = firstError ?? firstWarning;
  const passed = firstFailure === undefined;
  const out: ValidateResult = { passed, findings: sorted, counts: countFindings(sorted) };
  if (!passed) {
    const firstLoad = loadFindings.find((f) => f.severity === 'error');
    // opm's `error.message` carries no location (findings do); for files that do not parse, the
    // words are the reader's own, which are not go-yaml's.
    if (firstLoad !== undefined) out.message = firstLoad.message;
    else out.message = opmMessage ?? firstFailure.message;
  }
  return out;
}
