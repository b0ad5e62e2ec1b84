/**
 * A read-only reader of the SQLite 3 database file format (https://www.sqlite.org/fileformat2.html):
 * the header, table b-trees walked in rowid order, overflow chains and records. A file of up to
 * 512 MiB is read whole; a larger one page by page with positional reads, so that memory holds the
 * rows asked for, not the file. Nothing is ever
 * written: the file is opened read-only, and a database another process is writing (a rollback
 * journal beside it) or keeps in a write-ahead log is refused rather than read half-way.
 */
import { closeSync, fstatSync, openSync, readSync, existsSync, statSync } from 'node:fs';
import { OpmError } from '../errors.js';

const MAGIC = 'SQLite format 3\0';

/** One column value as SQLite stores it. */
export type SqlValue = null | number | bigint | string | Uint8Array;

/** A row of a table: its rowid and its record's values (fewer than the columns after ADD COLUMN). */
export interface RawRow {
  rowid: bigint;
  values: SqlValue[];
}

/** Where a row's cell is in the file (scanRefs), to read the row later (rowAt). */
export interface CellRef {
  page: number;
  offset: number;
}

/** The file is not a database this reader can trust: the message says what, the caller says where. */
export class SqliteFormatError extends OpmError {
  constructor(message: string) {
    super(message);
    this.name = 'SqliteFormatError';
  }
}

function corrupt(what: string): SqliteFormatError {
  return new SqliteFormatError(`database disk image is malformed (${what})`);
}

const utf8 = new TextDecoder('utf-8');

/**
 * Files up to this size are read in one go: one allocation instead of one per page, which the
 * garbage collector would otherwise spend its time on. Larger ones are read page by page.
 */
const WHOLE_FILE_MAX = 512 * 1024 * 1024;

export class SqliteFile {
  readonly pageSize: number;
  /** Usable bytes of a page (page size less the reserved bytes at its end). */
  private readonly usable: number;
  private readonly pageCount: number;
  private fd: number;
  /** A small cache of interior pages, which every walk passes through. */
  private readonly cache = new Map<number, Buffer>();
  /** The whole file, when it is small enough to read at once (one read, pages as views of it). */
  private whole: Buffer | undefined;

  private constructor(fd: number, header: Buffer, fileSize: number, readWhole: boolean) {
    this.fd = fd;
    const raw = header.readUInt16BE(16);
    this.pageSize = raw === 1 ? 65536 : raw;
    if (this.pageSize < 512 || this.pageSize > 65536 || (this.pageSize & (this.pageSize - 1)) !== 0) {
      throw corrupt(`page size ${raw}`);
    }
    this.usable = this.pageSize - header.readUInt8(20);
    if (this.usable < 480) throw corrupt('reserved space');
    const encoding = header.readUInt32BE(56);
    if (encoding !== 0 && encoding !== 1) {
      throw new SqliteFormatError(
        `text encoding ${encoding === 2 ? 'UTF-16le' : 'UTF-16be'} is not supported`,
      );
    }
    const filePages = Math.floor(fileSize / this.pageSize);
    const inHeader = header.readUInt32BE(28);
    const headerValid = inHeader !== 0 && header.readUInt32BE(24) === header.readUInt32BE(92);
    if (headerValid && inHeader > filePages) {
      throw corrupt(`the header counts ${inHeader} pages, the file holds ${filePages}: truncated`);
    }
    this.pageCount = headerValid ? inHeader : filePages;
    if (readWhole && fileSize <= WHOLE_FILE_MAX) {
      const whole = Buffer.allocUnsafe(this.pageCount * this.pageSize);
      let got = 0;
      while (got < whole.length) {
        const n = readSync(fd, whole, got, whole.length - got, got);
        if (n === 0) break;
        got += n;
      }
      if (got !== whole.length) throw corrupt('file cut short while read');
      this.whole = whole;
    }
  }

  /**
   * Open `file` for reading; throws SqliteFormatError when it is not a SQLite 3 database. With
   * `pageByPage`, even a small file is read page by page: for a reader that reads a few rows.
   */
  static open(file: string, pageByPage = false): SqliteFile {
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      const header = Buffer.alloc(100);
      const n = size >= 100 ? readSync(fd, header, 0, 100, 0) : 0;
      if (n < 100 || header.toString('latin1', 0, 16) !== MAGIC) {
        throw new SqliteFormatError('file is not a SQLite 3 database');
      }
      if (header.readUInt8(18) === 2 || header.readUInt8(19) === 2) {
        const wal = `${file}-wal`;
        if (existsSync(wal) && statSync(wal).size > 0) {
          throw new SqliteFormatError(
            'database has changes in its write-ahead log not yet written back; open it once with sqlite3 to checkpoint them',
          );
        }
      }
      const journal = `${file}-journal`;
      if (existsSync(journal) && statSync(journal).size > 0) {
        throw new SqliteFormatError(
          'database is locked: a write is in progress or was interrupted (its -journal file is present)',
        );
      }
      return new SqliteFile(fd, header, size, !pageByPage);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
    this.cache.clear();
    this.whole = undefined;
  }

