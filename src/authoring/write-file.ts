/**
 * Writing one file of a bundle (annotations.yaml, bundle.Dockerfile, a copied manifest) whole or not
 * at all: the text goes to a temporary sibling, renamed over the file once complete. A file that
 * was there keeps its mode, as opm's truncating write keeps it; a new one gets `mode`.
 */
import { chmod, mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { OpmError } from '../errors.js';
import { errnoText } from '../go/errno.js';
import { ownedFileName, releaseOwned } from '../util/owned-temp.js';

/** Write `content` to `file` (absolute) atomically, creating its folder (0777 less the umask) first. */
export async function writeFileAtomic(
  file: string,
  content: string | Uint8Array,
  mode = 0o644,
): Promise<void> {
  const dir = path.dirname(file);
  try {
    await mkdir(dir, { recursive: true });
  } catch (err) {
    throw new OpmError(`mkdir ${dir}: ${errnoText(err)}`);
  }
  const before = await stat(file).catch(() => undefined);
  const temp = ownedFileName(dir, `.${path.basename(file)}.tmp-`);
  try {
    await writeFile(temp, content, { mode, flag: 'wx' });
    if (before !== undefined) await chmod(temp, before.mode & 0o7777);
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw new OpmError(`open ${file}: ${errnoText(err)}`, { cause: err });
  } finally {
    releaseOwned(temp);
  }
}
