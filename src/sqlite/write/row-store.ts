/**
 * A database's rows held in memory for editing, with deletes that do what SQLite does around a
 * DELETE when foreign keys are on: ON DELETE CASCADE and SET NULL actions taken row by row, then
 * the table's AFTER DELETE triggers. SQLite runs triggers from their SQL; this store knows the
 * triggers an opm index database has (migration 7's api clean-up) and refuses to delete from a
 * table with any other trigger, rather than leave its work undone.
 */
import { SqliteFormatError, type SqlValue } from '../file.js';
import { splitTopLevel, tokenize, unquote } from '../database.js';
import type { DatabaseContent } from './content.js';
import { parseTable, type TableDef } from './schema.js';

interface ForeignKey {
  child: string;
  childCols: number[];
  parent: string;
  parentCols: number[];
  onDelete: 'cascade' | 'set null' | 'none';
}

interface Table {
  name: string;
  def: TableDef;
  /** Rows in rowid order; a deleted row becomes undefined (so positions stay put while deleting). */
  rows: (SqlValue[] | undefined)[];
}

/** SQL's `=`: NULL equals nothing; numbers by value; text and blobs byte for byte. */
export function sqlEquals(a: SqlValue, b: SqlValue): boolean {
  if (a === null || b === null) return false;
  if ((typeof a === 'number' || typeof a === 'bigint') && (typeof b === 'number' || typeof b === 'bigint'))
    return a == b;
  if (typeof a === 'string' && typeof b === 'string') return a === b;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b) === 0;
  return false;
}

/** The api clean-up triggers of migration 7: after a provider or requirer row goes, its api row may go. */
const API_CLEANUP = new Set(['api_provider_cleanup', 'api_requirer_cleanup']);

export class RowStore {
  private readonly content: DatabaseContent;
  private readonly tables = new Map<string, Table>();
  private readonly fks: ForeignKey[] = [];
  private readonly triggers = new Map<string, string[]>();

  constructor(content: DatabaseContent) {
    this.content = content;
    for (const o of content.objects) {
      if (o.type === 'table' && o.sql !== null) {
        const def = parseTable(o.name, o.sql);
        this.tables.set(o.name.toLowerCase(), {
          name: o.name,
          def,
          rows: [...(content.rows.get(o.name) ?? [])],
        });
      } else if (o.type === 'trigger') {
        const key = o.tableName.toLowerCase();
        this.triggers.set(key, [...(this.triggers.get(key) ?? []), o.name]);
      }
    }
    for (const o of content.objects) {
      if (o.type === 'table' && o.sql !== null) this.fks.push(...this.foreignKeys(o.name, o.sql));
    }
  }

  has(table: string): boolean {
    return this.tables.has(table.toLowerCase());
  }

  private table(name: string): Table {
    const t = this.tables.get(name.toLowerCase());
    if (t === undefined) throw new SqliteFormatError(`no such table: ${name}`);
    return t;
  }

  /** The position of `column` in `table`'s rows. */
  col(table: string, column: string): number {
    const i = this.table(table).def.columns.findIndex((c) => c.name.toLowerCase() === column.toLowerCase());
    if (i < 0) throw new SqliteFormatError(`no such column: ${table}.${column}`);
    return i;
  }

  /** How many columns `table` has. */
  width(table: string): number {
    return this.table(table).def.columns.length;
  }

  /** The live rows of `table`, in rowid order (none when there is no such table). */
  rows(table: string): SqlValue[][] {
    const t = this.tables.get(table.toLowerCase());
    return t === undefined ? [] : (t.rows.filter((r) => r !== undefined) as SqlValue[][]);
  }

  /** The first live row of `table` that `pred` accepts. */
  find(table: string, pred: (row: SqlValue[]) => boolean): SqlValue[] | undefined {
    for (const r of this.table(table).rows) if (r !== undefined && pred(r)) return r;
    return undefined;
  }

  /** A column's values by name, for readable predicates. */
  getter(table: string): (row: SqlValue[], column: string) => SqlValue {
    const t = this.table(table);
    const cache = new Map<string, number>();
    return (row, column) => {
      let i = cache.get(column);
      if (i === undefined) {
        i = this.col(t.name, column);
        cache.set(column, i);
      }
      return row[i] ?? null;
    };
  }

