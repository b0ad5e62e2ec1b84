/**
 * A database's tables by name, each read as rows of named columns: the schema table
 * (`sqlite_master`) read from page 1, the column names taken from each table's CREATE TABLE text
 * (which SQLite rewrites on ALTER TABLE … ADD COLUMN, so older rows may hold fewer values: the
 * missing ones read as NULL, as SQLite reads them when the column has no default).
 */
import { SqliteFile, SqliteFormatError, type CellRef, type RawRow, type SqlValue } from './file.js';

export type Row = Record<string, SqlValue>;

interface TableInfo {
  root: number;
  columns: string[];
  /** Index of the INTEGER PRIMARY KEY column, whose value is the rowid; -1 when none. */
  rowidColumn: number;
  /** Values SQLite gives a column missing from an older row (its DEFAULT), by index. */
  defaults: SqlValue[];
}

export class SqliteDatabase {
  private readonly file: SqliteFile;
  private readonly tables = new Map<string, TableInfo>();

  private constructor(file: SqliteFile) {
    this.file = file;
    for (const { values } of file.scan(1)) {
      const [type, name, , root, sql] = values;
      if (type !== 'table' || typeof name !== 'string' || typeof root !== 'number' || typeof sql !== 'string')
        continue;
      // Table names compare without case in SQLite.
      this.tables.set(name.toLowerCase(), { root, ...parseCreateTable(sql) });
    }
  }

  /** `pageByPage`: read pages when asked for, not the whole file first (SqliteFile.open). */
  static open(path: string, pageByPage = false): SqliteDatabase {
    const file = SqliteFile.open(path, pageByPage);
    try {
      return new SqliteDatabase(file);
    } catch (err) {
      file.close();
      throw err;
    }
  }

  close(): void {
    this.file.close();
  }

  hasTable(name: string): boolean {
    return this.tables.has(name.toLowerCase());
  }

  hasColumn(table: string, column: string): boolean {
    return this.tables.get(table.toLowerCase())?.columns.includes(column.toLowerCase()) ?? false;
  }

  /**
   * Every row of `table` in rowid order (none when the table does not exist). The text of the
   * columns named in `bytes` comes as a Uint8Array of its UTF-8 bytes.
   */
  *rows(table: string, bytes: readonly string[] = []): Generator<Row> {
    const info = this.tables.get(table.toLowerCase());
    if (info === undefined) return;
    const rawIdx = rawColumns(info, bytes);
    for (const raw of this.file.scan(info.root, rawIdx)) yield toRow(info, raw);
  }

  /**
   * Every row of `table` in rowid order as the place of its cell and the value of its first column
   * when it lies in the cell's page (undefined otherwise): the rest is read by rowAt when needed.
   */
  *rowRefs(table: string): Generator<{ ref: CellRef; first: SqlValue | undefined }> {
    const info = this.tables.get(table.toLowerCase());
    if (info !== undefined) yield* this.file.scanRefs(info.root);
  }

  /** The row of `table` at `ref` (from rowRefs), as rows() gives it. */
  rowAt(table: string, ref: CellRef, bytes: readonly string[] = []): Row {
    const info = this.tables.get(table.toLowerCase());
    if (info === undefined) throw new SqliteFormatError(`no table ${table}`);
    return toRow(info, this.file.rowAt(ref, rawColumns(info, bytes)));
  }

  /** The name of the first column of `table` (undefined when there is no such table). */
  firstColumn(table: string): string | undefined {
    return this.tables.get(table.toLowerCase())?.columns[0];
  }
}

function rawColumns(info: TableInfo, bytes: readonly string[]): Set<number> | undefined {
  return bytes.length === 0 ? undefined : new Set(bytes.map((c) => info.columns.indexOf(c)));
}