  private page(n: number): Buffer {
    if (n < 1 || n > this.pageCount) throw corrupt(`page ${n} out of range`);
    if (this.whole !== undefined) return this.whole.subarray((n - 1) * this.pageSize, n * this.pageSize);
    const cached = this.cache.get(n);
    if (cached !== undefined) return cached;
    const buf = Buffer.allocUnsafe(this.pageSize);
    const got = readSync(this.fd, buf, 0, this.pageSize, (n - 1) * this.pageSize);
    if (got !== this.pageSize) throw corrupt(`page ${n} cut short`);
    return buf;
  }

  /** The page number, page and cell offset of every row of the table b-tree at `root`, in rowid order. */
  private *cells(root: number): Generator<[number, Buffer, number]> {
    // An explicit stack: a corrupt file must not recurse without end.
    const stack: number[] = [root];
    let visited = 0;
    while (stack.length > 0) {
      const n = stack.pop() as number;
      if (++visited > this.pageCount) throw corrupt('b-tree loop');
      const buf = this.page(n);
      const at = n === 1 ? 100 : 0;
      const type = buf[at];
      const cells = buf.readUInt16BE(at + 3);
      if (type === 0x05) {
        this.cache.set(n, buf);
        if (this.cache.size > 256) this.cache.delete(this.cache.keys().next().value as number);
        const children: number[] = [];
        for (let i = 0; i < cells; i++) children.push(buf.readUInt32BE(this.cellOffset(buf, at + 12, i)));
        children.push(buf.readUInt32BE(at + 8));
        for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as number);
      } else if (type === 0x0d) {
        for (let i = 0; i < cells; i++) yield [n, buf, this.cellOffset(buf, at + 8, i)];
      } else {
        throw corrupt(`page ${n} is not a table b-tree page`);
      }
    }
  }

  /**
   * Every row of the table b-tree rooted at `root`, in rowid order. Text of the columns (by index)
   * in `rawText` is given as its bytes, for callers that work on the bytes.
   */
  *scan(root: number, rawText?: ReadonlySet<number>): Generator<RawRow> {
    for (const [, buf, off] of this.cells(root)) yield this.leafCell(buf, off, rawText);
  }

  /**
   * Every row of the table b-tree at `root`, in rowid order, as the place of its cell (for rowAt)
   * and its first column's value, read from the cell's own page without assembling the record
   * (undefined when the value does not lie there): a server reads the rest of a row when asked.
   */
  *scanRefs(root: number): Generator<{ ref: CellRef; first: SqlValue | undefined }> {
    for (const [page, buf, off] of this.cells(root))
      yield { ref: { page, offset: off }, first: this.firstValue(buf, off) };
  }

  /** The row whose cell is at `ref` (from scanRefs), as scan gives it. */
  rowAt(ref: CellRef, rawText?: ReadonlySet<number>): RawRow {
    return this.leafCell(this.page(ref.page), ref.offset, rawText);
  }

  private firstValue(buf: Buffer, off: number): SqlValue | undefined {
    const [total, a] = readSmallVarint(buf, off);
    const b = readRowid(buf, a)[1];
    const u = this.usable;
    let local = total;
    if (total > u - 35) {
      const minLocal = Math.floor(((u - 12) * 32) / 255) - 23;
      const k = minLocal + ((total - minLocal) % (u - 4));
      local = k <= u - 35 ? k : minLocal;
    }
    if (b + local > u) throw corrupt('cell overflows its page');
    const p = buf.subarray(b, b + local);
    const [headerSize, first] = readSmallVarint(p, 0);
    if (headerSize > local || first >= headerSize) return undefined;
    const [t] = readSmallVarint(p, first);
    if (t === 10 || t === 11) throw corrupt(`serial type ${t}`);
    return headerSize + serialSize(t) <= local ? serialValue(p, headerSize, t) : undefined;
  }

  private cellOffset(buf: Buffer, pointers: number, i: number): number {
    const p = pointers + 2 * i;
    if (p + 2 > this.usable) throw corrupt('cell pointer array');
    const off = buf.readUInt16BE(p);
    if (off < pointers || off >= this.usable) throw corrupt('cell offset');
    return off;
  }

  private leafCell(buf: Buffer, off: number, rawText: ReadonlySet<number> | undefined): RawRow {
    const [total, a] = readSmallVarint(buf, off);
    const [rowid, b] = readRowid(buf, a);
    const u = this.usable;
    const maxLocal = u - 35;
    let payload: Buffer;
    if (total <= maxLocal) {
      if (b + total > u) throw corrupt('cell overflows its page');
      payload = buf.subarray(b, b + total);
    } else {
      const minLocal = Math.floor(((u - 12) * 32) / 255) - 23;
      const k = minLocal + ((total - minLocal) % (u - 4));
      const local = k <= maxLocal ? k : minLocal;
      if (b + local + 4 > u) throw corrupt('cell overflows its page');
      payload = Buffer.allocUnsafe(total);
      buf.copy(payload, 0, b, b + local);
      let filled = local;
      let next = buf.readUInt32BE(b + local);
      let hops = 0;
      while (filled < total) {
        if (next === 0 || ++hops > this.pageCount) throw corrupt('overflow chain');
        const ov = this.page(next);
        const take = Math.min(u - 4, total - filled);
        ov.copy(payload, filled, 4, 4 + take);
        filled += take;
        next = ov.readUInt32BE(0);
      }
    }
    return { rowid, values: decodeRecord(payload, rawText) };
  }
}

