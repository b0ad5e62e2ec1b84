/**
 * `opm filter <ref>`: render a catalog (as `render` does) and keep only the selected packages,
 * channels and versions, as a catalog that still validates.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { OpmError } from '../errors.js';
import type { DeclarativeConfig } from '../declcfg/types.js';
import { errnoText } from '../go/errno.js';
import type { ImageSource } from '../oci/image-source.js';
import { filterCatalog, type FilterResult } from '../curate/filter.js';
import {
  mergeSelections,
  packagesFromFlags,
  parseFilterConfig,
  type FilterSpec,
  type PackageSelection,
} from '../curate/filter-config.js';
import { checkOutputDir, writeCatalogDirStaged } from './output-dir.js';
import { render, type CatalogDirLoader } from './render.js';
import { phase, type ProgressSink } from '../util/progress.js';

export interface SelectionOptions {
  /** `--package` names: whole packages. */
  packages?: readonly string[];
  /** `--config` file (relative to cwd). */
  configFile?: string;
  headsOnly?: boolean;
}

export interface CatalogSourceOptions {
  ref: string;
  imageSource?: ImageSource;
  cwd?: string;
  loadCatalogDir?: CatalogDirLoader;
  onWarning?: (message: string) => void;
  /** Progress as data: pulls, loading, and the work on the loaded catalog. */
  onProgress?: ProgressSink;
}

export type FilterOptions = SelectionOptions & CatalogSourceOptions;

/** Read the selection of the flags and the `--config` file. Throws OpmError naming file and line. */
export async function readSelection(
  opts: SelectionOptions & { ref: string; cwd?: string },
): Promise<FilterSpec> {
  const lists: PackageSelection[][] = [packagesFromFlags(opts.packages ?? [])];
  if (opts.configFile !== undefined) {
    const file = path.resolve(opts.cwd ?? process.cwd(), opts.configFile);
    const text = await readFile(file, 'utf8').catch((err: unknown) => {
      throw new OpmError(`cannot read --config "${opts.configFile}": ${errnoText(err)}`);
    });
    lists.push(parseFilterConfig(text, opts.configFile, opts.ref));
  }
  return { packages: mergeSelections(...lists), headsOnly: opts.headsOnly === true };
}

/** Render `ref` as `render` does (every kind of reference it takes). */
export function renderRef(opts: CatalogSourceOptions): Promise<DeclarativeConfig> {
  return render({
    refs: [opts.ref],
    ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
    ...(opts.imageSource === undefined ? {} : { imageSource: opts.imageSource }),
    ...(opts.loadCatalogDir === undefined ? {} : { loadCatalogDir: opts.loadCatalogDir }),
    ...(opts.onWarning === undefined ? {} : { onWarning: opts.onWarning }),
    ...(opts.onProgress === undefined ? {} : { onProgress: opts.onProgress }),
  });
}

/** Filter a catalog. The selection is read (and checked) before the catalog is rendered. */
export async function filter(opts: FilterOptions): Promise<FilterResult> {
  const spec = await readSelection(opts);
  const cfg = await renderRef(opts);
  return phase(opts.onProgress, 'filtering catalog', () => Promise.resolve(filterCatalog(cfg, spec)));
}

/**
 * Filter and write the result as a directory, one folder per package. The directory must not exist
 * or be empty; it is checked before anything is rendered, and nothing is left on failure.
 */
export async function filterToDir(
  opts: FilterOptions & { outputDir: string; format: 'json' | 'yaml' },
): Promise<FilterResult> {
  const out = path.resolve(opts.cwd ?? process.cwd(), opts.outputDir);
  const state = await checkOutputDir(out, opts.outputDir);
  const result = await filter(opts);
  await writeCatalogDirStaged(result.config, out, opts.outputDir, state, opts.format, 'opm-filter');
  return result;
}
