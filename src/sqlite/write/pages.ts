/**
 * The pages of a database file being written: numbers handed out in order, each page written to
 * its place in the file as soon as it is complete (so memory holds the page being filled, not the
 * file), overflow chains for payloads too large for their page, and the layout of a b-tree page
 * (https://www.sqlite.org/fileformat2.html#b_tree_pages): header, cell pointers, cells packed at the
 * end. Page 1 is kept until last: its first 100 bytes are the database header.
 */
import { writeSync } from 'node:fs';
import { varint, varintSize } from './record.js';

export const PAGE_SIZE = 4096;
/** No bytes are reserved at the end of a page: usable size is the page size. */
const USABLE = PAGE_SIZE;

export const PageType = {
  IndexInterior: 0x02,
  TableInterior: 0x05,
  IndexLeaf: 0x0a,
  TableLeaf: 0x0d,
} as const;
export type PageType = (typeof PageType)[keyof typeof PageType];

/** Bytes before a page's b-tree header: the database header on page 1. */
export const headerOffset = (page: number): number => (page === 1 ? 100 : 0);

/** Room for cells and their pointers on a page of `type` numbered `page`. */
export function cellRoom(type: PageType, page = 0): number {
  const interior = type === PageType.IndexInterior || type === PageType.TableInterior;
  return USABLE - headerOffset(page) - (interior ? 12 : 8);
}

/** The largest and smallest payload kept on the page, by kind of b-tree. */
const TABLE_MAX_LOCAL = USABLE - 35;
const INDEX_MAX_LOCAL = Math.floor(((USABLE - 12) * 64) / 255) - 23;
const MIN_LOCAL = Math.floor(((USABLE - 12) * 32) / 255) - 23;

/** How many bytes of a payload of `size` stay in the cell (the rest goes to overflow pages). */
export function localSize(size: number, table: boolean): number {
  const max = table ? TABLE_MAX_LOCAL : INDEX_MAX_LOCAL;
  if (size <= max) return size;
  const k = MIN_LOCAL + ((size - MIN_LOCAL) % (USABLE - 4));
  return k <= max ? k : MIN_LOCAL;
}

/** Bytes a cell holding `payload` takes on its page, without its 2-byte pointer. */
export function payloadCellSize(size: number, table: boolean): number {
  const local = localSize(size, table);
  return varintSize(size) + local + (local < size ? 4 : 0);
}

export class PageFile {
  private next = 2;
  private page1: Buffer | undefined;

  private readonly fd: number;

  constructor(fd: number) {
    this.fd = fd;
  }

  /** A fresh page number (page 1 is the schema's root, taken by number, never handed out). */
  allocate(): number {
    return this.next++;
  }

  /** How many pages the file holds so far. */
  get pageCount(): number {
    return this.next - 1;
  }

  write(page: number, buf: Buffer): void {
    if (page === 1) {
      this.page1 = buf;
      return;
    }
    let done = 0;
    while (done < buf.length) {
      done += writeSync(this.fd, buf, done, buf.length - done, (page - 1) * PAGE_SIZE + done);
    }
  }

  /** Page 1, with `header` (100 bytes) laid over its start. */
  finish(header: Buffer): void {
    const p1 = this.page1 ?? Buffer.alloc(PAGE_SIZE);
    header.copy(p1, 0);
    this.page1 = undefined;
    let done = 0;
    while (done < p1.length) done += writeSync(this.fd, p1, done, p1.length - done, done);
  }

  /**
   * The cell bytes for `payload` after `prefix` (an index's child pointer) and its size (then
   * `afterSize`, a table leaf's rowid): the part kept on the
   * page and, when it does not fit, the number of the first overflow page, whose chain is written
   * now.
   */
  cell(prefix: Buffer, payload: Buffer, table: boolean, afterSize?: Buffer): Buffer {
    const local = localSize(payload.length, table);
    const head =
      afterSize === undefined ? varint(payload.length) : Buffer.concat([varint(payload.length), afterSize]);
    if (local === payload.length) return Buffer.concat([prefix, head, payload]);
    const first = this.allocate();
    let page = first;
    let at = local;
    while (at < payload.length) {
      const take = Math.min(USABLE - 4, payload.length - at);
      const next = at + take < payload.length ? this.allocate() : 0;
      const buf = Buffer.alloc(PAGE_SIZE);
      buf.writeUInt32BE(next, 0);
      payload.copy(buf, 4, at, at + take);
      this.write(page, buf);
      at += take;
      page = next;
    }
    const ptr = Buffer.alloc(4);
    ptr.writeUInt32BE(first, 0);
    return Buffer.concat([prefix, head, payload.subarray(0, local), ptr]);
  }

  /** Lay out a b-tree page: header, pointers in order, cells from the end down. */
  writeBtreePage(page: number, type: PageType, cells: readonly Buffer[], right = 0): void {
    const buf = Buffer.alloc(PAGE_SIZE);
    const at = headerOffset(page);
    const interior = type === PageType.IndexInterior || type === PageType.TableInterior;
    const pointers = at + (interior ? 12 : 8);
    let top = USABLE;
    cells.forEach((cell, i) => {
      top -= cell.length;
      if (top < pointers + 2 * cells.length) throw new RangeError(`page ${page} overfilled`);
      cell.copy(buf, top);
      buf.writeUInt16BE(top, pointers + 2 * i);
    });
    buf[at] = type;
    buf.writeUInt16BE(0, at + 1);
    buf.writeUInt16BE(cells.length, at + 3);
    buf.writeUInt16BE(top === 65536 ? 0 : top, at + 5);
    buf[at + 7] = 0;
    if (interior) buf.writeUInt32BE(right, at + 8);
    this.write(page, buf);
  }
}
