/**
 * An image's layers, from the blob store, applied in order into a folder. Shared by everything that
 * turns a pulled image into files.
 */
import { createReadStream } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { OpmError } from '../../errors.js';
import { digestMismatch, type BlobStore } from '../blob-cache.js';
import { hasherFor, parseDigest } from '../digest.js';
import type { Descriptor } from '../manifest.js';
import { DEFAULT_LIMITS, Unpacker } from '../unpack.js';

/** Layers up to this size are read whole and unpacked without stream plumbing. */
const IN_MEMORY_LAYER = 16 * 1024 * 1024;

export interface UnpackImageOptions {
  /** Most bytes the image may unpack to; default 8 GiB. */
  maxBytes?: number;
  /** Stops the unpacking between entries; what was written is left to the caller to remove. */
  signal?: AbortSignal | undefined;
}

/** A cached layer no longer matched its digest and was removed from the cache. */
export class DamagedCacheBlob extends OpmError {
  readonly digest: string;
  constructor(digest: string, cause: OpmError) {
    super(cause.message, { code: cause.code, cause });
    this.digest = digest;
  }
}

/**
 * Apply `layers` (all in `store`) into `root`, then check that no symlink leads out of it. Returns
 * the archived modes of the files and folders by path (Unpacker.modes).
 */
export async function unpackImage(
  root: string,
  what: string,
  store: BlobStore,
  layers: Descriptor[],
  o: UnpackImageOptions = {},
): Promise<ReadonlyMap<string, number>> {
  const unpacker = new Unpacker(
    root,
    what,
    { ...DEFAULT_LIMITS, ...(o.maxBytes !== undefined ? { maxBytes: o.maxBytes } : {}) },
    o.signal,
  );
  for (const layer of layers) await applyStoredLayer(unpacker, store, layer, o.signal);
  unpacker.finish();
  return unpacker.modes;
}

/**
 * Unpack a layer from the store without hashing it again. Blobs enter the store only through an
 * atomic rename after their digest and size were checked, the store is private to the user and its
 * files are read-only, and `lookup` checked the size; hashing every cached layer on every run would
 * cost as much as a third of a warm render of a large catalog. Damage that still gets in (a disk
 * error, someone editing the cache) breaks the gzip or zstd checksums or the tar structure, so when
 * unpacking fails for such a reason the blob is hashed then, and dropped from the cache if it no
 * longer matches, so the next run downloads it again. Damage inside an uncompressed layer that
 * keeps the tar structure intact is not detected; such layers are rare in bundle and catalog images.
 */
async function applyStoredLayer(
  unpacker: Unpacker,
  store: BlobStore,
  d: Descriptor,
  signal: AbortSignal | undefined,
): Promise<void> {
  const file = store.pathOf(d.digest);
  const stop = signal !== undefined ? { signal } : {};
  try {
    if (d.size <= IN_MEMORY_LAYER) await unpacker.applyLayerBytes(await readFile(file, stop));
    else await unpacker.applyLayer(createReadStream(file, stop));
  } catch (err) {
    if (signal?.aborted === true) throw signal.reason;
    // Unsafe entries and size limits are about the image's content, which decoded fine.
    if (err instanceof OpmError && (err.code === 'E_UNSAFE_LAYER' || err.code === 'E_UNPACK_LIMIT'))
      throw err;
    const got = await hashFile(file, d.digest).catch(() => undefined);
    if (got !== undefined && got !== d.digest) {
      await rm(file, { force: true });
      throw new DamagedCacheBlob(d.digest, digestMismatch(`cached layer ${d.digest}`, d.digest, got));
    }
    throw err;
  }
}

async function hashFile(file: string, digest: string): Promise<string> {
  const hash = hasherFor(digest);
  for await (const chunk of createReadStream(file))
    hash.update(Buffer.isBuffer(chunk) ? chunk : String(chunk));
  return `${parseDigest(digest).algorithm}:${hash.digest('hex')}`;
}
