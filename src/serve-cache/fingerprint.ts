/**
 * opm-ts's fingerprint of a pogreb cache it wrote (`pogreb.v1/opm-ts.sums`): the digest written,
 * and the raw bytes the digest was computed from, as SHA-256 sums: every catalog file in walk order
 * (`.indexignore` honoured, the walk of walkMetaBlobs) and every file of the database folder.
 *
 * opm's digest covers the catalog's blobs as parsed and written again, and every key and value of
 * the database, so checking it means parsing the whole catalog. When the fingerprint names the
 * digest the cache reports, and the catalog files and database files are byte for byte those the
 * digest was computed from, the recomputed digest is that digest: the same bytes parse to the same
 * blobs and hold the same keys and values. The check then passes without parsing. Anything else
 * (no fingerprint, another version, another file list, one byte changed) leaves the decision to
 * opm's full check, which also passes a change that only touches comments or layout.
 *
 * The Go opm's pogreb backend reads only `digest` and `db/` under `pogreb.v1/`, and a Go rebuild
 * empties `pogreb.v1/`, so the file is ignored by it and removed by it (docs/compatibility.md, SC7).
 */
import { createHash } from 'node:crypto';
import { chmodSync, closeSync, openSync, readdirSync, readSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { compareUtf8 } from '../go/utf8.js';
import { walkCatalog } from '../declcfg/load.js';
import { maxBlobBytes, readsInParts } from '../declcfg/load-large.js';
import type { Environment } from '../declcfg/load-pool.js';
import { Checkpoint } from '../util/abort.js';

/** The fingerprint's name inside `pogreb.v1/`. */
export const FINGERPRINT_FILE = 'opm-ts.sums';
/**
 * The fingerprint's format. Raised whenever the same bytes could give another digest (how catalog
 * files are parsed into blobs, or how the digest is computed, changes), so that a fingerprint
 * written before is not trusted and the full check decides.
 */
export const FINGERPRINT_VERSION = 1;
/** A larger fingerprint is not read (the full check decides); one line a file keeps it far below. */
const MAX_FINGERPRINT_BYTES = 64 * 1024 * 1024;
/** Bytes read at a time while hashing a file: memory stays bounded whatever the file's size. */
const READ_BYTES = 1024 * 1024;
const FILE_MODE = 0o660;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** A catalog file: its path relative to the catalog root (`/` separators), size and SHA-256. */
export interface CatalogFileSum {
  path: string;
  size: number;
  sha256: string;
}

/** A file of the database folder. */
export interface DbFileSum {
  name: string;
  size: number;
  sha256: string;
}

export interface Fingerprint {
  version: number;
  digest: string;
  catalog: CatalogFileSum[];
  db: DbFileSum[];
}

/** SHA-256 (hex) of bytes already read. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

let readBuffer: Buffer | undefined;

/**
 * SHA-256 (hex) of a file read in parts of READ_BYTES, or undefined when it does not hold exactly
 * `size` bytes (reading stops as soon as it holds more).
 */
function sha256File(file: string, size: number): string | undefined {
  readBuffer ??= Buffer.allocUnsafe(READ_BYTES);
  const buf = readBuffer;
  const h = createHash('sha256');
  const fd = openSync(file, 'r');
  try {
    let n = 0;
    for (;;) {
      const got = readSync(fd, buf, 0, buf.length, null);
      if (got === 0) break;
      n += got;
      if (n > size) return undefined;
      h.update(buf.subarray(0, got));
    }
    return n === size ? h.digest('hex') : undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * The regular files of a database folder in byte order of names, with their sizes; undefined when
 * it holds anything else (a folder, a symlink), which no fingerprint covers.
 */
function dbFiles(dbDir: string): { name: string; size: number }[] | undefined {
  const entries = readdirSync(dbDir, { withFileTypes: true });
  const out: { name: string; size: number }[] = [];
  for (const e of entries) {
    if (!e.isFile()) return undefined;
    out.push({ name: e.name, size: statSync(path.join(dbDir, e.name)).size });
  }
  return out.sort((a, b) => compareUtf8(a.name, b.name));
}

/**
 * Write the fingerprint of a cache whose digest `digest` was just written in `pogrebDir`, computed
 * from catalog files whose sums are `catalog` (taken from the very bytes that were parsed for it).
 * The database files are hashed here. Writes nothing when the database folder holds anything but
 * regular files.
 */
export function writeFingerprint(
  pogrebDir: string,
  digest: string,
  catalog: readonly CatalogFileSum[],
): void {
  const dbDir = path.join(pogrebDir, 'db');
  const files = dbFiles(dbDir);
  if (files === undefined) return;
  const db: DbFileSum[] = [];
  for (const f of files) {
    const sha256 = sha256File(path.join(dbDir, f.name), f.size);
    // A file that changed while it was read: no fingerprint, the full check decides.
    if (sha256 === undefined) return;
    db.push({ name: f.name, size: f.size, sha256 });
  }
  const fp: Fingerprint = { version: FINGERPRINT_VERSION, digest, catalog: [...catalog], db };
  const file = path.join(pogrebDir, FINGERPRINT_FILE);
  writeFileSync(file, JSON.stringify(fp) + '\n', { mode: FILE_MODE });
  chmodSync(file, FILE_MODE);
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isSize = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

function fileSums<K extends 'path' | 'name'>(
  v: unknown,
  key: K,
): ({ [P in K]: string } & { size: number; sha256: string })[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: ({ [P in K]: string } & { size: number; sha256: string })[] = [];
  for (const e of v as unknown[]) {
    if (!isObject(e)) return undefined;
    const name = e[key];
    const { size, sha256 } = e;
    if (typeof name !== 'string' || !isSize(size) || typeof sha256 !== 'string' || !SHA256_HEX.test(sha256))
      return undefined;
    out.push({ [key]: name, size, sha256 } as { [P in K]: string } & { size: number; sha256: string });
  }
  return out;
}

/** The fingerprint in `pogrebDir`, or undefined when there is none, or none of this version. */
export function readFingerprint(pogrebDir: string): Fingerprint | undefined {
  let text: string;
  try {
    const file = path.join(pogrebDir, FINGERPRINT_FILE);
    const fd = openSync(file, 'r');
    try {
      const size = statSync(file).size;
      if (size > MAX_FINGERPRINT_BYTES) return undefined;
      const buf = Buffer.allocUnsafe(size);
      let n = 0;
      while (n < size) {
        const got = readSync(fd, buf, n, size - n, null);
        if (got === 0) break;
        n += got;
      }
      text = buf.toString('utf8', 0, n);
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(v) || v.version !== FINGERPRINT_VERSION || typeof v.digest !== 'string') return undefined;
  const catalog = fileSums(v.catalog, 'path');
  const db = fileSums(v.db, 'name');
  if (catalog === undefined || db === undefined) return undefined;
  return { version: FINGERPRINT_VERSION, digest: v.digest, catalog, db };
}

export interface FingerprintCheckOptions {
  signal?: AbortSignal;
  /** Where OPM_MAX_BLOB_BYTES is read: a file the full check would read in parts is not taken here. */
  env?: Environment;
}

/**
 * Whether the fingerprint of the cache in `pogrebDir` proves that opm's digest of `catalogDir` and
 * the database equals `storedDigest`: the fingerprint names it, the walk gives the same files with
 * the same sizes and SHA-256 sums, and so does the database folder. False at the first difference
 * and whenever something cannot be read: the full check then decides, in its own words. Only an
 * abort throws.
 */
export async function fingerprintMatches(
  pogrebDir: string,
  catalogDir: string,
  storedDigest: string,
  options: FingerprintCheckOptions = {},
): Promise<boolean> {
  const { signal } = options;
  try {
    const fp = readFingerprint(pogrebDir);
    if (fp?.digest !== storedDigest) return false;
    // Names and sizes first, all of them, before a byte is hashed.
    const walk = await walkCatalog(catalogDir, signal);
    if (walk.problems.length > 0 || walk.files.length !== fp.catalog.length) return false;
    // A file the full check reads in parts can fail there on a blob over the limit (OPM_MAX_BLOB_BYTES).
    const maxBlob = maxBlobBytes(options.env);
    for (let i = 0; i < walk.files.length; i++) {
      const f = walk.files[i];
      const want = fp.catalog[i];
      if (f === undefined || want === undefined) return false;
      if (f.rel !== want.path || f.size !== want.size || readsInParts(f.size, maxBlob)) return false;
    }
    const dbDir = path.join(pogrebDir, 'db');
    const db = dbFiles(dbDir);
    if (db?.length !== fp.db.length) return false;
    for (let i = 0; i < db.length; i++) {
      const f = db[i];
      const want = fp.db[i];
      if (f === undefined || want === undefined || f.name !== want.name || f.size !== want.size) return false;
    }
    const checkpoint = new Checkpoint(signal);
    for (let i = 0; i < walk.files.length; i++) {
      await checkpoint.pass();
      const f = walk.files[i];
      const want = fp.catalog[i];
      if (f === undefined || want === undefined || sha256File(f.abs, f.size) !== want.sha256) return false;
    }
    for (let i = 0; i < db.length; i++) {
      await checkpoint.pass();
      const f = db[i];
      const want = fp.db[i];
      if (f === undefined || want === undefined) return false;
      if (sha256File(path.join(dbDir, f.name), f.size) !== want.sha256) return false;
    }
    return true;
  } catch {
    if (signal?.aborted === true) throw signal.reason;
    return false;
  }
}
