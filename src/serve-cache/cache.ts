/**
 * opm's on-disk serve cache (operator-registry `pkg/cache`): which layout a cache directory holds,
 * reading it, checking it against its catalog, and writing a new one that opm itself accepts.
 *
 * Two layouts ("backends") exist, and the directory's contents choose:
 * - empty or missing: the preferred `pogreb.v1`;
 * - a `pogreb.v1/` directory: `<dir>/pogreb.v1/digest` and the pogreb database `<dir>/pogreb.v1/db/`
 *   holding `packages.json`, `bundles/<package>/<channel>/<bundle>` (protobuf `api.Bundle`) and
 *   `metas/<schema>/<package>` (records of a 4-byte big-endian length and a protobuf
 *   `google.protobuf.Struct`);
 * - a `cache/` directory and a `digest` file: the older `json` layout (read here, not written);
 * - anything else is refused, as opm refuses it.
 *
 * Errors carry opm's own texts (`cache directory has unexpected contents: …`, `read existing cache
 * digest: …`, `cache requires rebuild: …`); the caller adds what opm puts before them
 * (`integrity check failed: `).
 */
import { type Dirent, chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { OpmError, wrapError } from '../errors.js';
import { errnoCode, errnoText } from '../go/errno.js';
import { goQuote } from '../go/fmt.js';
import { compareUtf8 } from '../go/utf8.js';
import { metaFields, metaKeyProblem } from '../declcfg/meta.js';
import { SCHEMA_BUNDLE, SCHEMA_CHANNEL, SCHEMA_DEPRECATIONS, SCHEMA_PACKAGE } from '../declcfg/types.js';
import {
  hashCatalogBlobs,
  pogrebDigest,
  walkMetaBlobs,
  type HashBlobsOptions,
  type MetaBlob,
} from './digest.js';
import { decodePackageIndex, encodePackageIndex } from './packages-json.js';
import { PackageIndexError, type PackageIndex } from '../catalog-queries/package-index.js';
import { PogrebError, PogrebReader, PogrebWriter } from './pogreb.js';
import { Fnv1a64 } from './hash.js';
import { ListedBundleReader } from './listed-bundle.js';
import { encodeStruct } from '../protobuf/struct.js';
import { jsonBackendDigest, readJsonBundle, readJsonMetas } from './json-backend.js';
import { fingerprintMatches, sha256Hex, writeFingerprint, type CatalogFileSum } from './fingerprint.js';

export type CacheBackend = 'pogreb.v1' | 'json';
export const PREFERRED_BACKEND: CacheBackend = 'pogreb.v1';

const POGREB_DIR = 'pogreb.v1';
const POGREB_DIGEST = 'pogreb.v1/digest';
const POGREB_DB = 'pogreb.v1/db';
const JSON_DIR = 'cache';
const JSON_DIGEST = 'digest';
const FILE_MODE = 0o660;

/** A cache that cannot be used: refused layout, missing or stale digest, unreadable content. */
export class ServeCacheError extends OpmError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'ServeCacheError';
  }
}

export interface BackendDetection {
  backend: CacheBackend;
  /**
   * False when the directory is empty or missing (opm logs `cache directory is empty, using
   * preferred backend`), true when a cache was found (`found existing cache contents`).
   */
  existing: boolean;
}

/** Which layout `cacheDir` holds, by opm's rules; throws opm's error for anything else. */
export function detectBackend(cacheDir: string): BackendDetection {
  let entries: Dirent[];
  try {
    entries = readdirSync(cacheDir, { withFileTypes: true });
  } catch (err) {
    if (errnoCode(err) !== 'ENOENT') {
      throw new ServeCacheError(
        `detect cache format: read cache directory: open ${cacheDir}: ${errnoText(err)}`,
        { cause: err },
      );
    }
    entries = [];
  }
  if (entries.length === 0) return { backend: PREFERRED_BACKEND, existing: false };
  if (entries.some((e) => e.isDirectory() && e.name === POGREB_DIR))
    return { backend: 'pogreb.v1', existing: true };
  if (
    entries.some((e) => e.isDirectory() && e.name === JSON_DIR) &&
    entries.some((e) => e.name === JSON_DIGEST)
  ) {
    return { backend: 'json', existing: true };
  }
  const names = entries.map((e) => e.name).sort(compareUtf8);
  throw new ServeCacheError(`cache directory has unexpected contents: ${names.join(',')}`);
}

/** How the catalog is read for a digest: cancellation, and the threads it is parsed on. */
export type DigestOptions = HashBlobsOptions;

