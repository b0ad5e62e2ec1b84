/**
 * The rows of an index database held in memory while `registry add` changes them: each table's
 * rows as records of named columns, in rowid order, as SQLite would keep them. Inserting appends
 * (SQLite gives a new row the largest rowid plus one); an INTEGER PRIMARY KEY column left empty is
 * given that rowid, as channel_entry's `entry_id` is.
 */
import type { SqlValue } from '../../sqlite/file.js';
import { parseCreateTable } from '../../sqlite/database.js';

export type Row = Record<string, SqlValue>;

export interface TableShape {
  columns: string[];
  /** The INTEGER PRIMARY KEY column, if any. */
  rowidColumn?: string;
}

export class Tables {
  private readonly shapes = new Map<string, TableShape>();
  private readonly data = new Map<string, Row[]>();

  /** Tables made from CREATE TABLE statements, with rows given as value lists in column order. */
  constructor(creates: ReadonlyMap<string, string>, rows: ReadonlyMap<string, SqlValue[][]> = new Map()) {
    for (const [name, sql] of creates) {
      const { columns, rowidColumn } = parseCreateTable(sql);
      const shape: TableShape = { columns };
      if (rowidColumn >= 0) shape.rowidColumn = columns[rowidColumn] as string;
      this.shapes.set(name, shape);
      this.data.set(
        name,
        (rows.get(name) ?? []).map((values) => {
          const r: Row = {};
          columns.forEach((c, i) => (r[c] = values[i] ?? null));
          return r;
        }),
      );
    }
  }

  has(table: string): boolean {
    return this.shapes.has(table);
  }

  /** The live rows of `table` (changing a record changes the table). */
  rows(table: string): Row[] {
    const r = this.data.get(table);
    if (r === undefined) throw new Error(`no such table: ${table}`);
    return r;
  }

  /** Append a row; columns not given are NULL. Returns the row (its INTEGER PRIMARY KEY filled). */
  insert(table: string, values: Row): Row {
    const shape = this.shapes.get(table);
    if (shape === undefined) throw new Error(`no such table: ${table}`);
    const rows = this.rows(table);
    const row: Row = {};
    for (const c of shape.columns) row[c] = values[c] ?? null;
    const key = shape.rowidColumn;
    if (key !== undefined && row[key] === null) {
      let max = 0;
      for (const r of rows)
        if (typeof r[key] === 'number' && (r[key] as number) > max) max = r[key] as number;
      row[key] = max + 1;
    }
    rows.push(row);
    return row;
  }

  /** Delete the rows `pred` accepts; returns how many. */
  delete(table: string, pred: (r: Row) => boolean): number {
    const rows = this.rows(table);
    const kept = rows.filter((r) => !pred(r));
    const n = rows.length - kept.length;
    rows.length = 0;
    rows.push(...kept);
    return n;
  }

  find(table: string, pred: (r: Row) => boolean): Row | undefined {
    return this.rows(table).find(pred);
  }

  /** Every table's rows as value lists in column order. */
  toRows(): Map<string, SqlValue[][]> {
    const out = new Map<string, SqlValue[][]>();
    for (const [name, shape] of this.shapes) {
      out.set(
        name,
        this.rows(name).map((r) => shape.columns.map((c) => r[c] ?? null)),
      );
    }
    return out;
  }
}

/** A copy of every table's rows, to put back when a transaction fails. */
export type Snapshot = Map<string, Row[]>;

export function snapshot(t: Tables, tables: readonly string[]): Snapshot {
  return new Map(tables.map((n) => [n, t.rows(n).map((r) => ({ ...r }))]));
}

export function restore(t: Tables, s: Snapshot): void {
  for (const [n, rows] of s) {
    const live = t.rows(n);
    live.length = 0;
    live.push(...rows);
  }
}
