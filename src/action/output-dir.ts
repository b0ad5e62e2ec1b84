/**
 * Writing a catalog as a directory (one folder per package) without ever leaving half of it: a new
 * directory is staged as a temporary sibling and renamed into place; an existing empty one (perhaps
 * a symlink or a bind mount, as with `docker -v $PWD/out:/out`) is written into, keeping its owner
 * and mode: the files are staged in a temporary folder inside it, then moved up. Either way a
 * failure leaves no output.
 */
import { readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { OpmError } from '../errors.js';
import { errnoText } from '../go/errno.js';
import { makeOwnedDir, releaseOwned, removeStale } from '../util/owned-temp.js';
import type { DeclarativeConfig } from '../declcfg/types.js';
import { writeCatalogDir } from '../declcfg/write-fs.js';
import { throwIfAborted } from '../util/abort.js';
import { expectString } from '../util/args.js';

/** Whether `dir` may be written: it must not exist, or be an empty directory. */
export async function checkOutputDir(abs: string, shown: string): Promise<'absent' | 'empty'> {
  const st = await stat(abs).catch(() => undefined);
  if (st === undefined) return 'absent';
  if (!st.isDirectory()) throw new OpmError(`output dir "${shown}" exists and is not a directory`);
  if ((await readdir(abs)).length > 0) throw new OpmError(`output dir "${shown}" must be empty`);
  return 'empty';
}

/**
 * Write `cfg` into `outputDir` (`shown` as the user typed it), which checkOutputDir found `state`
 * before the catalog was made. `tmpName` names the staging folder (`opm-migrate`, `opm-filter`).
 * When `signal` fires before the catalog is in place, nothing is left and the promise rejects with
 * its reason.
 */
export async function writeCatalogDirStaged(
  cfg: DeclarativeConfig,
  out: string,
  shown: string,
  state: 'absent' | 'empty',
  format: 'json' | 'yaml',
  tmpName: string,
  signal?: AbortSignal,
): Promise<void> {
  throwIfAborted(signal);
  const existing = state === 'empty';
  const parent = existing ? out : path.dirname(out);
  const prefix = existing ? `.${tmpName}.tmp-` : `.${path.basename(out)}.tmp-`;
  await removeStale(parent, prefix);
  const tmp = await makeOwnedDir(parent, prefix).catch((err: unknown) => {
    throw new OpmError(`cannot create output dir "${shown}": ${errnoText(err)}`);
  });
  const moved: string[] = [];
  try {
    const staged = path.join(tmp, 'catalog');
    await writeCatalogDir(cfg, staged, format, {
      shownRoot: shown,
      ...(signal === undefined ? {} : { signal }),
    });
    throwIfAborted(signal);
    if (existing) {
      // Only this run's staging folder may be there; anything else appeared meanwhile.
      const others = (await readdir(out)).filter((n) => n !== path.basename(tmp));
      if (others.length > 0) throw new OpmError(`output dir "${shown}" must be empty`);
      for (const name of await readdir(staged)) {
        await rename(path.join(staged, name), path.join(out, name));
        moved.push(path.join(out, name));
      }
    } else {
      // The directory was checked before the catalog was made; check again in case it changed meanwhile.
      if ((await checkOutputDir(out, shown)) === 'empty') {
        throw new OpmError(`output dir "${shown}" appeared while rendering`);
      }
      await rename(staged, out);
    }
  } catch (err) {
    for (const p of moved) await rm(p, { recursive: true, force: true });
    if (signal?.aborted === true) throw signal.reason;
    throw err instanceof OpmError
      ? err
      : new OpmError(`write output dir "${shown}": ${errnoText(err)}`, { cause: err });
  } finally {
    await rm(tmp, { recursive: true, force: true });
    releaseOwned(tmp);
  }
}

/**
 * The output options of a library call checked, for JavaScript callers whom the types do not bind
 * (`fn` names the call).
 */
export function checkOutputOptions(opts: { outputDir: unknown; format: unknown }, fn: string): void {
  expectString(opts.outputDir, `${fn}(options).outputDir`, 'the directory to write');
  const format = opts.format;
  if (format !== 'json' && format !== 'yaml') {
    throw new TypeError(`${fn}(options).format must be 'json' or 'yaml', not ${JSON.stringify(format)}`);
  }
}
