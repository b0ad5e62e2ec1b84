/**
 * The files of a compose: a rendered catalog written from its chunks in batches, and the staged tree
 * put in place of the target whole (the previous tree moved aside, and back if the rename fails).
 */
import { open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { OpmError } from '../errors.js';
import { errnoText } from '../go/errno.js';
import { makeOwnedDir, releaseOwned } from '../util/owned-temp.js';
import { throwIfAborted } from '../util/abort.js';

/** Batches of this many bytes are written at once (chunks are small and only valid until the next). */
const WRITE_BATCH = 1024 * 1024;

export async function writeChunksToFile(
  file: string,
  chunks: Iterable<Uint8Array | string>,
  signal: AbortSignal | undefined,
): Promise<number> {
  const fh = await open(file, 'wx');
  let total = 0;
  try {
    let batch: Buffer[] = [];
    let size = 0;
    const flush = async (): Promise<void> => {
      if (size === 0) return;
      await fh.write(Buffer.concat(batch, size));
      batch = [];
      size = 0;
    };
    for (const c of chunks) {
      // Copied: a chunk may share a buffer the writer reuses for the next.
      const b = typeof c === 'string' ? Buffer.from(c) : Buffer.from(c);
      batch.push(b);
      size += b.length;
      total += b.length;
      if (size >= WRITE_BATCH) {
        await flush();
        throwIfAborted(signal);
      }
    }
    await flush();
  } finally {
    await fh.close();
  }
  return total;
}

/**
 * The staged tree renamed to `target`. A directory already there is moved aside first and removed
 * once the new one is in place; if the rename fails it is put back.
 */
export async function putInPlace(
  staged: string,
  target: string,
  root: string,
  name: string,
  shown: string,
): Promise<void> {
  const existing = await stat(target).catch(() => undefined);
  let aside: string | undefined;
  try {
    if (existing !== undefined) {
      if (!existing.isDirectory()) throw new OpmError(`"${shown}" exists and is not a directory`);
      aside = await makeOwnedDir(root, `.${name}.old-`);
      await rename(target, path.join(aside, 'previous'));
    }
    await rename(staged, target);
  } catch (err) {
    if (aside !== undefined) await rename(path.join(aside, 'previous'), target).catch(() => undefined);
    throw err instanceof OpmError ? err : new OpmError(`write "${shown}": ${errnoText(err)}`, { cause: err });
  } finally {
    if (aside !== undefined) {
      await rm(aside, { recursive: true, force: true });
      releaseOwned(aside);
    }
  }
}
