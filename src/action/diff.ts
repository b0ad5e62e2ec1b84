/**
 * `opm diff <old-ref> <new-ref>`: render both references (as `render` does) and compare them.
 */
import { diffCatalogs, type CatalogDiff } from '../curate/diff.js';
import { phase } from '../util/progress.js';
import { renderRef, type CatalogSourceOptions } from './filter.js';

export interface DiffOptions extends Omit<CatalogSourceOptions, 'ref'> {
  oldRef: string;
  newRef: string;
}

export async function diff(opts: DiffOptions): Promise<CatalogDiff> {
  const { oldRef, newRef, ...source } = opts;
  const [before, after] = await Promise.all([
    renderRef({ ...source, ref: oldRef }),
    renderRef({ ...source, ref: newRef }),
  ]);
  return phase(opts.onProgress, 'comparing catalogs', () => Promise.resolve(diffCatalogs(before, after)));
}
