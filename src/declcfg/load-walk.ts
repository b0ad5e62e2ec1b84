/**
 * The directory walk of a catalog load (opm's WalkMetasFS, operator-registry
 * `alpha/declcfg/load.go`): every entry in lexical order, every `.indexignore` read (even in
 * directories its own patterns ignore), then the files that are not ignored. Symlinks to files are
 * followed; symlinks to directories are not walked (opm fails reading them), so the walk cannot
 * loop. Entries that cannot be read become problems, never exceptions.
 *
 * The file system is asked synchronously, and the walk says so in its name: each call of the promise
 * API is a trip through the thread pool, and a walk is many small calls with nothing to do in between,
 * so those trips would be waiting and nothing else. With a signal, it is checked at every directory.
 */
import { errnoCode, errnoText } from '../go/errno.js';
import { lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { IndexIgnore } from './indexignore.js';
import { compareUtf8 } from '../go/utf8.js';
import type { RuleId } from '../rules.js';
import { throwIfAborted } from '../util/abort.js';

export interface WalkProblem {
  rule: RuleId;
  message: string;
  file: string;
}

export interface WalkedFile {
  /** Relative to the root, `/` separators. */
  rel: string;
  abs: string;
  size: number;
}

export interface WalkResult {
  files: WalkedFile[];
  problems: WalkProblem[];
}

interface Entry {
  rel: string;
  abs: string;
  kind: 'file' | 'symlink' | 'other';
}

function listEntries(root: string, problems: WalkProblem[], signal: AbortSignal | undefined): Entry[] {
  const out: Entry[] = [];
  const visit = (dirRel: string): void => {
    throwIfAborted(signal);
    const dirAbs = dirRel === '' ? root : path.join(root, dirRel);
    let names;
    try {
      names = readdirSync(dirAbs, { withFileTypes: true });
    } catch (err) {
      problems.push({
        rule: 'load.unreadable',
        message: `read directory: ${errnoText(err)}`,
        file: dirRel || '.',
      });
      return;
    }
    names.sort((a, b) => compareUtf8(a.name, b.name));
    for (const d of names) {
      const rel = dirRel === '' ? d.name : `${dirRel}/${d.name}`;
      const abs = path.join(dirAbs, d.name);
      if (d.isDirectory()) visit(rel);
      else out.push({ rel, abs, kind: d.isFile() ? 'file' : d.isSymbolicLink() ? 'symlink' : 'other' });
    }
  };
  visit('');
  return out;
}

/**
 * A file to read, or the problem that keeps it from being read: a symlink that dangles, loops or
 * points at a directory, or an entry that is not a regular file (a FIFO would block a read forever).
 */
function resolveFile(e: Entry): WalkedFile | WalkProblem {
  try {
    const st = e.kind === 'symlink' ? statSync(e.abs) : lstatSync(e.abs);
    if (st.isFile()) return { rel: e.rel, abs: e.abs, size: st.size };
    if (st.isDirectory()) {
      return {
        rule: 'load.symlink-dir',
        message: 'symlink to a directory is not followed (opm cannot read it either)',
        file: e.rel,
      };
    }
    return {
      rule: 'load.not-regular-file',
      message: 'not a regular file (device, socket or pipe); not read',
      file: e.rel,
    };
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ELOOP')
      return {
        rule: 'load.symlink-loop',
        message: 'symlink loop: too many levels of symbolic links',
        file: e.rel,
      };
    const what = e.kind === 'symlink' && code === 'ENOENT' ? 'dangling symlink' : errnoText(err);
    return { rule: 'load.unreadable', message: `cannot read file: ${what}`, file: e.rel };
  }
}

/**
 * Walk a catalog directory (which must exist) and list the files to load, in walk order. Throws the
 * reason of `signal` when it has fired.
 */
export function walkCatalogDirSync(root: string, signal?: AbortSignal): WalkResult {
  const problems: WalkProblem[] = [];
  const entries = listEntries(root, problems, signal);
  const ignore = new IndexIgnore();
  for (const e of entries) {
    if (path.posix.basename(e.rel) !== '.indexignore') continue;
    try {
      ignore.add(path.posix.dirname(e.rel), readFileSync(e.abs, 'utf8'));
    } catch (err) {
      problems.push({
        rule: 'load.unreadable',
        message: `cannot read .indexignore: ${errnoText(err)}`,
        file: e.rel,
      });
    }
  }
  const files: WalkedFile[] = [];
  for (const e of entries) {
    if (path.posix.basename(e.rel) === '.indexignore' || ignore.ignores(e.rel)) continue;
    const r = resolveFile(e);
    if ('abs' in r) files.push(r);
    else problems.push(r);
  }
  return { files, problems };
}
