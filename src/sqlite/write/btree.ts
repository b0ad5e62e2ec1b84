/**
 * B-trees built bottom-up from keys already in order: leaves filled one after another, then each
 * level of interior pages over the one below, until one page (the root) holds the rest. Table
 * trees take rows in rowid order as they come; an index's interior cells are entries of the index
 * themselves (each key lives in exactly one page), so the entry after a full page moves up a level.
 */
import { type PageFile, PageType, cellRoom, payloadCellSize } from './pages.js';
import { varint, varintSize } from './record.js';

interface Child {
  page: number;
  /** Table trees: the largest rowid under the child. */
  key: bigint;
}

const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n, 0);
  return b;
};

/** A table b-tree written as its rows arrive in ascending rowid order. */
export class TableTreeBuilder {
  private cells: Buffer[] = [];
  private used = 0;
  private last: bigint | undefined;
  private readonly leaves: Child[] = [];

  /** `root`: the page the root must take (1 for the schema table); any page otherwise. */
  private readonly pf: PageFile;
  private readonly root: number | undefined;

  constructor(pf: PageFile, root?: number) {
    this.pf = pf;
    this.root = root;
  }

  add(rowid: bigint, record: Buffer): void {
    if (this.last !== undefined && rowid <= this.last) throw new RangeError(`rowid ${rowid} out of order`);
    const size = varintSize(rowid) + payloadCellSize(record.length, true) + 2;
    if (this.used + size > cellRoom(PageType.TableLeaf)) this.flush();
    this.cells.push(this.pf.cell(Buffer.alloc(0), record, true, varint(rowid)));
    this.used += size;
    this.last = rowid;
  }

  private flush(): void {
    const page = this.pf.allocate();
    this.pf.writeBtreePage(page, PageType.TableLeaf, this.cells);
    this.leaves.push({ page, key: this.last ?? 0n });
    this.cells = [];
    this.used = 0;
  }

  /** Write what is left and the levels above; the root's page number. */
  finish(): number {
    if (this.leaves.length === 0 && this.used <= cellRoom(PageType.TableLeaf, this.root ?? 0)) {
      const page = this.root ?? this.pf.allocate();
      this.pf.writeBtreePage(page, PageType.TableLeaf, this.cells);
      return page;
    }
    if (this.cells.length > 0) this.flush();
    return this.interior(this.leaves);
  }

  private interior(children: Child[]): number {
    const cellSize = (c: Child): number => 4 + varintSize(c.key) + 2;
    const cellOf = (c: Child): Buffer => Buffer.concat([u32(c.page), varint(c.key)]);
    const all = children.slice(0, -1).reduce((n, c) => n + cellSize(c), 0);
    if (all <= cellRoom(PageType.TableInterior, this.root ?? 0)) {
      const page = this.root ?? this.pf.allocate();
      const right = children[children.length - 1] as Child;
      this.pf.writeBtreePage(page, PageType.TableInterior, children.slice(0, -1).map(cellOf), right.page);
      return page;
    }
    const groups = groupChildren(children, cellSize, cellRoom(PageType.TableInterior));
    const parents = groups.map((g) => {
      const page = this.pf.allocate();
      const right = g[g.length - 1] as Child;
      this.pf.writeBtreePage(page, PageType.TableInterior, g.slice(0, -1).map(cellOf), right.page);
      return { page, key: right.key };
    });
    return this.interior(parents);
  }
}

/**
 * Children split into runs for interior pages: every run but its last child becomes cells, and a
 * run has at least two children (a page of no cells is not a valid interior page).
 */
function groupChildren<T>(children: T[], size: (c: T) => number, room: number): T[][] {
  const groups: T[][] = [];
  let cur: T[] = [];
  let used = 0;
  for (const c of children) {
    const s = size(c);
    if (cur.length > 0 && used + s > room) {
      // `c` fits as the right child without a cell.
      cur.push(c);
      groups.push(cur);
      cur = [];
      used = 0;
      continue;
    }
    cur.push(c);
    used += s;
  }
  if (cur.length === 1) {
    const prev = groups[groups.length - 1] as T[];
    cur.unshift(prev.pop() as T);
  }
  if (cur.length > 0) groups.push(cur);
  return groups;
}

/** An index b-tree over entries (records ending in the rowid) already in key order. */
export function writeIndexTree(pf: PageFile, entries: readonly Buffer[]): number {
  // The leaf level: runs of entries, each pair of runs separated by one entry that moves up.
  const leafRoom = cellRoom(PageType.IndexLeaf);
  const size = (e: Buffer): number => payloadCellSize(e.length, false) + 2;
  const runs: Buffer[][] = [];
  const dividers: Buffer[] = [];
  let cur: Buffer[] = [];
  let used = 0;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] as Buffer;
    if (used + size(e) > leafRoom) {
      runs.push(cur);
      dividers.push(e);
      cur = [];
      used = 0;
      continue;
    }
    cur.push(e);
    used += size(e);
  }
  if (cur.length === 0 && runs.length > 0) {
    // The last entry went up with nothing after it: the run before gives its last entry instead.
    const prev = runs[runs.length - 1] as Buffer[];
    cur.push(dividers.pop() as Buffer);
    dividers.push(prev.pop() as Buffer);
  }
  runs.push(cur);
  let nodes = runs.map((run) => {
    const page = pf.allocate();
    pf.writeBtreePage(
      page,
      PageType.IndexLeaf,
      run.map((e) => pf.cell(Buffer.alloc(0), e, false)),
    );
    return page;
  });
  let divs = dividers;
  const room = cellRoom(PageType.IndexInterior);
  while (nodes.length > 1) {
    // Pairs (child, divider) as cells; the pair that does not fit gives its child as the page's
    // right pointer and its divider to the level above.
    const nextNodes: number[] = [];
    const nextDivs: Buffer[] = [];
    const pages: { cells: [number, Buffer][]; right: number }[] = [];
    let cells: [number, Buffer][] = [];
    let u = 0;
    for (let i = 0; i < nodes.length - 1; i++) {
      const d = divs[i] as Buffer;
      const s = 4 + size(d);
      if (cells.length > 0 && u + s > room) {
        pages.push({ cells, right: nodes[i] as number });
        nextDivs.push(d);
        cells = [];
        u = 0;
        continue;
      }
      cells.push([nodes[i] as number, d]);
      u += s;
    }
    const lastNode = nodes[nodes.length - 1] as number;
    if (cells.length === 0) {
      // The last page would hold only its right pointer: take the previous page's last cell.
      const prev = pages[pages.length - 1] as { cells: [number, Buffer][]; right: number };
      const [child, d] = prev.cells.pop() as [number, Buffer];
      cells.push([prev.right, nextDivs.pop() as Buffer]);
      prev.right = child;
      nextDivs.push(d);
    }
    pages.push({ cells, right: lastNode });
    for (const p of pages) {
      const page = pf.allocate();
      pf.writeBtreePage(
        page,
        PageType.IndexInterior,
        p.cells.map(([child, d]) => pf.cell(u32(child), d, false)),
        p.right,
      );
      nextNodes.push(page);
    }
    nodes = nextNodes;
    divs = nextDivs;
  }
  return nodes[0] as number;
}
