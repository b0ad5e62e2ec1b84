/**
 * `opm filter <ref>`: render a catalog (as `render` does) and keep only the selected packages,
 * channels and versions, as a catalog that still validates.
 */
import { readBoundedFile } from '../util/read-bounded.js';
import { throwIfAborted } from '../util/abort.js';
import { OpmError } from '../errors.js';
import { messageUnderCatalog, underCatalog } from '../findings.js';
import { errnoText } from '../go/errno.js';
import { isFileUnder } from '../util/file-under.js';
import { filterCatalog, type FilterResult } from '../curate/filter.js';
import {
  mergeSelections,
  packagesFromFlags,
  parseFilterConfig,
  type FilterSpec,
  type PackageSelection,
} from '../curate/filter-config.js';
import { checkOutputDir, checkOutputOptions, writeCatalogDirStaged } from './output-dir.js';
import { checkSourceOptions, resolveIn } from './render/render.js';
import { renderRef, type CatalogSourceOptions } from './catalog-source.js';
import {
  expectOptionalBoolean,
  expectOptionalString,
  expectString,
  expectStringArray,
} from '../util/args.js';
import { phase } from '../util/progress.js';

export interface SelectionOptions {
  /** `--package` names: whole packages. */
  packages?: readonly string[];
  /** `--config` file (relative to cwd). */
  configFile?: string;
  headsOnly?: boolean;
}

export type FilterOptions = SelectionOptions & CatalogSourceOptions;

/** Read the selection of the flags and the `--config` file. Throws OpmError naming file and line. */
export async function readSelection(
  opts: SelectionOptions & { ref: string; cwd?: string; signal?: AbortSignal },
): Promise<FilterSpec> {
  const lists: PackageSelection[][] = [packagesFromFlags(opts.packages ?? [])];
  if (opts.configFile !== undefined) {
    const file = resolveIn(opts.cwd, opts.configFile);
    throwIfAborted(opts.signal);
    const text = await readBoundedFile(file).catch((err: unknown) => {
      throw new OpmError(`cannot read --config "${opts.configFile}": ${errnoText(err)}`);
    });
    lists.push(parseFilterConfig(text, opts.configFile, opts.ref));
  }
  return { packages: mergeSelections(...lists), headsOnly: opts.headsOnly === true };
}

/** The options of filter, filterToDir and listImages checked, for callers no compiler checks. */
export function checkFilterOptions(opts: unknown, fn: string): void {
  checkSourceOptions(opts, fn);
  const o = opts as Partial<FilterOptions>;
  expectString(o.ref, `${fn}(options).ref`, 'a catalog reference');
  if (o.packages !== undefined) expectStringArray(o.packages, `${fn}(options).packages`, 'package names');
  expectOptionalString(o.configFile, `${fn}(options).configFile`);
  expectOptionalBoolean(o.headsOnly, `${fn}(options).headsOnly`);
}

/**
 * Filter a catalog as `opm filter` does: render `ref` and keep the selected packages (`packages`,
 * `configFile`, `headsOnly`) as a catalog that still validates. The selection is read (and
 * checked) before the catalog is rendered.
 *
 * @example
 * const { config } = await filter({ ref: 'catalog', packages: ['etcd'], headsOnly: true });
 */
export async function filter(opts: FilterOptions): Promise<FilterResult> {
  checkFilterOptions(opts, 'filter');
  const spec = await readSelection(opts);
  const cfg = await renderRef(opts);
  try {
    return await phase(opts.onProgress, 'filtering catalog', () => Promise.resolve(filterCatalog(cfg, spec)));
  } catch (err) {
    throw underLocalRef(err, opts);
  }
}

/**
 * A problem of the filtered catalog is positioned in the catalog's files; when the ref is a local
 * directory, its files are named under the directory as given (as render names them).
 */
function underLocalRef(err: unknown, opts: CatalogSourceOptions): unknown {
  if (!(err instanceof OpmError) || err.at === undefined) return err;
  const dir = resolveIn(opts.cwd, opts.ref);
  const isFile = isFileUnder(dir);
  if (!isFile(err.at.file)) return err;
  return new OpmError(messageUnderCatalog(err.message, opts.ref, isFile), {
    code: err.code,
    at: { ...err.at, file: underCatalog(opts.ref, err.at.file) },
    ...(err.hint === undefined ? {} : { hint: err.hint }),
    cause: err,
  });
}

/**
 * Filter and write the result as a directory, one folder per package. The directory must not exist
 * or be empty; it is checked before anything is rendered, and nothing is left on failure.
 */
export async function filterToDir(
  opts: FilterOptions & { outputDir: string; format: 'json' | 'yaml' },
): Promise<FilterResult> {
  checkFilterOptions(opts, 'filterToDir');
  checkOutputOptions(opts, 'filterToDir');
  const out = resolveIn(opts.cwd, opts.outputDir);
  const state = await checkOutputDir(out, opts.outputDir);
  const result = await filter(opts);
  await writeCatalogDirStaged(
    result.config,
    out,
    opts.outputDir,
    state,
    opts.format,
    'opm-filter',
    opts.signal,
  );
  return result;
}
