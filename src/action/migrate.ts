/**
 * `opm migrate <catalogRef> <outputDir>`: render a catalog image or FBC directory (with the
 * requested migrations) and write it as a catalog directory, one folder per package.
 */
import type { ImageSource } from '../oci/image-source.js';
import { checkOutputDir, writeCatalogDirStaged } from './output-dir.js';
import { checkSourceOptions, render, resolveIn, REF_CATALOGS } from './render/render.js';
import type { CatalogDirLoader } from '../declcfg/load.js';
import { expectString } from '../util/args.js';
import { phase, type ProgressSink } from '../util/progress.js';

export interface MigrateOptions {
  ref: string;
  outputDir: string;
  format: 'json' | 'yaml';
  /** Last migration to run ('' = none). */
  migrateLevel?: string;
  imageSource?: ImageSource;
  /** Directory relative paths are resolved against (RenderOptions.cwd). */
  cwd?: string;
  /** The environment OPM_THREADS is read from; none by default. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Stops the migration: nothing is written, and the promise rejects with the signal's reason. */
  signal?: AbortSignal;
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
  checkSourceOptions(opts, 'migrate');
  expectString(opts.ref, 'migrate(options).ref', 'a catalog reference');
  expectString(opts.outputDir, 'migrate(options).outputDir', 'the directory to write');
  // A check for JavaScript callers, whom the type does not bind.
  const format: unknown = opts.format;
  if (format !== 'json' && format !== 'yaml') {
    throw new TypeError(`migrate(options).format must be 'json' or 'yaml', not ${JSON.stringify(format)}`);
  }
  const out = resolveIn(opts.cwd, opts.outputDir);
  const existing = (await checkOutputDir(out, opts.outputDir)) === 'empty';
  const cfg = await render({
    refs: [opts.ref],
    allow: REF_CATALOGS,
    ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
    ...(opts.env === undefined ? {} : { env: opts.env }),
    ...(opts.signal === undefined ? {} : { signal: opts.signal }),
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
      opts.signal,
    ),
  );
}
