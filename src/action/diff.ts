/**
 * `opm diff <old-ref> <new-ref>`: render both references (as `render` does) and compare them.
 */
import { diffCatalogs, type CatalogDiff } from '../curate/diff.js';
import { phase } from '../util/progress.js';
import { renderRef, type CatalogSourceOptions } from './catalog-source.js';
import { checkSourceOptions } from './render/render.js';
import { expectString } from '../util/args.js';

export interface DiffOptions extends Omit<CatalogSourceOptions, 'ref'> {
  oldRef: string;
  newRef: string;
  /**
   * Bundle image reference → registry+v1 bundle directory: where the CRDs of new upgrade edges'
   * bundles are read when the catalogs carry no manifests of them (readBundleDirMap reads the file).
   */
  bundleDirs?: ReadonlyMap<string, string>;
}

/**
 * What changed between two catalogs (each a ref as `render` takes), upgrade impact first, as
 * `opm diff` reports it; `isEmptyDiff()` of the result tells whether they are equal.
 */
export async function diff(opts: DiffOptions): Promise<CatalogDiff> {
  checkSourceOptions(opts, 'diff');
  expectString(opts.oldRef, 'diff(options).oldRef', 'a catalog reference');
  expectString(opts.newRef, 'diff(options).newRef', 'a catalog reference');
  const { oldRef, newRef, bundleDirs, ...source } = opts;
  const [before, after] = await Promise.all([
    renderRef({ ...source, ref: oldRef }),
    renderRef({ ...source, ref: newRef }),
  ]);
  return phase(opts.onProgress, 'comparing catalogs', () =>
    Promise.resolve(diffCatalogs(before, after, bundleDirs === undefined ? {} : { bundleDirs })),
  );
}
