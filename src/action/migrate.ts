/**
 * `opm migrate <catalogRef> <outputDir>`: render a catalog image or FBC directory (with the
 * requested migrations) and write it as a catalog directory, one folder per package.
 */
import path from 'node:path';
import type { ImageSource } from '../oci/image-source.js';
import { checkOutputDir, writeCatalogDirStaged } from './output-dir.js';
import { render, REF_CATALOGS, type CatalogDirLoader } from './render.js';
import { phase, type ProgressSink } from '../util/progress.js';

export interface MigrateOptions {
  ref: string;
  outputDir: string;
  format: 'json' | 'yaml';
  /** Last migration to run ('' = none). */
  migrateLevel?: string;
  imageSource?: ImageSource;
  cwd?: string;
  loadCatalogDir?: CatalogDirLoader;
  onWarning?: (message: string) => void;
  /** Progress as data: pulls, loading, writing. */
  onProgress?: ProgressSink;
}

/**
 * Migrate a catalog. The catalog is rendered completely before anything is written, and written
 * staged (writeCatalogDirStaged), so a failure leaves no output.
 */
export async function migrate(opts: MigrateOptions): Promise<void> {
  const cwd = opts.cwd ?? process.cwd();
  const out = path.resolve(cwd, opts.outputDir);
  const existing = (await checkOutputDir(out, opts.outputDir)) === 'empty';
  const cfg = await render({
    refs: [opts.ref],
    allow: REF_CATALOGS,
    cwd,
    ...(opts.migrateLevel === undefined ? {} : { migrateLevel: opts.migrateLevel }),
    ...(opts.imageSource === undefined ? {} : { imageSource: opts.imageSource }),
    ...(opts.loadCatalogDir === undefined ? {} : { loadCatalogDir: opts.loadCatalogDir }),
    ...(opts.onWarning === undefined ? {} : { onWarning: opts.onWarning }),
    ...(opts.onProgress === undefined ? {} : { onProgress: opts.onProgress }),
  });
  await phase(opts.onProgress, `writing ${opts.outputDir}`, () =>
    writeCatalogDirStaged(
      cfg,
      out,
      opts.outputDir,
      existing ? 'empty' : 'absent',
      opts.format,
      'opm-migrate',
    ),
  );
}
