// Whole writes to a file descriptor, apart from the streams of output.ts: the launcher writes a bare
// `opm version` with them before anything else is loaded.
import { writeSync } from 'node:fs';
import { errnoCode } from '../go/errno.js';

/** The name standard output goes by in a failed write's message, as opm (Go's os.Stdout) names it. */
export const STDOUT_PATH = '/dev/stdout';

/**
 * A failed write to a standard stream, named after it (`write /dev/stdout: no space left on device`):
 * the system error keeps its code and syscall, so a broken pipe is still recognised as one.
 */
function namedWriteError(err: unknown, name: string): Error {
  if (err instanceof Error && !('path' in err)) return Object.assign(err, { path: name });
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * Write all of `data` to `fd` at once: write(2) may take only part of it (a disk filling up takes
 * what fits and refuses the rest only on the next call), so it is called again for what is left
 * until everything is written or the system refuses with an error. EAGAIN (a descriptor a parent
 * made non-blocking) is tried again. Returns the error, named after `name`, or undefined;
 * `progress.written` counts the bytes written so far.
 */
export function writeWholeSync(
  fd: number,
  data: Uint8Array,
  name: string,
  progress?: { written: number },
): Error | undefined {
  for (let done = 0; done < data.length;) {
    let n: number;
    try {
      n = writeSync(fd, data, done, data.length - done);
    } catch (err) {
      if (errnoCode(err) === 'EAGAIN') continue;
      return namedWriteError(err, name);
    }
    // No byte taken and no error: nothing says a further call would do better.
    if (n === 0) return Object.assign(new Error('short write'), { syscall: 'write', path: name });
    done += n;
    if (progress !== undefined) progress.written = done;
  }
  return undefined;
}
