/**
 * Temporary files and folders this process creates (an unpacked image, a staged `migrate` output, a
 * Dockerfile being written). Their names carry the process id, so that what an interrupted run left
 * behind can be recognised and removed by a later run, and they are registered here so that the
 * command line removes them when it is stopped by a signal.
 */
// node:fs's promise API is taken when first used (fs.promises is a getter): the command line
// imports this module for its signal handlers, and loading the promise API is part of every start.
import { promises as fsp, rmSync } from 'node:fs';
import path from 'node:path';
import { randomHex } from './random-hex.js';
import { errnoCode } from '../go/errno.js';

const owned = new Set<string>();

/** A fresh folder `<parent>/<prefix><pid>-<random>`, owned by this process until released. */
export async function makeOwnedDir(parent: string, prefix: string): Promise<string> {
  const dir = await fsp.mkdtemp(path.join(parent, `${prefix}${process.pid}-`));
  owned.add(dir);
  return dir;
}

/** A name `<parent>/<prefix><pid>-<random>` for a file about to be created, owned until released. */
export function ownedFileName(parent: string, prefix: string): string {
  const file = path.join(parent, `${prefix}${process.pid}-${randomHex(6)}`);
  owned.add(file);
  return file;
}

/** The path was removed or renamed into place: nothing to clean up any more. */
export function releaseOwned(p: string): void {
  owned.delete(p);
}

/** Remove everything still owned, at once (for signal handlers, which cannot wait). */
export function removeOwnedNow(): void {
  for (const p of owned) {
    try {
      rmSync(p, { recursive: true, force: true });
    } catch {
      // Best effort: the process is going away.
    }
  }
  owned.clear();
}

function alive(pid: number): boolean {
  try {
    // Signal 0 sends nothing: it asks whether another run that left a temporary tree is alive.
    // eslint-disable-next-line no-restricted-syntax
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return errnoCode(err) === 'EPERM';
  }
}

/** Remove what processes that no longer run left in `parent` under `prefix` (best effort). */
export async function removeStale(parent: string, prefix: string): Promise<void> {
  let names: string[];
  try {
    names = await fsp.readdir(parent);
  } catch {
    return;
  }
  const pattern = new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\d+)-`);
  await Promise.all(
    names.map(async (n) => {
      const pid = Number(pattern.exec(n)?.[1] ?? NaN);
      if (!Number.isInteger(pid) || pid === process.pid || alive(pid)) return;
      await fsp.rm(path.join(parent, n), { recursive: true, force: true }).catch(() => undefined);
    }),
  );
}
