/**
 * Payloads left on disk (LoadOptions.deferPayloads). The olm.bundle.object payloads are nearly all of
 * a large catalog's size and output only copies them, so a large catalog can be loaded without them
 * and sorted for output, and the writers read them back, a file at a time, as each bundle's turn
 * comes. A file is parsed again when its first deferred bundle is written, and its payloads are let
 * go once the last one is; opm's output groups bundles by package, and packages usually have files
 * of their own, so few files are held at once.
 */
import { isAscii } from 'node:buffer';
import path from 'node:path';
import { InternalError, OpmError, wrapError } from '../errors.js';
import { TYPE_BUNDLE_OBJECT } from '../property/property.js';
import type { Property } from '../property/types.js';
import { decodeBlob } from './decode.js';
import { readsInParts } from './load-large.js';
import type { WalkedFile } from './load-walk.js';
import { parseCatalogBytes, parseCatalogText } from './parse.js';
import { readWhole } from './read-whole.js';
import type { Bundle, DeferredPayloads } from './types.js';

/** Catalogs at least this large (all files together) have their payloads deferred when asked. */
export const DEFER_PAYLOADS_BYTES = 128 * 1024 * 1024;

/** Whether a catalog of these files is loaded without its payloads, for `deferPayloads`. */
export function defersPayloads(
  files: readonly WalkedFile[],
  defer: boolean | { minBytes: number } | undefined,
  maxBlob: number,
): boolean {
  if (defer === undefined || defer === false) return false;
  const minBytes = defer === true ? DEFER_PAYLOADS_BYTES : defer.minBytes;
  let total = 0;
  for (const f of files) {
    // The loader reads larger files in parts; reading them back whole is not worth the risk.
    if (readsInParts(f.size, maxBlob)) return false;
    total += f.size;
  }
  return total >= minBytes;
}

/** A bundle read back: who it is (to check the file still holds it) and its payloads in file order. */
interface Reread {
  name: string;
  package: string;
  objects: Property[];
}

/** The deferred payloads of catalogs loaded from disk, read back from their files. */
export class FilePayloads implements DeferredPayloads {
  /** Catalog file (absolute) of each bundle whose payloads were left out. */
  private readonly fileOf = new Map<Bundle, string>();
  /**
   * Per file, per line where a deferred bundle starts, how many bundles still wait for it: the
   * same directory loaded twice holds the same blobs twice, and both share one reading.
   */
  private readonly waiting = new Map<string, Map<number, number>>();
  /** Per file read back, its waited-for bundles, by line. */
  private readonly restored = new Map<string, Map<number, Reread>>();

  /** The payloads of `bundles` (loaded from the catalog at `dir` with payloads elided), or undefined if none was. */
  static track(dir: string, bundles: readonly Bundle[]): FilePayloads | undefined {
    const out = new FilePayloads();
    for (const b of bundles) {
      // Bundles without a package are left out of the output, so they are never read back.
      if (b.payloadsElided !== true || b.loc === undefined || b.package === '') continue;
      const file = path.join(dir, b.loc.file);
      out.fileOf.set(b, file);
      out.wait(file, b.loc.line, 1);
    }
    return out.fileOf.size === 0 ? undefined : out;
  }

  private wait(file: string, line: number, count: number): void {
    let lines = this.waiting.get(file);
    if (lines === undefined) {
      lines = new Map();
      this.waiting.set(file, lines);
    }
    lines.set(line, (lines.get(line) ?? 0) + count);
  }

  /** Both as one, before either restored anything: a file loaded by both is read back once. */
  merge(other: DeferredPayloads): DeferredPayloads {
    // The only kind there is; the interface keeps types.ts free of this module.
    if (!(other instanceof FilePayloads)) throw new InternalError('deferred payloads of an unknown kind');
    const out = new FilePayloads();
    for (const from of [this, other]) {
      for (const [b, file] of from.fileOf) out.fileOf.set(b, file);
      for (const [file, lines] of from.waiting) {
        for (const [line, count] of lines) out.wait(file, line, count);
      }
    }
    return out;
  }

  /**
   * `b` with its payloads back, or `b` itself when nothing of it was deferred. The payloads take the
   * places of the emptied olm.bundle.object properties in `b` as it is now (render moves them last).
   * Throws when the file no longer holds the bundle.
   */
  restore(b: Bundle): Bundle {
    const file = this.fileOf.get(b);
    const line = b.loc?.line;
    if (file === undefined || line === undefined) return b;
    this.fileOf.delete(b);
    let bundles = this.restored.get(file);
    if (bundles === undefined) {
      bundles = this.reread(file);
      this.restored.set(file, bundles);
    }
    const full = bundles.get(line);
    const props = b.properties ?? [];
    const emptied = props.filter((p) => p.type === TYPE_BUNDLE_OBJECT).length;
    if (
      full === undefined ||
      full.name !== b.name ||
      full.package !== b.package ||
      full.objects.length !== emptied
    ) {
      throw new OpmError(
        `catalog file "${file}" changed while rendering: bundle "${b.name}" is no longer at line ${line}`,
      );
    }
    const lines = this.waiting.get(file);
    const left = (lines?.get(line) ?? 1) - 1;
    if (left > 0) lines?.set(line, left);
    else {
      lines?.delete(line);
      bundles.delete(line);
    }
    if (lines === undefined || lines.size === 0) {
      this.waiting.delete(file);
      this.restored.delete(file);
    }
    const out: Bundle = { ...b };
    delete out.payloadsElided;
    let next = 0;
    out.properties = props.map((p) => (p.type === TYPE_BUNDLE_OBJECT ? (full.objects[next++] ?? p) : p));
    return out;
  }

  private reread(file: string): Map<number, Reread> {
    const lines = this.waiting.get(file);
    const out = new Map<number, Reread>();
    let bytes: Buffer;
    try {
      bytes = readWhole(file);
    } catch (err) {
      throw wrapError(`catalog file "${file}" cannot be read again while rendering`, err);
    }
    // The loader has checked the file's encoding; ASCII text (the usual) is taken as it is.
    const parsed = isAscii(bytes) ? parseCatalogText(bytes.toString('latin1')) : parseCatalogBytes(bytes);
    for (const raw of parsed.blobs) {
      if (lines?.has(raw.line) !== true) continue;
      const decoded = decodeBlob(raw.value).blob;
      if (decoded?.kind !== 'bundle') continue;
      const b = decoded.value;
      const objects = (b.properties ?? []).filter((p) => p.type === TYPE_BUNDLE_OBJECT);
      out.set(raw.line, { name: b.name, package: b.package, objects });
    }
    return out;
  }
}