/**
 * How an integrity check passed: `fingerprint` when opm-ts's fingerprint of the cache proved the
 * catalog and database unchanged byte for byte (fingerprint.ts), `digest` when opm's digest was
 * recomputed.
 */
export type IntegrityCheck = 'fingerprint' | 'digest';

/** A cache directory opened for reading. */
export interface ServeCache {
  readonly backend: CacheBackend;
  readonly dir: string;
  /** The digest the cache reports (opm's GetDigest); throws `read existing cache digest: …`. */
  storedDigest(): string;
  /** The digest of the catalog with this cache's content, as opm computes it for this layout. */
  computeDigest(catalogDir: string, options?: DigestOptions): Promise<string>;
  /**
   * opm's CheckIntegrity: the stored digest must equal the computed one. Throws
   * `read existing cache digest: …` or `cache requires rebuild: cache reports digest as "A", but
   * computed digest is "B"` (the second with both digests in `mismatch`). A pogreb cache with
   * opm-ts's fingerprint, whose files are those it names, passes without the digest recomputed;
   * any other passes or fails as opm decides.
   */
  checkIntegrity(catalogDir: string, options?: DigestOptions): Promise<IntegrityCheck>;
  /** `packages.json`, parsed. */
  packageIndex(): PackageIndex;
  /** The protobuf `api.Bundle` of a bundle in a channel, as stored; undefined when there is none. */
  bundle(packageName: string, channelName: string, bundleName: string): Uint8Array | undefined;
  /**
   * The ListBundles message of a stored bundle with an image, made from its stored bytes
   * (listed-bundle.ts); undefined when the bundle is not there, has no image, or the backend or
   * its bytes do not allow it: the caller then decodes bundle()'s bytes.
   */
  listedBundle?(packageName: string, channelName: string, bundleName: string): Uint8Array | undefined;
  /** The custom-schema blobs stored for (schema, package), each a protobuf `google.protobuf.Struct`. */
  metas(schema: string, packageName: string): Uint8Array[];
  close(): void;
}

/** The digest of a cache did not match its catalog. */
export class DigestMismatchError extends ServeCacheError {
  readonly existingDigest: string;
  readonly computedDigest: string;
  constructor(existingDigest: string, computedDigest: string) {
    super(
      `cache requires rebuild: cache reports digest as ${goQuote(existingDigest)}, but computed digest is ${goQuote(computedDigest)}`,
    );
    this.name = 'DigestMismatchError';
    this.existingDigest = existingDigest;
    this.computedDigest = computedDigest;
  }
}

function readDigestFile(file: string): string {
  try {
    // opm trims white space around the digest.
    return readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw new ServeCacheError(`read existing cache digest: open ${file}: ${errnoText(err)}`, { cause: err });
  }
}

function storedFailure(what: string, err: unknown): never {
  if (err instanceof PogrebError || err instanceof PackageIndexError) {
    throw new ServeCacheError(`${what}: ${err.message}`, { cause: err });
  }
  if (errnoCode(err) !== '') throw new ServeCacheError(`${what}: ${errnoText(err)}`, { cause: err });
  throw err;
}

async function checkAgainst(cache: ServeCache, catalogDir: string, options?: DigestOptions): Promise<void> {
  const existing = cache.storedDigest();
  let computed;
  try {
    computed = await cache.computeDigest(catalogDir, options);
  } catch (err) {
    if (options?.signal?.aborted === true) throw err;
    // A catalog file that cannot be read keeps its position (file and line).
    throw wrapError('compute digest', err);
  }
  if (existing !== computed) throw new DigestMismatchError(existing, computed);
}

const te = new TextEncoder();
const bundleKey = (p: string, c: string, b: string): Uint8Array => te.encode(`bundles/${p}/${c}/${b}`);
const metaKey = (schema: string, p: string): Uint8Array => te.encode(`metas/${schema}/${p}`);

/** Split a `metas/…` value into its Struct records. */
export function splitMetaRecords(value: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  const v = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  let pos = 0;
  while (v.length - pos >= 4) {
    const n = v.readUInt32BE(pos);
    pos += 4;
    if (v.length - pos < n) throw new ServeCacheError('read meta blobs: truncated meta blob in pogreb value');
    out.push(v.subarray(pos, pos + n));
    pos += n;
  }
  if (pos !== v.length)
    throw new ServeCacheError(`read meta blobs: corrupt meta blob: ${v.length - pos} trailing bytes`);
  return out;
}

class PogrebCache implements ServeCache {
  readonly backend = 'pogreb.v1' as const;
  private db: PogrebReader | undefined;
  private opened = false;
  readonly dir: string;
  constructor(dir: string) {
    this.dir = dir;
  }