  /** `DELETE FROM table WHERE pred`: the matching rows found first, then deleted one at a time. */
  deleteWhere(table: string, pred: (row: SqlValue[]) => boolean, stack: readonly string[] = []): number {
    const t = this.tables.get(table.toLowerCase());
    if (t === undefined) throw new SqliteFormatError(`no such table: ${table}`);
    const hits: number[] = [];
    t.rows.forEach((r, i) => {
      if (r !== undefined && pred(r)) hits.push(i);
    });
    for (const i of hits) {
      const row = t.rows[i];
      if (row === undefined) continue;
      t.rows[i] = undefined;
      this.afterDelete(t, row, stack);
    }
    return hits.length;
  }

  private afterDelete(t: Table, old: SqlValue[], stack: readonly string[]): void {
    for (const fk of this.fks) {
      if (fk.parent.toLowerCase() !== t.name.toLowerCase() || fk.onDelete === 'none') continue;
      const key = fk.parentCols.map((c) => old[c] ?? null);
      if (key.some((v) => v === null)) continue;
      const match = (r: SqlValue[]): boolean =>
        fk.childCols.every((c, k) => sqlEquals(r[c] ?? null, key[k] ?? null));
      // A foreign key's action is a trigger of its own: it does not fire itself again.
      const id = `fk:${fk.child}:${fk.childCols.join(',')}`;
      if (stack.includes(id)) continue;
      if (fk.onDelete === 'cascade') this.deleteWhere(fk.child, match, [...stack, id]);
      else {
        const child = this.table(fk.child);
        child.rows.forEach((r, i) => {
          if (r === undefined || !match(r)) return;
          const next = [...r];
          for (const c of fk.childCols) next[c] = null;
          child.rows[i] = next;
        });
      }
    }
    for (const name of this.triggers.get(t.name.toLowerCase()) ?? []) {
      if (!API_CLEANUP.has(name))
        throw new SqliteFormatError(`cannot delete from ${t.name}: its trigger ${name} is not one opm makes`);
      if (stack.includes(name)) continue;
      this.apiCleanup(t, old, [...stack, name]);
    }
  }

  /**
   * Migration 7's trigger: unless some row of api_provider JOIN api_requirer (every pair, so none
   * when either table is empty) names the old row's API on either side, that API's row is deleted.
   */
  private apiCleanup(t: Table, old: SqlValue[], stack: string[]): void {
    const g = this.getter(t.name);
    const gvk = ['group_name', 'version', 'kind'].map((c) => g(old, c));
    const names = (table: string): ((r: SqlValue[]) => boolean) => {
      const get = this.getter(table);
      return (r) => ['group_name', 'version', 'kind'].every((c, k) => sqlEquals(get(r, c), gvk[k] ?? null));
    };
    const providers = this.rows('api_provider');
    const requirers = this.rows('api_requirer');
    const exists =
      (requirers.length > 0 && providers.some(names('api_provider'))) ||
      (providers.length > 0 && requirers.some(names('api_requirer')));
    if (!exists) this.deleteWhere('api', names('api'), stack);
  }

  /** The foreign keys a CREATE TABLE declares, as column positions. */
  private foreignKeys(table: string, sql: string): ForeignKey[] {
    const out: ForeignKey[] = [];
    const open = sql.indexOf('(');
    const close = sql.lastIndexOf(')');
    const child = this.table(table);
    const pos = (t: Table, names: string[]): number[] =>
      names.map((n) => {
        const i = t.def.columns.findIndex((c) => c.name.toLowerCase() === n.toLowerCase());
        if (i < 0) throw new SqliteFormatError(`foreign key of ${table}: no column ${n} in ${t.name}`);
        return i;
      });
    for (const def of splitTopLevel(sql.slice(open + 1, close))) {
      const tokens = tokenize(def);
      const lower = tokens.map((x) => x.toLowerCase());
      const ref = lower.indexOf('references');
      if (ref < 0) continue;
      let childNames: string[];
      const fkAt = lower.indexOf('foreign');
      if (fkAt >= 0 && lower[fkAt + 1] === 'key') childNames = list(tokens, fkAt + 2);
      else childNames = [unquote(tokens[0] as string)];
      const parentName = unquote(tokens[ref + 1] as string);
      const parent = this.tables.get(parentName.toLowerCase());
      if (parent === undefined) continue; // SQLite ignores a key to a missing table until it is used
      let parentNames = tokens[ref + 2] === '(' ? list(tokens, ref + 2) : [];
      if (parentNames.length === 0) {
        const rc = parent.def.rowidColumn;
        if (rc < 0) throw new SqliteFormatError(`foreign key of ${table} names no columns of ${parentName}`);
        parentNames = [parent.def.columns[rc]?.name as string];
      }
      const on = lower.indexOf('delete', ref);
      const action = on > 0 && lower[on - 1] === 'on' ? `${lower[on + 1]} ${lower[on + 2]}` : '';
      out.push({
        child: child.name,
        childCols: pos(child, childNames),
        parent: parent.name,
        parentCols: pos(parent, parentNames),
        onDelete: action.startsWith('cascade') ? 'cascade' : action === 'set null' ? 'set null' : 'none',
      });
    }
    return out;
  }

