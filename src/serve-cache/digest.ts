/**
 * opm's cache digest (operator-registry `pkg/cache`): FNV-1a 64 over the catalog's blobs and then
 * over the cache's own content, written as 16 lowercase hex digits.
 *
 * The blobs are what opm's WalkMetasFS hands on, one at a time: the files of the catalog in walk
 * order (`.indexignore` honoured), the blobs of each file in file order, each blob as the JSON
 * text opm's Meta keeps for it: the blob decoded into a Go map and encoded again, keys sorted,
 * numbers as float64, no HTML escaping, a newline at the end. For YAML that is the JSON of each
 * document. So comments, layout and key order of the files do not count; values do.
 */
import { compareBytes } from './bytes.js';
import { Fnv1a64 } from './hash.js';
import { OpmError } from '../errors.js';
import { marshal } from '../go/json-encode.js';
import type { JsonObject } from '../go/json-value.js';
import { walkCatalog } from '../declcfg/load.js';
import { maxBlobBytes, readFileParts, readsInParts } from '../declcfg/load-large.js';
import { parseCatalogBytes, type ParsedText } from '../declcfg/parse.js';
import { readWhole } from '../declcfg/read-whole.js';
import { throwIfAborted } from '../util/abort.js';

/** The text opm's declcfg.Meta keeps as `Blob` for a blob of this value. */
export function metaBlobText(value: JsonObject): string {
  return marshal(value, false) + '\n';
}

export interface MetaBlob {
  /** The catalog file, relative to the catalog root. */
  file: string;
  line: number;
  value: JsonObject;
  /** metaBlobText(value) as UTF-8. */
  bytes: Uint8Array;
}

/**
 * Every blob of a catalog directory in opm's walk order. A file that cannot be read or parsed
 * fails the walk with one line naming it (opm fails there too, in its own words).
 */
export async function* walkMetaBlobs(
  catalogDir: string,
  options: { signal?: AbortSignal; maxBlobBytes?: number } = {},
): AsyncGenerator<MetaBlob> {
  const { signal } = options;
  const walk = await walkCatalog(catalogDir, signal);
  const problem = walk.problems[0];
  if (problem !== undefined) throw new OpmError(problem.message, { at: { file: problem.file } });
  const maxBlob = options.maxBlobBytes ?? maxBlobBytes();
  for (const f of walk.files) {
    throwIfAborted(signal);
    const parts:
      AsyncIterable<{ bytes: Uint8Array; firstLine: number }> | { bytes: Uint8Array; firstLine: number }[] =
      readsInParts(f.size, maxBlob)
        ? readFileParts(f.abs, maxBlob)
        : [{ bytes: readWhole(f.abs, f.size), firstLine: 1 }];
    for await (const part of parts) {
      const parsed: ParsedText = parseCatalogBytes(part.bytes, part.firstLine);
      const error = parsed.issues.find((i) => i.severity === 'error');
      if (error !== undefined) throw new OpmError(error.message, { at: { file: f.rel, line: error.line } });
      for (const b of parsed.blobs) {
        yield {
          file: f.rel,
          line: b.line,
          value: b.value,
          bytes: Buffer.from(metaBlobText(b.value), 'utf8'),
        };
      }
    }
  }
}

/** What the digest covers besides the catalog: the cache's keys with their values. */
export type KeyValues = Iterable<readonly [Uint8Array, Uint8Array]>;

/**
 * The pogreb backend's digest: the blobs (`blobs`, or those of `catalogDir` walked here), then
 * every key of the database in byte order, each followed by its value. `entries` must already be
 * in byte order of keys (PogrebReader.entries is); sortEntries sorts a list that is not. `h` may
 * have been fed already (blobs hashed as they were read).
 */
export async function pogrebDigest(
  blobs: Iterable<Uint8Array> | AsyncIterable<Uint8Array>,
  entries: KeyValues,
  h: Fnv1a64 = new Fnv1a64(),
): Promise<string> {
  for await (const b of blobs) h.update(b);
  for (const [k, v] of entries) {
    h.update(k);
    h.update(v);
  }
  return h.hex();
}

/** The blob bytes of a catalog directory, in walk order. */
export async function* catalogBlobBytes(
  catalogDir: string,
  signal?: AbortSignal,
): AsyncGenerator<Uint8Array> {
  for await (const b of walkMetaBlobs(catalogDir, signal === undefined ? {} : { signal })) yield b.bytes;
}

/** Entries sorted by key bytes, as the digest takes them. */
export function sortEntries<T extends readonly [Uint8Array, Uint8Array]>(entries: Iterable<T>): T[] {
  return [...entries].sort((a, b) => compareBytes(a[0], b[0]));
}
