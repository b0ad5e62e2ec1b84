/**
 * `opm alpha bundle unpack`: pull a bundle image, check its format (unless told not to), and copy
 * its tree into a folder, with the modes opm's unpacking gives: each file and folder as archived
 * and writable by its owner, folders the image does not list 0755.
 */
import {
  chmod,
  copyFile,
  lstat,
  mkdir,
  readdir,
  readlink,
  rename,
  rm,
  stat,
  symlink,
} from 'node:fs/promises';
import path from 'node:path';
import { OpmError } from '../../errors.js';
import { errnoCode, errnoText } from '../../go/errno.js';
import { compareUtf8 } from '../../go/utf8.js';
import { throwIfAborted } from '../../util/abort.js';
import { ownedFileName, releaseOwned } from '../../util/owned-temp.js';
import type { ImageSource, PulledImage } from '../../oci/image-source.js';
import {
  expectObject,
  expectOptionalBoolean,
  expectOptionalFunction,
  expectOptionalString,
  expectString,
} from '../../util/args.js';
import {
  checkBundleFormat,
  validationErrorsText,
  type BundleFormatOptions,
} from '../../authoring/bundle-format.js';

export interface UnpackBundleOptions {
  /** The image source (the registry client, with the command's TLS, HTTP and CA settings). */
  imageSource: ImageSource;
  /** `-o`: the folder to write into; default `./`. Created (0755) when missing. */
  out?: string;
  /** `-v`: copy the tree without checking it. */
  skipValidation?: boolean;
  /** More format checks (`alpha bundle validate`'s dependencies file). */
  formatChecks?: BundleFormatOptions;
  /**
   * The content checks of the manifests (`bundle content validation failed: …`), given the
   * unpacked `manifests/` folder: the problems found. None are made without it.
   */
  validateContent?: (manifestsDir: string) => Promise<string[]>;
  cwd?: string;
  /** opm's info log lines. */
  log?: (line: string) => void;
  signal?: AbortSignal;
}

export interface UnpackedBundle {
  /** The image's digest. */
  digest: string;
  /** The folder written, absolute. */
  out: string;
  /** Paths written, relative to `out`, in the order written. */
  files: string[];
}

/** The PEM text of a `--root-ca` file, checked as opm checks it. */
export function rootCaText(text: string, file: string): string {
  if (!text.includes('-----BEGIN CERTIFICATE-----'))
    throw new OpmError(`failed to fetch root CA from ${file}`);
  return text;
}

/** Refuse an existing symlink on the way from `out` to `dest`: the tree stays inside `out`. */
async function checkNoSymlink(out: string, rel: string): Promise<void> {
  let p = out;
  for (const part of rel.split('/')) {
    p = path.join(p, part);
    const st = await lstat(p).catch(() => undefined);
    if (st === undefined) return;
    if (st.isSymbolicLink())
      throw new OpmError(`failed to copy unpacked content to output directory: ${p} is a symbolic link`, {
        hint: 'remove it, or unpack into another folder',
      });
  }
}

