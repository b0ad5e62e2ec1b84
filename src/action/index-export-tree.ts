/**
 * The files of `opm index export`'s package-manifest tree, as opm v1.73 writes them: a bundle
 * image's `manifests/` folder copied with the modes its archive gives (the bundle's folder takes
 * that of `manifests/`), `package.yaml` as go-yaml v3 marshals opm's PackageManifest; and the
 * tree, made in a staging folder, moved into the download folder only once it is whole.
 */
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import path from 'node:path';
import { OpmError } from '../errors.js';
import type { PulledImage } from '../oci/image-source.js';
import type { ExportPackage } from '../sqlite/export-plan.js';
import { emitYaml } from '../yaml/emit.js';

/** A string as go-yaml v3 writes it as a mapping value (no folding: v3 never folds). */
function scalar(s: string): string {
  const line = emitYaml({ k: s }, { fold: false });
  return line.slice('k: '.length, -1);
}

/**
 * `package.yaml`: packageName, channels (name and currentCSV, 4-space sequence indent as go-yaml
 * v3 writes it; `[]` when there are none), defaultChannel.
 */
export function packageYaml(p: ExportPackage): string {
  const lines = [`packageName: ${scalar(p.name)}`];
  if (p.channels.length === 0) lines.push('channels: []');
  else {
    lines.push('channels:');
    for (const c of p.channels)
      lines.push(`    - name: ${scalar(c.name)}`, `      currentCSV: ${scalar(c.currentCSV)}`);
  }
  lines.push(`defaultChannel: ${scalar(p.defaultChannel)}`);
  return `${lines.join('\n')}\n`;
}

const DEFAULT_FILE_MODE = 0o644;
const DEFAULT_DIR_MODE = 0o755;

/**
 * Copy the bundle image's `manifests/` folder to `to` (created), each file and folder with the
 * mode the image archived it with. opm copies `manifests/` whatever the bundle's labels say.
 */
export function copyManifests(img: PulledImage, to: string): void {
  const from = path.join(img.root, 'manifests');
  if (!existsSync(from) || !lstatSync(from).isDirectory())
    throw new OpmError(`the bundle image ${img.ref} has no manifests/ folder`);
  const modeOf = (rel: string, fallback: number): number => (img.modes?.get(rel) ?? fallback) & 0o7777;
  const copyDir = (src: string, dst: string, rel: string): void => {
    mkdirSync(dst, { recursive: true, mode: 0o700 });
    for (const e of readdirSync(src, { withFileTypes: true })) {
      const s = path.join(src, e.name);
      const d = path.join(dst, e.name);
      const r = `${rel}/${e.name}`;
      if (e.isDirectory()) copyDir(s, d, r);
      else if (e.isSymbolicLink()) symlinkSync(readlinkSync(s), d);
      else if (e.isFile()) {
        copyFileSync(s, d);
        chmodSync(d, modeOf(r, DEFAULT_FILE_MODE));
      }
    }
    // Last, so that a folder without write permission could be filled.
    chmodSync(dst, modeOf(rel, DEFAULT_DIR_MODE));
  };
  copyDir(from, to, 'manifests');
}

/**
 * Move the staged tree `staged` to `dest`: renamed when `dest` does not exist; otherwise merged
 * into it as opm writes into an existing folder (files replaced, other files left). `depth` is
 * that of `staged` under the tree's top (0: the download folder, 1: a package's).
 */
export function commitTree(staged: string, dest: string, depth = 0): void {
  if (!existsSync(dest)) {
    renameSync(staged, dest);
    return;
  }
  if (!lstatSync(dest).isDirectory()) throw new OpmError(`${dest} exists and is not a folder`);
  for (const e of readdirSync(staged, { withFileTypes: true })) {
    const s = path.join(staged, e.name);
    const d = path.join(dest, e.name);
    if (e.isDirectory() && existsSync(d) && lstatSync(d).isDirectory()) {
      // Folders inside a bundle's take the image's modes, as opm's copy sets them; the download
      // folder and the package folders keep theirs (opm only makes them when missing).
      const mode = depth >= 1 ? lstatSync(s).mode & 0o7777 : undefined;
      if (mode !== undefined) chmodSync(d, 0o700 | mode);
      commitTree(s, d, depth + 1);
      if (mode !== undefined) chmodSync(d, mode);
    } else {
      if (existsSync(d) && lstatSync(d).isDirectory()) rmSync(d, { recursive: true, force: true });
      renameSync(s, d);
    }
  }
}
