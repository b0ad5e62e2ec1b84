/**
 * The unit of work of rendering a catalog directory file by file (render-output.ts): one file
 * loaded, its bundles put in render's order, and each blob encoded in the output format. What comes
 * back is the file's bytes and, per blob, what its place in the output depends on: a worker thread
 * hands over a buffer (moved, not copied) instead of objects to be cloned and encoded again, and the
 * calling thread keeps bytes instead of a catalog's worth of objects.
 */
import { loadFileBlobs } from '../../declcfg/load-file.js';
import { NON_ASCII, type ByteChars } from '../../declcfg/byte-chars.js';
import type { WalkedFile } from '../../declcfg/load-walk.js';
import { appendBlobJson, blobYaml, placeOf, type BlobPlace } from '../../declcfg/write.js';
import type { Finding } from '../../findings.js';
import { JsonBytesOut } from '../../go/json-bytes-out.js';
import { appendSpill, type Spill } from '../../util/spill.js';
import { putInRenderOrder } from './render-bundle-order.js';

export type RenderFormat = 'json' | 'yaml';

/** What every file of a render is encoded with: the format, and the spill file its bytes go to, if any. */
export interface EncodeWork {
  format: RenderFormat;
  spill?: Spill;
  /**
   * false: a JSON file is read as text, never one character per byte, its blobs checked as they are
   * read (see encodeCatalogFile).
   */
  byteChars?: false;
}

/** A blob of an encoded file: its place in the output, and where its bytes end in the file's. */
export type EncodedBlob = BlobPlace & { end: number };

/**
 * One catalog file rendered: its blobs' bytes one after another, in the loader's order, in memory
 * (`bytes`) or in the render's spill file from `spilledAt` on.
 */
export interface EncodedFile {
  bytes?: Uint8Array;
  spilledAt?: number;
  blobs: EncodedBlob[];
  /** What the load had to say of the file, all warnings (an error ends the work), in file order. */
  warnings: Finding[];
}

/**
 * Thrown for a file the load found an error in: the catalog is then rendered the ordinary way, which
 * reports it exactly as it always does.
 */
export class FileHasErrors extends Error {}

/**
 * An output buffer of this thread, reused from file to file (a file's bytes are copied out of it);
 * taken while a file is encoded, so that two renders running at once never share it. One that grew
 * past KEPT_SCRATCH_BYTES (a very large file) is not kept for the life of the thread.
 */
let idleScratch: JsonBytesOut | undefined;
const KEPT_SCRATCH_BYTES = 16 * 1024 * 1024;

/**
 * `s` in memory of its own, one copy per distinct name (`copies`). A name the YAML reader cut out of
 * a file's text shares that text (V8 slices strings), and the places of every blob are kept until
 * the output is put in order: without copies, they would keep every file's whole text alive. With
 * `byteChars`, `s` holds UTF-8 bytes as characters (a file read one character per byte), and the
 * copy is its text.
 */
function ownCopy(s: string, copies: Map<string, string>, byteChars: boolean): string {
  let c = copies.get(s);
  if (c === undefined) {
    // Keyed by a copy too: `s` as a key would keep the text it was cut from alive through young
    // collections, which then promote it (a higher peak on YAML catalogs, docs/performance.md).
    const own = JSON.parse(JSON.stringify(s)) as string;
    c = byteChars && NON_ASCII.test(s) ? Buffer.from(s, 'latin1').toString('utf8') : own;
    copies.set(own, c);
  }
  return c;
}

/**
 * Load and encode one file, each blob as soon as it is read (loadFileBlobs). Throws FileHasErrors
 * when the load finds an error, and whatever encoding a blob throws; either ends the work of every
 * thread (load-pool.ts).
 */
export async function encodeCatalogFile(f: WalkedFile, work: EncodeWork): Promise<EncodedFile> {
  const format = work.format;
  const out = idleScratch ?? new JsonBytesOut();
  idleScratch = undefined;
  out.truncate(0);
  const blobs: EncodedBlob[] = [];
  const findings: Finding[] = [];
  const copies = new Map<string, string>();
  // JSON output of a JSON file: beyond ASCII, read one character per byte when that gives the same
  // output (ByteChars of declcfg/parse.ts), written back byte for byte; each blob's checks left to
  // the comparison of its output with its bytes (UncheckedBlob).
  const byteChars: ByteChars | undefined =
    format === 'json' && work.byteChars !== false ? { used: false, deferChecks: true } : undefined;
  // A blob whose output is not its bytes failed its checks, or an encoding threw: the file is read
  // again with every check at its place, which reports as the usual reading does.
  let again = false;
  try {
    await loadFileBlobs(f, { byteChars }, findings, (blob, unchecked) => {
      if (blob.kind === 'bundle') putInRenderOrder(blob.value);
      const asBytes = byteChars?.used === true;
      const start = blobs.at(-1)?.end ?? 0;
      if (format === 'json') {
        out.byteChars = asBytes;
        appendBlobJson(out, blob);
      } else out.text(blobYaml(blob));
      const end = out.mark();
      if (
        unchecked !== undefined &&
        !out.sameBytes(start, end - 1, unchecked.bytes, unchecked.from, unchecked.to) &&
        !unchecked.check()
      )
        again = true;
      const place = placeOf(blob);
      // Without its location: the order needs none, and its line is not counted with the checks.
      blobs.push({
        kind: place.kind,
        package: ownCopy(place.package, copies, asBytes),
        name: ownCopy(place.name, copies, asBytes),
        schema: ownCopy(place.schema, copies, asBytes),
        end,
      });
    });
  } catch (err) {
    if (byteChars?.used !== true && byteChars?.deferred !== true) throw err;
    again = true;
  } finally {
    out.byteChars = false;
  }
  // Anything the load has to say of a file read so is said with lines (left uncounted with the
  // checks), and of its text (not of its bytes as characters); an error may be one of a check left
  // to the output. Other files (YAML) were read as usual.
  const unusual = byteChars !== undefined && (byteChars.used || byteChars.deferred === true);
  if (unusual && (again || findings.length > 0)) {
    if (out.capacity <= KEPT_SCRATCH_BYTES) idleScratch = out;
    return encodeCatalogFile(f, { ...work, byteChars: false });
  }
  if (findings.some((x) => x.severity === 'error')) {
    throw new FileHasErrors(`${f.rel} has errors: rendered the ordinary way`);
  }
  const taken = out.take();
  const spilledAt = work.spill === undefined ? undefined : spillBytes(work.spill, taken);
  // Else a buffer of its own, so that it can be moved to another thread.
  const bytes = spilledAt === undefined ? new Uint8Array(taken) : undefined;
  if (out.capacity <= KEPT_SCRATCH_BYTES) idleScratch = out;
  return bytes === undefined
    ? { spilledAt, blobs, warnings: findings }
    : { bytes, blobs, warnings: findings };
}

/** Where `bytes` went in the spill file, or undefined when they could not be written there (a full disk). */
function spillBytes(spill: Spill, bytes: Uint8Array): number | undefined {
  try {
    return appendSpill(spill, bytes);
  } catch {
    return undefined;
  }
}
