/**
 * The catalog as catalogd stores it for its HTTP API: every blob as one line of JSON (the text opm's
 * declcfg.Meta keeps for it, so the lines are those of catalogd's `catalog.jsonl`), in the order the
 * catalog's files are walked, written once to a file; and an index of where each blob sits, by
 * schema, package and name, for `/api/v1/metas` queries.
 *
 * The lines live in a file rather than in memory: a catalog's JSON is as large as the catalog (a
 * gigabyte for the largest ones), while the index holds two numbers per blob and the names.
 */
import { open, stat, type FileHandle } from 'node:fs/promises';
import { metaFields, type MetaFields } from '../declcfg/meta.js';

/** One blob as the walk hands it on: its line (with the newline) and its decoded value. */
export interface CatalogBlob {
  bytes: Uint8Array;
  value: Readonly<Record<string, unknown>>;
}

/** A run of bytes of the lines file. */
export interface Section {
  offset: number;
  length: number;
}

/** What `/api/v1/metas` filters by; an empty string is no filter (catalogd's rule). */
export type MetaQuery = MetaFields;

/** Blob ids in ascending order, grouped by one field's value. */
type Postings = Map<string, number[]>;

function post(map: Postings, key: string, id: number): void {
  if (key === '') return;
  const list = map.get(key);
  if (list === undefined) map.set(key, [id]);
  else list.push(id);
}

/** The ids present in both ascending lists, ascending. */
function intersect(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x === y) {
      out.push(x);
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return out;
}

/** Grow-as-you-go list of numbers kept in a typed array (two per blob, for millions of blobs). */
class NumberList {
  private data = new Float64Array(1024);
  length = 0;

  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }

  at(i: number): number {
    return this.data[i]!;
  }
}

/** Where each blob starts, and one entry more: where the file ends. */
export interface Offsets {
  readonly length: number;
  at(i: number): number;
}

/** The written lines file and its index. */
export class CatalogLines {
  readonly file: string;
  /** Bytes in the file. */
  readonly size: number;
  /** When the file was written: the Last-Modified of every answer. */
  readonly modified: Date;
  private readonly offsets: Offsets;
  private readonly withSchema: readonly number[];
  private readonly bySchema: Postings;
  private readonly byPackage: Postings;
  private readonly byName: Postings;

  constructor(parts: {
    file: string;
    size: number;
    modified: Date;
    offsets: Offsets;
    withSchema: number[];
    bySchema: Postings;
    byPackage: Postings;
    byName: Postings;
  }) {
    this.file = parts.file;
    this.size = parts.size;
    this.modified = parts.modified;
    this.offsets = parts.offsets;
    this.withSchema = parts.withSchema;
    this.bySchema = parts.bySchema;
    this.byPackage = parts.byPackage;
    this.byName = parts.byName;
  }

  /** How many blobs the catalog holds. */
  get blobs(): number {
    return this.offsets.length - 1;
  }

  /**
   * The blobs matching every non-empty field of `q`, in file order, as sections of the file (adjacent
   * blobs joined into one section). With `schema` empty only blobs that have a schema can match, as in
   * catalogd's index; callers answer a query with no field at all with the whole file instead.
   */
  sections(q: MetaQuery): Section[] {
    let ids: readonly number[] = q.schema === '' ? this.withSchema : (this.bySchema.get(q.schema) ?? []);
    if (q.package !== '') ids = intersect(ids, this.byPackage.get(q.package) ?? []);
    if (q.name !== '') ids = intersect(ids, this.byName.get(q.name) ?? []);
    const out: Section[] = [];
    for (const id of ids) {
      const offset = this.offsets.at(id);
      const length = this.offsets.at(id + 1) - offset;
      const last = out[out.length - 1];
      if (last !== undefined && last.offset + last.length === offset) last.length += length;
      else out.push({ offset, length });
    }
    return out;
  }
}

/** Write the lines of `blobs` to `file` (created, not there before) and index them. */
export async function writeCatalogLines(
  blobs: AsyncIterable<CatalogBlob> | Iterable<CatalogBlob>,
  file: string,
  signal?: AbortSignal,
): Promise<CatalogLines> {
  const offsets = new NumberList();
  const withSchema: number[] = [];
  const bySchema: Postings = new Map();
  const byPackage: Postings = new Map();
  const byName: Postings = new Map();
  const handle: FileHandle = await open(file, 'wx', 0o600);
  let size = 0;
  try {
    // Lines are gathered into writes of about a megabyte: one write per blob would cost a system
    // call each for catalogs of many small blobs.
    let pending: Uint8Array[] = [];
    let pendingBytes = 0;
    const flush = async (): Promise<void> => {
      if (pendingBytes === 0) return;
      const chunk = Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      await handle.write(chunk);
    };
    let id = 0;
    for await (const blob of blobs) {
      signal?.throwIfAborted();
      offsets.push(size);
      const meta = metaFields(blob.value);
      if (meta.schema !== '') withSchema.push(id);
      post(bySchema, meta.schema, id);
      post(byPackage, meta.package, id);
      post(byName, meta.name, id);
      size += blob.bytes.length;
      pending.push(blob.bytes);
      pendingBytes += blob.bytes.length;
      if (pendingBytes >= 1 << 20) await flush();
      id++;
    }
    offsets.push(size);
    await flush();
  } finally {
    await handle.close();
  }
  const st = await stat(file);
  return new CatalogLines({
    file,
    size,
    modified: st.mtime,
    offsets,
    withSchema,
    bySchema,
    byPackage,
    byName,
  });
}
