import { statSync } from 'node:fs';
import path from 'node:path';

/**
 * Whether a relative path names a regular file under `dir` (answers kept per path): which of the
 * paths a message mentions are files of a catalog.
 */
export function isFileUnder(dir: string): (file: string) => boolean {
  const known = new Map<string, boolean>();
  return (file) => {
    let yes = known.get(file);
    if (yes === undefined) {
      const abs = path.resolve(dir, file);
      const rel = path.relative(dir, abs);
      yes =
        !rel.startsWith('..') &&
        !path.isAbsolute(rel) &&
        statSync(abs, { throwIfNoEntry: false })?.isFile() === true;
      known.set(file, yes);
    }
    return yes;
  };
}
