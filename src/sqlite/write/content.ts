/**
 * A whole database as data — its schema objects in `sqlite_master` order and every table's rows
 * in column order — read from a file, and written to a file as a fresh SQLite 3 database: page
 * size 4096, UTF-8, schema format 4, no free pages, every index rebuilt from the rows. The file is
 * written beside the target under a temporary name and renamed over it, so a reader sees the old
 * database or the new one, never half of one.
 */
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fsyncSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import path from 'node:path';
import { SqliteFile, SqliteFormatError, type SqlValue } from '../file.js';
import { parseCreateTable, rowidValue } from '../database.js';
import { OpmError } from '../../errors.js';
import { sqliteWriteLockHolder } from '../write-lock.js';
import { PageFile, PAGE_SIZE } from './pages.js';
import { TableTreeBuilder, writeIndexTree } from './btree.js';
import { compareKeys, encodeRecord, sortValue, type KeyColumn, type SortValue } from './record.js';
import {
  autoIndexes,
  parseIndex,
  parseTable,
  type Affinity,
  type IndexColumn,
  type SchemaObject,
  type TableDef,
} from './schema.js';

export type { SchemaObject } from './schema.js';
export type { SqlValue } from '../file.js';

/** Header fields carried from the database read to the one written. */
export interface DatabaseHeader {
  userVersion: number;
  applicationId: number;
  schemaCookie: number;
  changeCounter: number;
}

export interface DatabaseContent {
  objects: SchemaObject[];
  /** Each table's rows, values in column order (an INTEGER PRIMARY KEY column holds the rowid). */
  rows: Map<string, SqlValue[][]>;
  /** When read from a file: its header's counters and ids, which the written file continues. */
  header?: DatabaseHeader;
}

const OBJECT_TYPES = new Set(['table', 'index', 'view', 'trigger']);

/** Everything in the database `file`: schema objects in `sqlite_master` order, and every table's rows. */
export function readDatabaseContent(file: string): DatabaseContent {
  const header = readHeader(file);
  const f = SqliteFile.open(file);
  try {
    const objects: SchemaObject[] = [];
    const roots = new Map<string, number>();
    for (const { values } of f.scan(1)) {
      const [type, name, tableName, root, sql] = values;
      if (typeof type !== 'string' || !OBJECT_TYPES.has(type) || typeof name !== 'string')
        throw new SqliteFormatError(`unreadable schema row ${JSON.stringify(values.slice(0, 2))}`);
      objects.push({
        type: type as SchemaObject['type'],
        name,
        tableName: typeof tableName === 'string' ? tableName : name,
        sql: typeof sql === 'string' ? sql : null,
      });
      if (type === 'table' && typeof root === 'number' && root > 0) roots.set(name, root);
    }
    const rows = new Map<string, SqlValue[][]>();
    for (const o of objects) {
      if (o.type !== 'table' || o.sql === null) continue;
      const root = roots.get(o.name);
      if (root === undefined) throw new SqliteFormatError(`table ${o.name} has no root page`);
      const { columns, rowidColumn, defaults } = parseCreateTable(o.sql);
      const out: SqlValue[][] = [];
      for (const raw of f.scan(root)) {
        const row: SqlValue[] = [];
        for (let i = 0; i < columns.length; i++) {
          if (i === rowidColumn) row.push(rowidValue(raw.rowid));
          else row.push(i < raw.values.length ? (raw.values[i] as SqlValue) : (defaults[i] ?? null));
        }
        out.push(row);
      }
      rows.set(o.name, out);
    }
    return { objects, rows, header };
  } finally {
    f.close();
  }
}

function readHeader(file: string): DatabaseHeader {
  const fd = openSync(file, 'r');
  try {
    const h = Buffer.alloc(100);
    readSync(fd, h, 0, 100, 0);
    return {
      changeCounter: h.readUInt32BE(24),
      schemaCookie: h.readUInt32BE(40),
      userVersion: h.readInt32BE(60),
      applicationId: h.readInt32BE(68),
    };
  } finally {
    closeSync(fd);
  }
}

/** A table's rows as stored: rowid and record values (the rowid column's own value NULL). */
interface StoredRow {
  rowid: bigint;
  values: SqlValue[];
}

/**
 * Refuses to replace `file` when it is read-only (the rename would replace it anyway, in a
 * writable folder), or while another process holds SQLite's write lock on it (see write-lock.ts).
 * Writers call it before their work as well; writeDatabaseContent calls it before writing and
 * again before the rename.
 */
