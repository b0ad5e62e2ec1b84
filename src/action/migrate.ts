/**
 * `opm migrate <catalogRef> <outputDir>`: render a catalog image or FBC directory (with the
 * requested migrations) and write it as a catalog directory, one folder per package.
 */
import { readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { OpmError } from '../errors.js';
import { errnoText } from '../go/errno.js';
import { makeOwnedDir, releaseOwned, removeStale } from '../util/owned-temp.js';
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
 * Migrate a catalog. The catalog is rendered completely before anything is written. A new output
 * directory is staged as a temporary sibling and renamed into place. An existing empty one (perhaps
 * a symlink or a bind mount, as with `docker -v $PWD/out:/out`) is written into, keeping its owner
 * and mode: the files are staged in a temporary folder inside it, then moved up. Either way a
 * failure leaves no output.
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
  });
  const parent = existing ? out : path.dirname(out);
  const prefix = existing ? '.opm-migrate.tmp-' : `.${path.basename(out)}.tmp-`;
  await removeStale(parent, prefix);
  const tmp = await makeOwnedDir(parent, prefix).catch((err: unknown) => {
    throw new OpmError(`cannot create output dir "${opts.outputDir}": ${errnoText(err)}`);
  });
  const moved: string[] = [];
  try {
    const staged = path.join(tmp, 'catalog');
    await writeCatalogDir(cfg, staged, opts.format);
    if (existing) {
      // Only this run's staging folder may be there; anything else appeared meanwhile.
      const others = (await readdir(out)).filter((n) => n !== path.basename(tmp));
      if (others.length > 0) throw new OpmError(`output dir "${opts.outputDir}" must be empty`);
      for (const name of await readdir(staged)) {
        await rename(path.join(staged, name), path.join(out, name));
        moved.push(path.join(out, name));
      }
    } else {
      // The directory was checked before rendering; check again in case it changed meanwhile.
      if ((await checkOutputDir(out, opts.outputDir)) === 'empty') {
        throw new OpmError(`output dir "${opts.outputDir}" appeared while rendering`);
      }
      await rename(staged, out);
    }
  } catch (err) {
    for (const p of moved) await rm(p, { recursive: true, force: true });
    throw err instanceof OpmError
      ? err
      : new OpmError(`write output dir "${opts.outputDir}": ${errnoText(err)}`, { cause: err });
  } finally {
    await rm(tmp, { recursive: true, force: true });
    releaseOwned(tmp);
  }
}
