/**
 * A spill file: bytes set aside outside the process's memory until they are read back, in another
 * order. The file is removed from its folder as soon as it is opened, so nothing is left behind
 * whatever ends the process, and it is gone when its descriptor is closed. Several threads append
 * to one spill file: each reserves its place by a shared counter and writes there, so a worker's
 * bytes never travel through another thread.
 */
import { closeSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';

/** An open spill file, as it is handed to worker threads (the counter is shared, not copied). */
export interface Spill {
  fd: number;
  /** One BigInt64 on a SharedArrayBuffer: the bytes reserved so far, which is where the next append goes. */
  end: BigInt64Array;
}

/**
 * A name for a spill file in `dir`. Only its being new matters: the file is made with O_EXCL (a name
 * that exists, a link included, is refused, and another is tried) and removed from the folder at
 * once. Not from node:crypto's random bytes: under the launcher's V8 flags node:crypto's modules
 * compile from source when first loaded, 7-9 ms of CPU, about 3% of a render of a 12 MB catalog
 * (docs/performance.md).
 */
function spillName(dir: string): string {
  const random = Math.floor(Math.random() * 2 ** 48)
    .toString(16)
    .padStart(12, '0');
  return path.join(dir, `opm-ts-spill-${process.pid}-${random}`);
}

/**
 * A new spill file in `dir`, or undefined when one cannot be made there (no such folder, not
 * writable, a file system that cannot remove an open file): the caller keeps its bytes in memory.
 */
export function openSpill(dir: string): Spill | undefined {
  let file = '';
  let fd: number | undefined;
  for (let tries = 0; fd === undefined; tries++) {
    file = spillName(dir);
    try {
      fd = openSync(file, 'wx+', 0o600);
    } catch (err) {
      if (tries >= 2 || (err as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
    }
  }
  try {
    unlinkSync(file);
  } catch {
    closeSync(fd);
    try {
      unlinkSync(file);
    } catch {
      // Not ours to remove after all.
    }
    return undefined;
  }
  return { fd, end: new BigInt64Array(new SharedArrayBuffer(8)) };
}

/**
 * `bytes` appended to the spill file: their position in it. Throws when they cannot be written
 * whole (a full disk); the place they reserved then stays unused.
 */
export function appendSpill(spill: Spill, bytes: Uint8Array): number {
  const at = Number(Atomics.add(spill.end, 0, BigInt(bytes.length)));
  let done = 0;
  while (done < bytes.length) {
    const n = writeSync(spill.fd, bytes, done, bytes.length - done, at + done);
    if (n <= 0) throw new Error('spill file: nothing written');
    done += n;
  }
  return at;
}

/** `length` bytes at `position` of the spill file read into the start of `into` (at least that long). */
export function readSpill(spill: Spill, into: Uint8Array, length: number, position: number): Uint8Array {
  let done = 0;
  while (done < length) {
    const n = readSync(spill.fd, into, done, length - done, position + done);
    if (n <= 0) throw new Error('spill file: shorter than what was written to it');
    done += n;
  }
  return into.subarray(0, length);
}

/** Close the spill file, which frees its bytes (already removed from its folder). */
export function closeSpill(spill: Spill): void {
  try {
    closeSync(spill.fd);
  } catch {
    // Closed already.
  }
}