  /** The database, or undefined when there is none yet (opm would create an empty one). */
  private database(): PogrebReader | undefined {
    if (!this.opened) {
      this.opened = true;
      const dbDir = path.join(this.dir, POGREB_DB);
      let present = false;
      try {
        present = readdirSync(dbDir).length > 0;
      } catch (err) {
        if (errnoCode(err) !== 'ENOENT') storedFailure('open cache', err);
      }
      try {
        if (present) this.db = PogrebReader.open(dbDir);
      } catch (err) {
        storedFailure('open cache', err);
      }
    }
    return this.db;
  }

  storedDigest(): string {
    return readDigestFile(path.join(this.dir, POGREB_DIGEST));
  }

  async computeDigest(catalogDir: string, options: DigestOptions = {}): Promise<string> {
    const db = this.database();
    let entries: Iterable<readonly [Uint8Array, Uint8Array]> = [];
    try {
      if (db !== undefined) entries = db.entryViews();
      const h = new Fnv1a64();
      await hashCatalogBlobs(catalogDir, h, options);
      return await pogrebDigest([], entries, h);
    } catch (err) {
      if (err instanceof PogrebError) storedFailure('read cache', err);
      throw err;
    }
  }

  async checkIntegrity(catalogDir: string, options: DigestOptions = {}): Promise<IntegrityCheck> {
    const existing = this.storedDigest();
    const { signal, env } = options;
    if (
      await fingerprintMatches(path.join(this.dir, POGREB_DIR), catalogDir, existing, {
        ...(signal === undefined ? {} : { signal }),
        ...(env === undefined ? {} : { env }),
      })
    )
      return 'fingerprint';
    await checkAgainst(this, catalogDir, options);
    return 'digest';
  }

  packageIndex(): PackageIndex {
    try {
      const v = this.database()?.get(te.encode('packages.json'));
      // opm unmarshals a missing value (nil) and fails: `unexpected end of JSON input`.
      if (v === undefined) throw new ServeCacheError('get package index: unexpected end of JSON input');
      return decodePackageIndex(v);
    } catch (err) {
      if (err instanceof ServeCacheError) throw err;
      storedFailure('get package index', err);
    }
  }

  bundle(packageName: string, channelName: string, bundleName: string): Uint8Array | undefined {
    try {
      return this.database()?.get(bundleKey(packageName, channelName, bundleName));
    } catch (err) {
      storedFailure('get bundle', err);
    }
  }

  private listed: ListedBundleReader | undefined;

  listedBundle(packageName: string, channelName: string, bundleName: string): Uint8Array | undefined {
    try {
      const db = this.database();
      if (db === undefined) return undefined;
      const key = bundleKey(packageName, channelName, bundleName);
      this.listed ??= new ListedBundleReader();
      return this.listed.read((head) => db.valueReader(key, head));
    } catch (err) {
      storedFailure('get bundle', err);
    }
  }

  metas(schema: string, packageName: string): Uint8Array[] {
    let v;
    try {
      v = this.database()?.get(metaKey(schema, packageName));
    } catch (err) {
      storedFailure('read meta blobs', err);
    }
    return v === undefined ? [] : splitMetaRecords(v);
  }

  close(): void {
    this.db?.close();
    this.db = undefined;
    this.opened = false;
  }
}

class JsonCache implements ServeCache {
  readonly backend = 'json' as const;
  readonly dir: string;
  constructor(dir: string) {
    this.dir = dir;
  }

  storedDigest(): string {
    return readDigestFile(path.join(this.dir, JSON_DIGEST));
  }

  computeDigest(catalogDir: string, options: DigestOptions = {}): Promise<string> {
    return jsonBackendDigest(catalogDir, path.join(this.dir, JSON_DIR), options.signal);
  }

  async checkIntegrity(catalogDir: string, options?: DigestOptions): Promise<IntegrityCheck> {
    await checkAgainst(this, catalogDir, options);
    return 'digest';
  }

  packageIndex(): PackageIndex {
    try {
      return decodePackageIndex(readFileSync(path.join(this.dir, JSON_DIR, 'packages.json')));
    } catch (err) {
      storedFailure('get package index', err);
    }
  }

  bundle(packageName: string, channelName: string, bundleName: string): Uint8Array | undefined {
    return readJsonBundle(path.join(this.dir, JSON_DIR), packageName, channelName, bundleName);
  }

  metas(schema: string, packageName: string): Uint8Array[] {
    return readJsonMetas(path.join(this.dir, JSON_DIR), schema, packageName);
  }