/** A SQLite varint at `off`: its value and the offset after it. */
function readVarint(buf: Buffer, off: number): [bigint, number] {
  let v = 0n;
  for (let i = 0; i < 8; i++) {
    const b = buf[off + i];
    if (b === undefined) throw corrupt('varint past the page');
    v = (v << 7n) | BigInt(b & 0x7f);
    if (b < 0x80) return [v, off + i + 1];
  }
  const last = buf[off + 8];
  if (last === undefined) throw corrupt('varint past the page');
  v = (v << 8n) | BigInt(last);
  return [BigInt.asIntN(64, v), off + 9];
}

/**
 * A rowid: read as a number while it has up to 7 bytes (49 bits), as every rowid of an index
 * database has; bigint arithmetic on each byte made a third of the scan of its small tables.
 */
function readRowid(buf: Buffer, off: number): [bigint, number] {
  let v = 0;
  for (let i = 0; i < 7; i++) {
    const b = buf[off + i];
    if (b === undefined) throw corrupt('varint past the page');
    v = v * 128 + (b & 0x7f);
    if (b < 0x80) return [BigInt(v), off + i + 1];
  }
  return readVarint(buf, off);
}

/** A small varint as a number (record headers: serial types and sizes). */
function readSmallVarint(buf: Buffer, off: number): [number, number] {
  let v = 0;
  for (let i = 0; i < 9; i++) {
    const b = buf[off + i];
    if (b === undefined) throw corrupt('record header');
    if (i === 8) return [v * 256 + b, off + 9];
    v = v * 128 + (b & 0x7f);
    if (b < 0x80) return [v, off + i + 1];
  }
  throw corrupt('record header');
}

function decodeRecord(p: Buffer, rawText: ReadonlySet<number> | undefined): SqlValue[] {
  const [headerSize, first] = readSmallVarint(p, 0);
  if (headerSize > p.length) throw corrupt('record header size');
  const types: number[] = [];
  let h = first;
  while (h < headerSize) {
    const [t, next] = readSmallVarint(p, h);
    types.push(t);
    h = next;
  }
  const values: SqlValue[] = [];
  let d = headerSize;
  types.forEach((t, i) => {
    const need = serialSize(t);
    if (d + need > p.length) throw corrupt('record body');
    values.push(
      rawText?.has(i) === true && t >= 13 && t % 2 === 1 ? p.subarray(d, d + need) : serialValue(p, d, t),
    );
    d += need;
  });
  return values;
}

function serialSize(t: number): number {
  if (t >= 12) return Math.floor((t - 12) / 2);
  return [0, 1, 2, 3, 4, 6, 8, 8, 0, 0, 0, 0][t] ?? 0;
}

function serialValue(p: Buffer, d: number, t: number): SqlValue {
  switch (t) {
    case 0:
      return null;
    case 1:
      return p.readInt8(d);
    case 2:
      return p.readInt16BE(d);
    case 3:
      return p.readIntBE(d, 3);
    case 4:
      return p.readInt32BE(d);
    case 5:
      return p.readIntBE(d, 6);
    case 6: {
      const v = p.readBigInt64BE(d);
      return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
    }
    case 7:
      return p.readDoubleBE(d);
    case 8:
      return 0;
    case 9:
      return 1;
    case 10:
    case 11:
      throw corrupt(`serial type ${t}`);
    default: {
      const n = Math.floor((t - 12) / 2);
      const bytes = p.subarray(d, d + n);
      return t % 2 === 0 ? new Uint8Array(bytes) : utf8.decode(bytes);
    }
  }
}
