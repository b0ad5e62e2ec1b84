import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { OpmError } from '../../errors.js';
import type { CliIO } from '../io.js';
import { errnoText } from '../../go/errno.js';

/** Read all of standard input as UTF-8. */
async function readStdin(io: CliIO): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The text of FILE, or of standard input for `-`. `label` is how messages name it. Open failures
 * use `message(name, reason)`, so each command keeps opm's wording.
 */
export async function readInputFile(
  io: CliIO,
  file: string,
  message: (name: string, reason: string) => string,
): Promise<{ text: string; label: string }> {
  if (file === '-') return { text: await readStdin(io), label: '<stdin>' };
  try {
    return { text: await readFile(path.resolve(io.cwd, file), 'utf8'), label: file };
  } catch (e) {
    throw new OpmError(message(file, errnoText(e)));
  }
}