  close(): void {}
}

/**
 * Open the cache in `cacheDir` in the layout it holds (detectBackend; an empty or missing directory
 * opens as an empty pogreb cache, whose stored digest is missing). Reads nothing else yet.
 */
export function openServeCache(cacheDir: string): ServeCache & { detection: BackendDetection } {
  const detection = detectBackend(cacheDir);
  const cache = detection.backend === 'json' ? new JsonCache(cacheDir) : new PogrebCache(cacheDir);
  return Object.assign(cache, { detection });
}

/** One bundle of the cache: its place and its protobuf `api.Bundle`. */
export interface CacheBundle {
  packageName: string;
  channelName: string;
  bundleName: string;
  /** `encodeBundle`'s output (api-contract/messages.ts). */
  bundle: Uint8Array;
}

/** What a pogreb cache holds, with what its digest is computed from. */
export interface CacheContent {
  packageIndex: PackageIndex;
  bundles: Iterable<CacheBundle>;
  /**
   * Every blob of the catalog in walk order (walkMetaBlobs), or what prepareBlobs made of them. The
   * custom-schema blobs among them become the `metas/` keys, and all of them start the digest.
   */
  blobs: Iterable<MetaBlob> | AsyncIterable<MetaBlob> | PreparedBlobs;
}

/**
 * Every blob of a catalog directory in walk order (walkMetaBlobs), with the SHA-256 sums of the
 * files' bytes as they were parsed: a build from these blobs also writes the cache's fingerprint
 * (fingerprint.ts). Iterate once.
 */
