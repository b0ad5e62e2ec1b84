import path from 'node:path';
import { OpmError } from '../../errors.js';
import type { CliIO } from '../io.js';
import { errnoText } from '../../go/errno.js';
import { readBoundedFile, readBoundedStream } from '../../util/read-bounded.js';

/**
 * The text of FILE, or of standard input for `-`. `label` is how messages name it. Open failures
 * use `message(name, reason)`, so each command keeps opm's wording.
 */
export async function readInputFile(
  io: CliIO,
  file: string,
  message: (name: string, reason: string) => string,
): Promise<{ text: string; label: string }> {
  // Both with the size cap of configuration files (util/read-bounded.ts).
  if (file === '-') {
    try {
      return { text: await readBoundedStream(io.stdin as AsyncIterable<Buffer | string>), label: '<stdin>' };
    } catch (e) {
      throw new OpmError(message('<stdin>', errnoText(e)));
    }
  }
  try {
    return { text: await readBoundedFile(path.resolve(io.cwd, file)), label: file };
  } catch (e) {
    throw new OpmError(message(file, errnoText(e)));
  }
}