  /** `UPDATE table SET … WHERE pred`: each matching row replaced by `change` of a copy of it. */
  update(table: string, pred: (row: SqlValue[]) => boolean, change: (row: SqlValue[]) => void): number {
    const t = this.table(table);
    let n = 0;
    t.rows.forEach((r, i) => {
      if (r === undefined || !pred(r)) return;
      const next = [...r];
      change(next);
      t.rows[i] = next;
      n++;
    });
    return n;
  }

  /** `INSERT INTO table VALUES (…)`: a row after all others (the next rowid). */
  insert(table: string, values: SqlValue[]): void {
    this.table(table).rows.push(values);
  }

  /**
   * `INSERT INTO table (columns…) VALUES (…)`: the columns not given are NULL, and an INTEGER
   * PRIMARY KEY left NULL takes the largest rowid plus one, as SQLite gives it. Returns the row.
   */
  insertNamed(table: string, values: Readonly<Record<string, SqlValue>>): SqlValue[] {
    const t = this.table(table);
    const row = t.def.columns.map((c) => values[c.name.toLowerCase()] ?? null);
    const key = t.def.rowidColumn;
    if (key >= 0 && row[key] === null) {
      let max = 0;
      for (const r of t.rows) {
        const v = r?.[key];
        if (typeof v === 'number' && v > max) max = v;
      }
      row[key] = max + 1;
    }
    t.rows.push(row);
    return row;
  }

  /** `UPDATE table SET column = value` on one row this store gave; returns the row as it now is. */
  set(table: string, row: SqlValue[], column: string, value: SqlValue): SqlValue[] {
    const t = this.table(table);
    const i = t.rows.lastIndexOf(row);
    if (i < 0) throw new SqliteFormatError(`no such row in ${t.name}`);
    const next = [...row];
    next[this.col(table, column)] = value;
    t.rows[i] = next;
    return next;
  }

  /**
   * `INSERT OR REPLACE` on a key: rows with the same key values go (without triggers, as SQLite
   * does with recursive triggers off), the new row comes last.
   */
  insertOrReplace(table: string, values: SqlValue[], key: number[]): void {
    const t = this.table(table);
    t.rows = t.rows.map((r) =>
      r !== undefined && key.every((k) => sqlEquals(r[k] ?? null, values[k] ?? null)) ? undefined : r,
    );
    t.rows.push(values);
  }

  /** The state now, to go back to when a transaction fails (rows are never changed in place). */
  snapshot(): () => void {
    const saved = [...this.tables.values()].map((t): [Table, (SqlValue[] | undefined)[]] => [t, [...t.rows]]);
    return () => {
      for (const [t, rows] of saved) t.rows = rows;
    };
  }

  /** The content with the rows as they now are. */
  toContent(): DatabaseContent {
    const rows = new Map<string, SqlValue[][]>();
    for (const t of this.tables.values()) rows.set(t.name, this.rows(t.name));
    return { ...this.content, rows };
  }
}

/** The names inside `( … )` at tokens[at]. */
function list(tokens: string[], at: number): string[] {
  const out: string[] = [];
  for (let i = at + 1; i < tokens.length && tokens[i] !== ')'; i++) {
    if (tokens[i] !== ',') out.push(unquote(tokens[i] as string));
  }
  return out;
}
