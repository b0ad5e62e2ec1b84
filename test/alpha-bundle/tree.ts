// What the alpha bundle tests compare: a folder's files and folders with their modes and bytes,
// and logrus lines without their time.
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';

export interface TreeEntry {
  path: string;
  mode: string;
  /** File content, a symlink's target, or '' for a folder. */
  content: string;
}

/** Every entry under `root` (sorted, relative), with its permission bits in octal. */
export function readTree(root: string, skip: (rel: string) => boolean = () => false): TreeEntry[] {
  const out: TreeEntry[] = [];
  const walk = (rel: string): void => {
    const abs = rel === '' ? root : path.join(root, rel);
    for (const name of readdirSync(abs).sort()) {
      const r = rel === '' ? name : `${rel}/${name}`;
      if (skip(r)) continue;
      const p = path.join(root, r);
      const st = lstatSync(p);
      const mode = (st.mode & 0o7777).toString(8);
      if (st.isSymbolicLink()) out.push({ path: r, mode: 'link', content: readlinkSync(p) });
      else if (st.isDirectory()) {
        out.push({ path: `${r}/`, mode, content: '' });
        walk(r);
      } else out.push({ path: r, mode, content: readFileSync(p, 'utf8') });
    }
  };
  walk('');
  return out;
}

/** Log lines with logrus's `time="…"` field left out, and `dir` (a temporary folder) as `<dir>`. */
export function logLines(stderr: string, dir: string): string[] {
  return stderr
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.replace(/^time="[^"]*" /, '').replaceAll(dir, '<dir>'));
}