/** Copy the tree at `from` into `to`, with the image's modes; returns the paths written. */
async function copyTree(img: PulledImage, to: string, signal: AbortSignal | undefined): Promise<string[]> {
  const written: string[] = [];
  const modes = img.modes ?? new Map<string, number>();
  const walk = async (rel: string): Promise<void> => {
    const from = rel === '' ? img.root : path.join(img.root, rel);
    const entries = (await readdir(from, { withFileTypes: true })).sort((a, b) =>
      compareUtf8(a.name, b.name),
    );
    for (const e of entries) {
      throwIfAborted(signal);
      const r = rel === '' ? e.name : `${rel}/${e.name}`;
      const src = path.join(from, e.name);
      const dest = path.join(to, r);
      await checkNoSymlink(to, r);
      const archived = modes.get(r);
      if (e.isDirectory()) {
        const st = await lstat(dest).catch(() => undefined);
        if (st !== undefined && !st.isDirectory()) await rm(dest, { force: true });
        if (st?.isDirectory() !== true) await mkdir(dest);
        await walk(r);
        // Set after its content is in, as a folder without write permission may be archived.
        await chmod(dest, archived === undefined ? 0o755 : archived | 0o200);
        written.push(r);
        continue;
      }
      const temp = ownedFileName(path.dirname(dest), `.${e.name}.tmp-`);
      try {
        if (e.isSymbolicLink()) await symlink(await readlink(src), temp);
        else {
          await copyFile(src, temp);
          await chmod(temp, archived === undefined ? 0o644 : archived | 0o200);
        }
        const st = await lstat(dest).catch(() => undefined);
        if (st?.isDirectory() === true) await rm(dest, { recursive: true, force: true });
        await rename(temp, dest);
      } catch (err) {
        await rm(temp, { force: true });
        if (err instanceof OpmError) throw err;
        throw new OpmError(`failed to copy unpacked content to output directory: ${errnoText(err)}`, {
          cause: err,
        });
      } finally {
        releaseOwned(temp);
      }
      written.push(r);
    }
  };
  await walk('');
  return written;
}

/**
 * Pull the bundle image `ref`, check its format as `opm alpha bundle unpack` does (unless
 * `skipValidation`), and write its tree into `out` with the modes opm gives. Rejects with an
 * OpmError in opm's words (`bundle format validation failed: …`, a failed pull, an output path that
 * is a file).
 *
 * @example
 * const images = createImageSource();
 * const u = await unpackBundle('quay.io/me/foo-bundle:v1', { imageSource: images, out: 'foo' });
 * console.log(u.files);
 */
export async function unpackBundle(ref: string, o: UnpackBundleOptions): Promise<UnpackedBundle> {
  expectString(ref, 'unpackBundle(ref)', 'an image reference');
  expectObject(o, 'unpackBundle(options)');
  expectObject(
    o.imageSource,
    'unpackBundle(options).imageSource',
    'an ImageSource, such as createImageSource() returns',
  );
  expectOptionalString(o.out, 'unpackBundle(options).out');
  expectOptionalString(o.cwd, 'unpackBundle(options).cwd');
  expectOptionalBoolean(o.skipValidation, 'unpackBundle(options).skipValidation');
  for (const k of ['validateContent', 'log'] as const)
    expectOptionalFunction(o[k], `unpackBundle(options).${k}`);
  const cwd = path.resolve(o.cwd ?? '.');
  const shown = o.out ?? './';
  const out = path.resolve(cwd, shown);
  let created = false;
  try {
    const st = await stat(out);
    if (!st.isDirectory()) throw new OpmError(`out ${shown} is not a directory`);
  } catch (err) {
    if (err instanceof OpmError) throw err;
    if (errnoCode(err) !== 'ENOENT') throw new OpmError(`stat ${shown}: ${errnoText(err)}`);
    try {
      await mkdir(out, { recursive: true, mode: 0o755 });
    } catch (e) {
      throw new OpmError(`mkdir ${shown}: ${errnoText(e)}`);
    }
    created = true;
  }
  const img = await o.imageSource.pull(ref, o.signal === undefined ? {} : { signal: o.signal });
  try {
    throwIfAborted(o.signal);
    if (o.skipValidation === true) o.log?.('skipping bundle validation');
    else {
      const format = await checkBundleFormat(img.root, o.formatChecks);
      if (format.errors.length > 0)
        throw new OpmError(`bundle format validation failed: ${validationErrorsText(format.errors)}`);
      const content = (await o.validateContent?.(path.join(img.root, 'manifests'))) ?? [];
      if (content.length > 0)
        throw new OpmError(`bundle content validation failed: ${validationErrorsText(content)}`);
    }
    const files = await copyTree(img, out, o.signal);
    // opm copies the folder it unpacked into (private, 0700) onto the output folder; a folder it
    // created takes that mode, one that was there keeps its own.
    if (created) await chmod(out, 0o700);
    return { digest: img.digest, out, files };
  } finally {
    await img.release();
  }
}
