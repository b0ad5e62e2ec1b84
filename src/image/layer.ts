/**
 * Deterministic image layers: a tar of folders placed at paths of the image, entries sorted by the
 * bytes of their names, every time fixed (0, or SOURCE_DATE_EPOCH), owner 0:0 (or the folder's
 * `owner`) with no user or group names, modes kept, directories included, compressed by gzip with a header that names no time
 * and no system. The same content gives the same digest on any machine. Layers are written to a
 * file while both digests (the tar's, `diff_id`, and the compressed blob's) are computed, so no
 * layer is ever held in memory.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { lstat, readdir, readlink, stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import tar from 'tar-stream';
import { OpmError } from '../errors.js';
import { compareUtf8 } from '../go/utf8.js';
import { throwIfAborted } from '../util/abort.js';

/** A folder whose contents go under `at` in the image (`configs`, `tmp/cache`). */
export interface LayerFolder {
  dir: string;
  /** Path in the image, without leading or trailing `/`. */
  at: string;
  /**
   * Whether the folders above `at` get entries of their own (mode 0755). Leave them out where the
   * base has them with modes of its own (`/tmp` is 1777).
   */
  parents?: boolean;
  /**
   * Numeric owner of `at` and what it holds (not of the folders above it); default 0:0. A catalog
   * image's cache belongs to the base's user, as the files of a `RUN` step under its `USER` do.
   */
  owner?: Owner;
}

export interface Owner {
  uid: number;
  gid: number;
}

export interface BuiltLayer {
  /** The compressed blob: its file, digest and size. */
  file: string;
  digest: string;
  size: number;
  /** Digest of the uncompressed tar (the config's `rootfs.diff_ids`). */
  diffId: string;
}

export interface LayerOptions {
  /** Seconds since 1970 for every entry's mtime (SOURCE_DATE_EPOCH); default 0. */
  epoch?: number;
  signal?: AbortSignal;
}

interface Entry {
  name: string;
  abs: string | undefined;
  type: 'directory' | 'file' | 'symlink';
  mode: number;
  size: number;
  linkname?: string;
  owner?: Owner;
}

async function walk(root: string, at: string, out: Entry[], signal: AbortSignal | undefined): Promise<void> {
  const names = await readdir(root);
  names.sort(compareUtf8);
  for (const n of names) {
    throwIfAborted(signal);
    const abs = path.join(root, n);
    const name = `${at}/${n}`;
    const st = await lstat(abs);
    const mode = st.mode & 0o7777;
    if (st.isDirectory()) {
      out.push({ name, abs, type: 'directory', mode, size: 0 });
      await walk(abs, name, out, signal);
    } else if (st.isSymbolicLink()) {
      out.push({ name, abs, type: 'symlink', mode, size: 0, linkname: await readlink(abs) });
    } else if (st.isFile()) {
      out.push({ name, abs, type: 'file', mode, size: st.size });
    } else {
      throw new OpmError(`${abs}: not a regular file, folder or symbolic link; it cannot go into an image`);
    }
  }
}

/** Every entry of a layer, in the order written (each folder before what it holds, names by bytes). */
export async function layerEntries(folders: LayerFolder[], signal?: AbortSignal): Promise<Entry[]> {
  const out: Entry[] = [];
  for (const f of folders) {
    const at = f.at.replace(/^\/+|\/+$/g, '');
    let st;
    try {
      st = await stat(f.dir);
    } catch {
      throw new OpmError(`${f.dir}: no such folder`);
    }
    if (!st.isDirectory()) throw new OpmError(`${f.dir}: not a folder`);
    const parts = at.split('/');
    if (f.parents === true)
      for (let i = 1; i < parts.length; i++)
        out.push({
          name: parts.slice(0, i).join('/'),
          abs: undefined,
          type: 'directory',
          mode: 0o755,
          size: 0,
        });
    const first = out.length;
    out.push({ name: at, abs: f.dir, type: 'directory', mode: st.mode & 0o7777, size: 0 });
    await walk(f.dir, at, out, signal);
    const owner = f.owner;
    if (owner !== undefined) for (let i = first; i < out.length; i++) (out[i] as Entry).owner = owner;
  }
  return out;
}

/** Rewrites the gzip header's OS byte to 255 ("unknown"): zlib writes the building system's. */
class FixGzipHeader extends Transform {
  private seen = 0;
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    if (this.seen <= 9 && this.seen + chunk.length > 9) {
      const copy = Buffer.from(chunk);
      copy[9 - this.seen] = 0xff;
      chunk = copy;
    }
    this.seen += chunk.length;
    cb(null, chunk);
  }
}

/** Passes bytes through, hashing and counting them. */
class Digester extends Transform {
  readonly hash = createHash('sha256');
  size = 0;
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.hash.update(chunk);
    this.size += chunk.length;
    cb(null, chunk);
  }
}

/** Write a layer holding `folders` to `file` (gzip-compressed tar). */
export async function writeLayer(
  folders: LayerFolder[],
  file: string,
  opts: LayerOptions = {},
): Promise<BuiltLayer> {
  const entries = await layerEntries(folders, opts.signal);
  const mtime = new Date((opts.epoch ?? 0) * 1000);
  const pack = tar.pack();
  const tarHash = new Digester();
  const blobHash = new Digester();
  const written = pipeline(
    pack,
    tarHash,
    createGzip({ level: 6 }),
    new FixGzipHeader(),
    blobHash,
    createWriteStream(file),
  );
  const feed = async (): Promise<void> => {
    for (const e of entries) {
      throwIfAborted(opts.signal);
      const header = {
        name: e.name,
        type: e.type,
        mode: e.mode,
        mtime,
        uid: e.owner?.uid ?? 0,
        gid: e.owner?.gid ?? 0,
        uname: '',
        gname: '',
        size: e.size,
        ...(e.linkname !== undefined ? { linkname: e.linkname } : {}),
      };
      if (e.type !== 'file' || e.abs === undefined) {
        await new Promise<void>((resolve, reject) =>
          pack.entry(header, (err?: Error | null) => (err ? reject(err) : resolve())),
        );
        continue;
      }
      const source = e.abs;
      await new Promise<void>((resolve, reject) => {
        const sink = pack.entry(header, (err?: Error | null) => (err ? reject(err) : resolve()));
        pipeline(createReadStream(source), sink).catch(reject);
      });
    }
    pack.finalize();
  };
  try {
    await Promise.all([feed(), written]);
  } catch (err) {
    pack.destroy();
    await written.catch(() => undefined);
    throw err;
  }
  return {
    file,
    digest: `sha256:${blobHash.hash.digest('hex')}`,
    size: blobHash.size,
    diffId: `sha256:${tarHash.hash.digest('hex')}`,
  };
}

/** SOURCE_DATE_EPOCH from an environment, when it is a whole number of seconds. */
export function sourceDateEpoch(env: Record<string, string | undefined> | undefined): number | undefined {
  const v = env?.SOURCE_DATE_EPOCH?.trim();
  if (v === undefined || v === '') return undefined;
  if (!/^\d+$/.test(v))
    throw new OpmError(`SOURCE_DATE_EPOCH="${v}" is not a whole number of seconds since 1970`, {
      hint: 'set it to a number such as $(git log -1 --format=%ct), or unset it',
    });
  return Number(v);
}