function toRow({ columns, rowidColumn, defaults }: TableInfo, raw: RawRow): Row {
  const row: Row = {};
  for (let i = 0; i < columns.length; i++) {
    const v = i < raw.values.length ? (raw.values[i] as SqlValue) : (defaults[i] ?? null);
    row[columns[i] as string] = i === rowidColumn ? rowidValue(raw.rowid) : v;
  }
  return row;
}

/** A rowid as a number when it is one exactly, else as a bigint. */
export function rowidValue(v: bigint): number | bigint {
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
}

const CONSTRAINT_WORDS = new Set(['primary', 'foreign', 'unique', 'check', 'constraint']);

/** The columns of a CREATE TABLE statement, lower-cased, in order, and which one is the rowid. */
export function parseCreateTable(sql: string): Omit<TableInfo, 'root'> {
  const open = sql.indexOf('(');
  const close = sql.lastIndexOf(')');
  if (open < 0 || close < open)
    throw new SqliteFormatError(`unreadable table definition: ${sql.slice(0, 80)}`);
  const columns: string[] = [];
  const defaults: SqlValue[] = [];
  let rowidColumn = -1;
  for (const def of splitTopLevel(sql.slice(open + 1, close))) {
    const tokens = tokenize(def);
    const first = tokens[0];
    if (first === undefined) continue;
    if (CONSTRAINT_WORDS.has(first.toLowerCase())) continue;
    const name = unquote(first).toLowerCase();
    const words = tokens.slice(1).map((t) => t.toLowerCase());
    const pk = words.indexOf('primary');
    if (words[0] === 'integer' && pk === 1 && words[2] === 'key' && words[3] !== 'desc') {
      rowidColumn = columns.length;
    }
    const d = words.indexOf('default');
    defaults.push(d >= 0 ? literal(tokens[d + 2]) : null);
    columns.push(name);
  }
  return { columns, rowidColumn, defaults };
}

/** A DEFAULT's literal (numbers and quoted strings; anything else reads as NULL). */
function literal(tok: string | undefined): SqlValue {
  if (tok === undefined) return null;
  if (/^-?\d+$/.test(tok)) return Number(tok);
  if (tok.startsWith("'")) return tok.slice(1, -1).replace(/''/g, "'");
  return null;
}

export function unquote(tok: string): string {
  const q = tok[0];
  if (q === '"' || q === '`') return tok.slice(1, -1).replaceAll(q + q, q);
  if (q === '[') return tok.slice(1, -1);
  return tok;
}

/** Split at commas outside parentheses and quotes. */
export function splitTopLevel(body: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === "'" || c === '"' || c === '`' || c === '[') {
      i = quoteEnd(body, i);
    } else if (c === '-' && body[i + 1] === '-') {
      const nl = body.indexOf('\n', i);
      i = nl < 0 ? body.length : nl;
    } else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(body.slice(start, i));
      start = i + 1;
    }
  }
  out.push(body.slice(start));
  return out;
}

function quoteEnd(s: string, i: number): number {
  const q = s[i] === '[' ? ']' : (s[i] as string);
  let j = i + 1;
  while (j < s.length) {
    if (s[j] === q) {
      if (q !== ']' && s[j + 1] === q) {
        j += 2;
        continue;
      }
      return j;
    }
    j++;
  }
  return s.length;
}

/** Words, quoted names and strings, and single punctuation, without comments. */
export function tokenize(def: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < def.length) {
    const c = def[i] as string;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '-' && def[i + 1] === '-') {
      const nl = def.indexOf('\n', i);
      i = nl < 0 ? def.length : nl;
    } else if (c === "'" || c === '"' || c === '`' || c === '[') {
      const end = quoteEnd(def, i);
      out.push(def.slice(i, end + 1));
      i = end + 1;
    } else if (/[\w$]/.test(c) || (c === '-' && /\d/.test(def[i + 1] ?? ''))) {
      let j = i + 1;
      while (j < def.length && /[\w$]/.test(def[j] as string)) j++;
      out.push(def.slice(i, j));
      i = j;
    } else {
      out.push(c);
      i++;
    }
  }
  return out;
}
