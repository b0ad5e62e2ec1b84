/**
 * `opm migrate <catalogRef> <outputDir>`: render a catalog image or FBC directory (with the
 * requested migrations) and write it as a catalog directory, one folder per package.
 */
import { checkOutputDir, checkOutputOptions, writeCatalogDirStaged } from './output-dir.js';
import { checkSourceOptions, resolveIn, REF_CATALOGS } from './render/render.js';
import { renderRef, type CatalogSourceOptions } from './catalog-source.js';
import { expectString } from '../util/args.js';
import { phase } from '../util/progress.js';

export interface MigrateOptions extends CatalogSourceOptions {
  outputDir: string;
  format: 'json' | 'yaml';
  /** Last migration to run ('' = none). */
  migrateLevel?: string;
}

/**
 * Migrate a catalog. The catalog is rendered completely before anything is written, and written
 * staged (writeCatalogDirStaged), so a failure leaves no output.
 */
export async function migrate(opts: MigrateOptions): Promise<void> {
  checkSourceOptions(opts, 'migrate');
  expectString(opts.ref, 'migrate(options).ref', 'a catalog reference');
  checkOutputOptions(opts, 'migrate');
  const out = resolveIn(opts.cwd, opts.outputDir);
  const existing = (await checkOutputDir(out, opts.outputDir)) === 'empty';
  const cfg = await renderRef(opts, {
    allow: REF_CATALOGS,
    ...(opts.migrateLevel === undefined ? {} : { migrateLevel: opts.migrateLevel }),
  });
  await phase(opts.onProgress, `writing ${opts.outputDir}`, () =>
    writeCatalogDirStaged(
      cfg,
      out,
      opts.outputDir,
      existing ? 'empty' : 'absent',
      opts.format,
      'opm-migrate',
      opts.signal,
    ),
  );
}
