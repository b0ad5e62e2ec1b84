import { readFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * The text of each of `names` in `dir`, in that order, read one at a time (a caller that finds what
 * it looks for stops reading). A file that cannot be read is passed over, as opm passes over it
 * when it looks for the annotations file, the dependencies file or a packagemanifests CSV.
 */
export async function* readableTexts(
  dir: string,
  names: readonly string[],
): AsyncGenerator<{ name: string; text: string }> {
  for (const name of names) {
    let text: string;
    try {
      text = await readFile(path.join(dir, name), 'utf8');
    } catch {
      continue;
    }
    yield { name, text };
  }
}