export class CatalogBlobs implements AsyncIterable<MetaBlob> {
  private readonly dir: string;
  private readonly signal: AbortSignal | undefined;
  private readonly sums: CatalogFileSum[] = [];
  private partial = false;
  private done = false;
  constructor(catalogDir: string, signal?: AbortSignal) {
    this.dir = catalogDir;
    this.signal = signal;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<MetaBlob> {
    const onFile = (f: { rel: string }, bytes: Uint8Array | undefined): void => {
      if (bytes === undefined) this.partial = true;
      else this.sums.push({ path: f.rel, size: bytes.length, sha256: sha256Hex(bytes) });
    };
    yield* walkMetaBlobs(this.dir, { ...(this.signal === undefined ? {} : { signal: this.signal }), onFile });
    this.done = true;
  }

  /**
   * The files' sums once every blob was read; undefined before, or when a file was read in parts
   * (its bytes are not held at once, and no fingerprint is written).
   */
  fileSums(): readonly CatalogFileSum[] | undefined {
    return this.done && !this.partial ? this.sums : undefined;
  }
}

/**
 * The catalog's blobs as a build needs them, walked once: the digest fed with them (its first
 * part), and the custom-schema records by key. Made before the catalog is loaded for its bundles,
 * a build does not hold the loaded catalog and a second parse of it at once (the peak of
 * `--cache-only`).
 */
export class PreparedBlobs {
  readonly hash: Fnv1a64;
  readonly metas: ReadonlyMap<string, readonly Uint8Array[]>;
  /** The catalog files' sums, when the blobs came from CatalogBlobs (for the fingerprint). */
  readonly fileSums: readonly CatalogFileSum[] | undefined;
  constructor(
    hash: Fnv1a64,
    metas: ReadonlyMap<string, readonly Uint8Array[]>,
    fileSums?: readonly CatalogFileSum[],
  ) {
    this.hash = hash;
    this.metas = metas;
    this.fileSums = fileSums;
  }
}

const BUILTIN_SCHEMAS = new Set([SCHEMA_PACKAGE, SCHEMA_CHANNEL, SCHEMA_BUNDLE, SCHEMA_DEPRECATIONS]);

/**
 * Walk the catalog's blobs for a build (PreparedBlobs): each hashed as it comes and not kept,
 * custom-schema blobs encoded as the `metas/` records. A custom schema that cannot be a key fails
 * with opm's text (`invalid custom schema meta: …`).
 */
export async function prepareBlobs(
  blobs: Iterable<MetaBlob> | AsyncIterable<MetaBlob>,
  signal?: AbortSignal,
): Promise<PreparedBlobs> {
  const hash = new Fnv1a64();
  const metas = new Map<string, Uint8Array[]>();
  for await (const blob of blobs) {
    if (signal?.aborted === true) throw signal.reason;
    hash.update(blob.bytes);
    const { schema, package: pkg } = metaFields(blob.value);
    if (BUILTIN_SCHEMAS.has(schema)) continue;
    const problem = metaKeyProblem(schema, pkg);
    if (problem !== undefined) throw new ServeCacheError(`invalid custom schema meta: ${problem}`);
    const key = `metas/${schema}/${pkg}`;
    const st = encodeStruct(blob.value);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(st.length, 0);
    const list = metas.get(key) ?? [];
    list.push(len, st);
    metas.set(key, list);
  }
  return new PreparedBlobs(hash, metas, blobs instanceof CatalogBlobs ? blobs.fileSums() : undefined);
}

export interface WriteCacheOptions {
  /** The pogreb hash seed (default: the low 32 bits of the FNV-1a 64 of the catalog's blobs). */
  hashSeed?: number;
  signal?: AbortSignal;
}

/**
 * Build a pogreb cache in `cacheDir` from `content`, as opm's `serve --cache-only` leaves it: the
 * blobs checked and hashed, the `pogreb.v1/` directory emptied, the database written, the digest
 * last (so a build cut short leaves no digest, and the cache is rebuilt or refused rather than
 * trusted), then opm-ts's fingerprint when the blobs came from catalogBlobs. Returns the
 * digest. A custom-schema blob whose schema or package cannot be a key fails the build with opm's
 * text (`invalid custom schema meta: …`).
 */
export async function writePogrebCache(
  cacheDir: string,
  content: CacheContent,
  options: WriteCacheOptions = {},
): Promise<string> {
  // The blobs first: a custom schema that cannot be a key fails the build before anything is
  // written.
  const prepared =
    content.blobs instanceof PreparedBlobs
      ? content.blobs
      : await prepareBlobs(content.blobs, options.signal);
  const { metas } = prepared;
  const hash = prepared.hash.copy();
  const base = path.join(cacheDir, POGREB_DIR);
  mkdirSync(base, { recursive: true, mode: 0o755 });
  for (const name of readdirSync(base)) rmSync(path.join(base, name), { recursive: true, force: true });
  const dbDir = path.join(cacheDir, POGREB_DB);
  // Records go to the segment as they come: a catalog's bundles are not all held in memory.
  // pogreb takes a random seed; one taken from the catalog's blobs makes the same catalog give the
  // same bytes (image layers that do not change when the catalog does not). The seed only spreads
  // keys over buckets, so any value serves readers.
  const hashSeed = options.hashSeed ?? Number.parseInt(hash.hex().slice(8), 16);
  const db = new PogrebWriter(dbDir, { hashSeed });
  try {
    db.put(te.encode('packages.json'), encodePackageIndex(content.packageIndex));
    for (const b of content.bundles) {
      if (options.signal?.aborted === true) throw options.signal.reason;
      db.put(bundleKey(b.packageName, b.channelName, b.bundleName), b.bundle);
    }
    for (const [k, parts] of metas) db.put(te.encode(k), Buffer.concat(parts as Uint8Array[]));
  } finally {
    db.close();
  }
  // The rest of the digest from what was written, read back as a check reads it.
  const reader = PogrebReader.open(dbDir);
  let digest;
  try {
    digest = await pogrebDigest([], reader.entryViews(), hash);
  } finally {
    reader.close();
  }
  const digestFile = path.join(cacheDir, POGREB_DIGEST);
  writeFileSync(digestFile, digest, { mode: FILE_MODE });
  chmodSync(digestFile, FILE_MODE);
  // After the digest: a build cut short before it leaves no fingerprint, and the full check decides.
  if (prepared.fileSums !== undefined) writeFingerprint(base, digest, prepared.fileSums);
  return digest;
}

/** A bundle's place in the cache. */
export interface BundlePlace {
  packageName: string;
  channelName: string;
  bundleName: string;
}

/**
 * Every (package, channel, bundle) of an index in the order opm's ListBundles streams them: by
 * channel name, then package name, then bundle name, each in byte order.
 */
export function bundlesInListOrder(index: PackageIndex): BundlePlace[] {
  const out: BundlePlace[] = [];
  for (const p of index.values())
    for (const c of p.channels.values())
      for (const b of c.bundles.values())
        out.push({ packageName: p.name, channelName: c.name, bundleName: b.name });
  return out.sort(
    (a, b) =>
      compareUtf8(a.channelName, b.channelName) ||
      compareUtf8(a.packageName, b.packageName) ||
      compareUtf8(a.bundleName, b.bundleName),
  );
}

/** Every blob of a catalog directory, for CacheContent.blobs (with the files' sums, CatalogBlobs). */
export function catalogBlobs(catalogDir: string, signal?: AbortSignal): CatalogBlobs {
  return new CatalogBlobs(catalogDir, signal);
}
