/**
 * The unit of work of rendering a catalog directory file by file (render-output.ts): one file
 * loaded, its bundles put in render's order, and each blob encoded in the output format. What comes
 * back is the file's bytes and, per blob, what its place in the output depends on: a worker thread
 * hands over a buffer (moved, not copied) instead of objects to be cloned and encoded again, and the
 * calling thread keeps bytes instead of a catalog's worth of objects.
 */
import { loadFileBlobs } from '../declcfg/load-file.js';
import type { WalkedFile } from '../declcfg/load-walk.js';
import { appendBlobJson, blobYaml, placeOf, type BlobPlace } from '../declcfg/write.js';
import type { Finding } from '../findings.js';
import { JsonBytesOut } from '../go/json.js';
import { putInRenderOrder } from './render-bundle-order.js';

export type RenderFormat = 'json' | 'yaml';

/** A blob of an encoded file: its place in the output, and where its bytes end in the file's. */
export type EncodedBlob = BlobPlace & { end: number };

/** One catalog file rendered: its blobs' bytes one after another, in the loader's order. */
export interface EncodedFile {
  bytes: Uint8Array;
  blobs: EncodedBlob[];
  /** What the load had to say of the file, all warnings (an error ends the work), in file order. */
  warnings: Finding[];
}

/** Output of this thread, reused from file to file (a file's bytes are copied out of it). */
let scratch: JsonBytesOut | undefined;

/**
 * Load and encode one file, each blob as soon as it is read (loadFileBlobs). Throws when the load
 * finds an error or a blob does not encode, which ends the work of every thread (load-pool.ts): the
 * caller then renders the whole catalog the ordinary way, which reports it exactly as it always does.
 */
export async function encodeCatalogFile(f: WalkedFile, format: RenderFormat): Promise<EncodedFile> {
  const out = (scratch ??= new JsonBytesOut());
  out.truncate(0);
  const blobs: EncodedBlob[] = [];
  const findings: Finding[] = [];
  await loadFileBlobs(f, {}, findings, (blob) => {
    if (blob.kind === 'bundle') putInRenderOrder(blob.value);
    if (format === 'json') appendBlobJson(out, blob);
    else out.text(blobYaml(blob));
    blobs.push({ ...placeOf(blob), end: out.mark() });
  });
  if (findings.some((x) => x.severity === 'error')) {
    throw new Error(`${f.rel} has errors: rendered the ordinary way`);
  }
  // A buffer of its own, so that it can be moved to another thread.
  const taken = out.take();
  const bytes = new Uint8Array(taken.length);
  bytes.set(taken);
  return { bytes, blobs, warnings: findings };
}
