import { readdirSync } from 'node:fs';
import path from 'node:path';

/** The files of a catalog directory in walk order (names sorted, depth first), `.indexignore` left out. */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...listFiles(p));
    else if (e.name !== '.indexignore') out.push(p);
  }
  return out;
}