export function refuseUnwritable(file: string): void {
  if (!existsSync(file)) return;
  try {
    accessSync(file, constants.W_OK);
  } catch {
    throw new OpmError(`${file}: attempt to write a readonly database; nothing was changed`, {
      hint: 'make the file writable, or edit a copy',
    });
  }
  const holder = sqliteWriteLockHolder(file);
  if (holder === undefined) return;
  throw new OpmError(
    `${file}: database is locked: ${holder > 0 ? `process ${holder}` : 'another process'} holds a write lock on it; nothing was changed`,
    { hint: 'let that process end its transaction (or stop it), then run again' },
  );
}

/**
 * Write `content` as the database `file`, replacing it whole (through a temporary file and a
 * rename); refused (refuseUnwritable) before anything is written and again before the rename.
 */
export function writeDatabaseContent(file: string, content: DatabaseContent): void {
  refuseUnwritable(file);
  const dir = path.dirname(path.resolve(file));
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Date.now().toString(36)}.tmp`);
  let mode: number | undefined;
  try {
    mode = statSync(file).mode & 0o7777;
  } catch {
    mode = undefined;
  }
  const fd = openSync(tmp, 'wx', 0o644);
  let ok = false;
  try {
    if (mode !== undefined) fchmodSync(fd, mode);
    writePages(fd, content);
    fsyncSync(fd);
    ok = true;
  } finally {
    closeSync(fd);
    if (!ok) rmSync(tmp, { force: true });
  }
  try {
    refuseUnwritable(file);
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

function writePages(fd: number, content: DatabaseContent): void {
  const pf = new PageFile(fd);
  const tables = new Map<string, { def: TableDef; rows: StoredRow[] }>();
  const roots: number[] = [];
  for (const o of content.objects) {
    if (o.type === 'view' || o.type === 'trigger') {
      roots.push(0);
    } else if (o.type === 'table') {
      if (o.sql === null) throw new SqliteFormatError(`table ${o.name} has no CREATE TABLE text`);
      const def = parseTable(o.name, o.sql);
      const rows = storedRows(def, content.rows.get(o.name) ?? []);
      const tree = new TableTreeBuilder(pf);
      for (const r of rows) tree.add(r.rowid, encodeRecord(r.values));
      roots.push(tree.finish());
      tables.set(o.name.toLowerCase(), { def, rows });
    } else {
      const table = tables.get(o.tableName.toLowerCase());
      if (table === undefined)
        throw new SqliteFormatError(`index ${o.name} comes before its table ${o.tableName}`);
      const columns =
        o.sql === null
          ? autoIndexes(table.def.name, sqlOf(content, table.def.name)).find((a) => a.name === o.name)
              ?.columns
          : parseIndex(o.name, o.sql).columns;
      if (columns === undefined)
        throw new SqliteFormatError(`no constraint of table ${o.tableName} makes index ${o.name}`);
      const unique = o.sql === null || parseIndex(o.name, o.sql).unique;
      roots.push(writeIndexTree(pf, indexEntries(o.name, table.def, table.rows, columns, unique)));
    }
  }
  const schema = new TableTreeBuilder(pf, 1);
  content.objects.forEach((o, i) => {
    schema.add(BigInt(i + 1), encodeRecord([o.type, o.name, o.tableName, roots[i] as number, o.sql]));
  });
  schema.finish();
  pf.finish(databaseHeader(pf.pageCount, content.header));
}

function sqlOf(content: DatabaseContent, table: string): string {
  const o = content.objects.find((x) => x.type === 'table' && x.name.toLowerCase() === table.toLowerCase());
  return o?.sql ?? '';
}

/** Rows with their rowids, in rowid order, values converted by their columns' affinity. */
function storedRows(def: TableDef, rows: SqlValue[][]): StoredRow[] {
  const n = def.columns.length;
  const out: StoredRow[] = [];
  let max = 0n;
  const rc = def.rowidColumn;
  for (const row of rows) {
    if (row.length > n)
      throw new SqliteFormatError(`a row of ${def.name} has ${row.length} values for ${n} columns`);
    const values = def.columns.map((c, i) =>
      applyAffinity(i < row.length ? (row[i] as SqlValue) : null, c.affinity),
    );
    let rowid: bigint;
    if (rc >= 0) {
      const v = values[rc] ?? null;
      if (v === null) rowid = max + 1n;
      else if (typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v))) rowid = BigInt(v);
      else
        throw new SqliteFormatError(`datatype mismatch: ${def.name}.${def.columns[rc]?.name} = ${String(v)}`);
      values[rc] = null;
    } else {
      rowid = BigInt(out.length + 1);
    }
    if (rowid > max) max = rowid;
    out.push({ rowid, values });
  }
  if (rc >= 0) {
    out.sort((a, b) => (a.rowid < b.rowid ? -1 : a.rowid > b.rowid ? 1 : 0));
    for (let i = 1; i < out.length; i++) {
      if (out[i]?.rowid === out[i - 1]?.rowid)
        throw new SqliteFormatError(
          `UNIQUE constraint failed: ${def.name}.${def.columns[rc]?.name} (${out[i]?.rowid})`,
        );
    }
  }
  return out;
}

/** A value as SQLite keeps it in a column of this affinity (integers and integer text only). */
function applyAffinity(v: SqlValue, affinity: Affinity): SqlValue {
  if (affinity === 'text' && (typeof v === 'number' || typeof v === 'bigint')) return String(v);
  if ((affinity === 'integer' || affinity === 'numeric' || affinity === 'real') && typeof v === 'string') {
    const t = v.trim();
    if (/^[+-]?\d{1,18}$/.test(t)) return Number(t) === 0 ? 0 : Number(t);
  }
  return v;
}

/** The index's entries (key values then rowid), as records in the index's order. */
function indexEntries(
  name: string,
  def: TableDef,
  rows: StoredRow[],
  columns: IndexColumn[],
  unique: boolean,
): Buffer[] {
  const idx = columns.map((c) => {
    const i = def.columns.findIndex((d) => d.name.toLowerCase() === c.name.toLowerCase());
    if (i < 0 && c.name.toLowerCase() !== 'rowid')
      throw new SqliteFormatError(`index ${name}: no column ${c.name} in ${def.name}`);
    return i;
  });
  const keyCols: KeyColumn[] = columns.map((c, k) => ({
    collation: c.collation ?? def.columns[idx[k] as number]?.collation ?? 'binary',
    desc: c.desc,
  }));
  keyCols.push({ collation: 'binary', desc: false });
  const entries = rows.map((r) => {
    const values: SqlValue[] = idx.map((i) =>
      i < 0 || i === def.rowidColumn ? rowidValue(r.rowid) : (r.values[i] as SqlValue),
    );
    values.push(rowidValue(r.rowid));
    const sort: SortValue[] = values.map((v, k) => sortValue(v, keyCols[k]?.collation));
    return { values, sort };
  });
  entries.sort((a, b) => compareKeys(a.sort, b.sort, keyCols));
  if (unique) {
    for (let i = 1; i < entries.length; i++) {
      const a = (entries[i - 1] as (typeof entries)[0]).sort.slice(0, -1);
      const b = (entries[i] as (typeof entries)[0]).sort.slice(0, -1);
      if (a.some((v) => v.rank === 0)) continue;
      if (compareKeys(a, b, keyCols) === 0)
        throw new SqliteFormatError(
          `UNIQUE constraint failed: ${columns.map((c) => `${def.name}.${c.name}`).join(', ')} (index ${name})`,
        );
    }
  }
  return entries.map((e) => encodeRecord(e.values));
}

/** The 100-byte database header (https://www.sqlite.org/fileformat2.html#the_database_header). */
function databaseHeader(pages: number, prev: DatabaseHeader | undefined): Buffer {
  const h = Buffer.alloc(100);
  h.write('SQLite format 3\0', 0, 'latin1');
  h.writeUInt16BE(PAGE_SIZE, 16);
  h[18] = 1; // legacy (rollback journal) write and read versions
  h[19] = 1;
  h[20] = 0; // no reserved bytes
  h[21] = 64;
  h[22] = 32;
  h[23] = 32;
  const counter = ((prev?.changeCounter ?? 0) + 1) >>> 0;
  h.writeUInt32BE(counter, 24);
  h.writeUInt32BE(pages, 28);
  h.writeUInt32BE(0, 32); // no freelist
  h.writeUInt32BE(0, 36);
  h.writeUInt32BE(((prev?.schemaCookie ?? 0) + 1) >>> 0, 40);
  h.writeUInt32BE(4, 44); // schema format 4
  h.writeUInt32BE(0, 48);
  h.writeUInt32BE(0, 52); // no auto-vacuum
  h.writeUInt32BE(1, 56); // UTF-8
  h.writeInt32BE(prev?.userVersion ?? 0, 60);
  h.writeUInt32BE(0, 64);
  h.writeInt32BE(prev?.applicationId ?? 0, 68);
  h.writeUInt32BE(counter, 92);
  h.writeUInt32BE(SQLITE_VERSION_NUMBER, 96);
  return h;
}

/** The library version a header names as its last writer: the file format of SQLite 3.40. */
const SQLITE_VERSION_NUMBER = 3040001;
