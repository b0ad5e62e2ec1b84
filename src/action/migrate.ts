/**
 * `opm migrate <catalogRef> <outputDir>`: render a catalog image or FBC directory (with the
 * requested migrations) and write it as a catalog directory, one folder per package.
 */
import { mkdtemp, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { OpmError } from '../errors.js';
import type { ImageSource } from '../oci/image-source.js';
import { writeCatalogDir } from '../declcfg/write-fs.js';
import { render, REF_CATALOGS, type CatalogDirLoader } from './render.js';

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
}

/** Whether `dir` may be written: it must not exist, or be an empty directory. */
async function checkOutputDir(abs: string, shown: string): Promise<'absent' | 'empty'> {
  const st = await stat(abs).catch(() => undefined);
  if (st === undefined) return 'absent';
  if (!st.isDirectory()) throw new OpmError(`output dir "${shown}" exists and is not a directory`);
  if ((await readdir(abs)).length > 0) throw new OpmError(`output dir "${shown}" must be empty`);
  return 'empty';
}

/**
 * Migrate a catalog. The catalog is rendered completely before anything is written, and written
 * into a temporary sibling directory that is renamed into place, so a failure leaves no output.
 */
export async function migrate(opts: MigrateOptions): Promise<void> {
  const cwd = opts.cwd ?? process.cwd();
  const out = path.resolve(cwd, opts.outputDir);
  await checkOutputDir(out, opts.outputDir);
  const cfg = await render({
    refs: [opts.ref],
    allow: REF_CATALOGS,
    cwd,
    ...(opts.migrateLevel === undefined ? {} : { migrateLevel: opts.migrateLevel }),
    ...(opts.imageSource === undefined ? {} : { imageSource: opts.imageSource }),
    ...(opts.loadCatalogDir === undefined ? {} : { loadCatalogDir: opts.loadCatalogDir }),
    ...(opts.onWarning === undefined ? {} : { onWarning: opts.onWarning }),
  });
  const parent = path.dirname(out);
  const tmp = await mkdtemp(path.join(parent, `.${path.basename(out)}.tmp-`)).catch((err: unknown) => {
    throw new OpmError(
      `cannot create output dir "${opts.outputDir}": ${err instanceof Error ? err.message : String(err)}`,
    );
  });
  try {
    const staged = path.join(tmp, 'catalog');
    await writeCatalogDir(cfg, staged, opts.format);
    // The directory was checked before rendering; check again in case it changed meanwhile.
    if ((await checkOutputDir(out, opts.outputDir)) === 'empty') await rmdir(out);
    await rename(staged, out);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
