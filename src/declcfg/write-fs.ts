/**
 * opm's WriteFS (`alpha/declcfg/write.go`, used by `migrate`): one `<root>/<package>/catalog.<ext>`
 * per package, package-less blobs in `<root>/catalog.<ext>`. Every file is first written under a
 * temporary name and renamed into place only once all of them are complete, so a failure (a blob
 * the YAML step refuses, a full disk) leaves no partial catalog behind.
 */
import { expectConfig, expectOptions, expectString } from '../util/args.js';
import { mkdir, open, rename, rm, unlink } from 'node:fs/promises';
import path from 'node:path';
import { OpmError } from '../errors.js';
import { errnoText } from '../go/errno.js';
import { randomHex } from '../util/random-hex.js';
import { throwIfAborted } from '../util/abort.js';
import type { DeclarativeConfig, Blob } from './types.js';
import { blobJson, blobYaml, groupBlobs, restoredBlobs, type WriteOptions } from './write.js';

export type CatalogFormat = 'json' | 'yaml';

/** Go filepath.IsLocal on Unix: relative, non-empty, and not escaping upwards (`a/b` is local). */
function isLocalPath(p: string): boolean {
  if (p === '' || p.startsWith('/')) return false;
  let clean = p;
  if (p.split('/').some((part) => part === '.' || part === '..')) {
    clean = path.posix.normalize(p).replace(/\/+$/, '');
  }
  return clean !== '..' && !clean.startsWith('../');
}

// Chunks are gathered up to this size before each write call.
const FLUSH_BYTES = 1 << 20;

async function writeBlobs(
  file: string,
  shown: string,
  blobs: Iterable<Blob>,
  format: CatalogFormat,
): Promise<void> {
  const fh = await open(file, 'wx', 0o666).catch((err: unknown) => {
    throw fileError(shown, err);
  });
  try {
    let pending: string[] = [];
    let size = 0;
    const flush = async (): Promise<void> => {
      if (pending.length === 0) return;
      const text = pending.join('');
      pending = [];
      size = 0;
      // write(2) may take part of the bytes (a disk filling up): the rest is written again, and the
      // call that cannot take any fails with the system's error.
      const data = Buffer.from(text);
      for (let done = 0; done < data.length;) {
        const { bytesWritten } = await fh.write(data, done, data.length - done).catch((err: unknown) => {
          throw fileError(shown, err);
        });
        if (bytesWritten === 0) throw new OpmError(`write file "${shown}": short write`);
        done += bytesWritten;
      }
    };
    for (const b of blobs) {
      let chunk: string;
      try {
        chunk = format === 'json' ? blobJson(b) : blobYaml(b);
      } catch (err) {
        const msg = err instanceof Error ? err.message : String(err);
        throw new OpmError(`write to buffer for "${shown}": ${msg}`, { cause: err });
      }
      pending.push(chunk);
      size += chunk.length;
      if (size >= FLUSH_BYTES) await flush();
    }
    await flush();
  } finally {
    await fh.close();
  }
}

/** `shown` is the file's final name; the system's error in Go's words (no space left on device). */
function fileError(shown: string, err: unknown): OpmError {
  return new OpmError(`write file "${shown}": ${errnoText(err)}`, { cause: err });
}

/** Options of writeCatalogDir. */
export interface CatalogDirOptions extends WriteOptions {
  /**
   * The folder file names in error messages are shown under, in place of `root`: the final output
   * folder when `root` is where it is staged.
   */
  shownRoot?: string;
  /** Stops the writing: what was written is removed and the promise rejects with its reason. */
  signal?: AbortSignal;
}

/**
 * Write `cfg` as a catalog directory under `root`, as `opm migrate` does. Throws OpmError for a
 * package name that is not a local path (`invalid package name "<p>": must be a single local
 * path element`) and for write failures. `signal` is checked before each package's file; when it
 * fires, what was written is removed and the promise rejects with its reason.
 */
export async function writeCatalogDir(
  cfg: DeclarativeConfig,
  root: string,
  format: CatalogFormat,
  options: CatalogDirOptions = {},
): Promise<void> {
  expectConfig(cfg, 'writeCatalogDir(cfg)');
  expectString(root, 'writeCatalogDir(cfg, root)', 'the directory to write');
  // A check for JavaScript callers, whom the type does not bind.
  const f: unknown = format;
  if (f !== 'json' && f !== 'yaml') {
    throw new TypeError(
      `writeCatalogDir(cfg, root, format): format must be 'json' or 'yaml', not ${JSON.stringify(f)}`,
    );
  }
  expectOptions(options, 'writeCatalogDir(cfg, root, format, options)');
  const { signal, ...writeOptions } = options;
  const groups = groupBlobs(cfg, writeOptions);
  for (const g of groups) {
    if (g.package !== '' && !isLocalPath(g.package)) {
      throw new OpmError(`invalid package name "${g.package}": must be a single local path element`);
    }
  }
  const ext = format === 'json' ? 'json' : 'yaml';
  const createdRoot = await mkdir(root, { recursive: true, mode: 0o777 });
  const created: string[] = createdRoot === undefined ? [] : [createdRoot];
  const temps: Array<{ temp: string; file: string; shown: string }> = [];
  try {
    for (const g of groups) {
      throwIfAborted(signal);
      const dir = g.package === '' ? root : path.join(root, g.package);
      const made = await mkdir(dir, { recursive: true, mode: 0o777 });
      if (made !== undefined) created.push(made);
      const file = path.join(dir, `catalog.${ext}`);
      const temp = path.join(dir, `.catalog.${ext}.${randomHex(8)}.tmp`);
      const shown =
        options.shownRoot === undefined ? file : path.join(options.shownRoot, path.relative(root, file));
      temps.push({ temp, file, shown });
      await writeBlobs(temp, shown, restoredBlobs(cfg, g.blobs), format);
    }
    throwIfAborted(signal);
    for (const t of temps) {
      await rename(t.temp, t.file).catch((err: unknown) => {
        throw fileError(t.shown, err);
      });
    }
  } catch (err) {
    await Promise.all(temps.map((t) => unlink(t.temp).catch(() => undefined)));
    // Directories made for this write hold nothing else: remove them again.
    for (const d of created.reverse()) await rm(d, { recursive: true, force: true }).catch(() => undefined);
    throw err;
  }
}
