/**
 * What the writer needs from a schema's SQL text: a table's columns (name, affinity, collation),
 * which column is the rowid, the indexes SQLite makes by itself for PRIMARY KEY and UNIQUE
 * constraints (`sqlite_autoindex_<table>_<n>`, numbered in the order the constraints are written,
 * a constraint on the same columns as an earlier one making none), and the key columns of a
 * CREATE INDEX statement.
 */
import { SqliteFormatError } from '../file.js';
import { splitTopLevel, tokenize, unquote } from '../database.js';
import type { Collation } from './record.js';

/** One row of `sqlite_master`. */
export interface SchemaObject {
  type: 'table' | 'index' | 'view' | 'trigger';
  name: string;
  tableName: string;
  /** NULL for the indexes SQLite makes for constraints. */
  sql: string | null;
}

/** How SQLite converts a value stored in a column (https://www.sqlite.org/datatype3.html). */
export type Affinity = 'text' | 'numeric' | 'integer' | 'real' | 'blob';

export interface ColumnDef {
  name: string;
  /** The declared type as written (words joined by one space). */
  type: string;
  affinity: Affinity;
  collation: Collation;
}

export interface TableDef {
  name: string;
  columns: ColumnDef[];
  /** The INTEGER PRIMARY KEY column, whose value is the rowid; -1 when none. */
  rowidColumn: number;
}

/** A column of an index key, by name, with its direction and (when given) its collation. */
export interface IndexColumn {
  name: string;
  desc: boolean;
  collation?: Collation;
}

export interface AutoIndex {
  name: string;
  columns: IndexColumn[];
  unique: true;
}

const CONSTRAINT_WORDS = new Set(['primary', 'foreign', 'unique', 'check', 'constraint']);
const COLUMN_CONSTRAINT_WORDS = new Set([
  'constraint',
  'primary',
  'not',
  'null',
  'unique',
  'check',
  'default',
  'collate',
  'references',
  'generated',
  'as',
]);

function unsupported(what: string): SqliteFormatError {
  return new SqliteFormatError(`cannot write ${what}`);
}

function collationOf(name: string | undefined): Collation {
  const c = unquote(name ?? '').toLowerCase();
  if (c === 'binary' || c === 'nocase' || c === 'rtrim') return c;
  throw unsupported(`a key with collation ${name ?? ''}`);
}

/** SQLite's rules for a column's affinity from its declared type. */
function affinityOf(type: string): Affinity {
  const t = type.toUpperCase();
  if (t.includes('INT')) return 'integer';
  if (t.includes('CHAR') || t.includes('CLOB') || t.includes('TEXT')) return 'text';
  if (t === '' || t.includes('BLOB')) return 'blob';
  if (t.includes('REAL') || t.includes('FLOA') || t.includes('DOUB')) return 'real';
  return 'numeric';
}

function body(sql: string): string {
  const open = sql.indexOf('(');
  const close = sql.lastIndexOf(')');
  if (open < 0 || close < open)
    throw new SqliteFormatError(`unreadable table definition: ${sql.slice(0, 80)}`);
  if (/\)\s*without\s+rowid\s*;?\s*$/i.test(sql))
    throw unsupported(`a WITHOUT ROWID table (${sql.slice(0, 80)})`);
  if (/^\s*create\s+virtual/i.test(sql)) throw unsupported(`a virtual table (${sql.slice(0, 80)})`);
  return sql.slice(open + 1, close);
}

/** The columns named inside `(…)` starting at tokens[at]; the index after the closing parenthesis. */
function columnList(tokens: string[], at: number): [IndexColumn[], number] {
  if (tokens[at] !== '(')
    throw new SqliteFormatError(`expected a column list at "${tokens.slice(at).join(' ')}"`);
  const cols: IndexColumn[] = [];
  let i = at + 1;
  let part: string[] = [];
  const finish = (): void => {
    const [name, ...rest] = part;
    if (name === undefined) throw new SqliteFormatError('empty column in a key');
    let collation: Collation | undefined;
    let desc = false;
    for (let j = 0; j < rest.length; j++) {
      const w = (rest[j] as string).toLowerCase();
      if (w === 'collate') collation = collationOf(rest[++j]);
      else if (w === 'desc') desc = true;
      else if (w !== 'asc') throw unsupported(`an index on an expression (${part.join(' ')})`);
    }
    cols.push({ name: unquote(name), desc, ...(collation === undefined ? {} : { collation }) });
    part = [];
  };
  for (; i < tokens.length; i++) {
    const t = tokens[i] as string;
    if (t === ')') {
      finish();
      return [cols, i + 1];
    }
    if (t === '(') throw unsupported(`an index on an expression (${tokens.slice(at).join(' ')})`);
    if (t === ',') finish();
    else part.push(t);
  }
  throw new SqliteFormatError('unclosed column list');
}

interface Parsed {
  table: TableDef;
  autoIndexes: { columns: IndexColumn[]; pk: boolean }[];
}

function parse(name: string, sql: string): Parsed {
  const columns: ColumnDef[] = [];
  const keys: { columns: IndexColumn[]; pk: boolean }[] = [];
  let rowidColumn = -1;
  for (const def of splitTopLevel(body(sql))) {
    const tokens = tokenize(def);
    const first = tokens[0];
    if (first === undefined) continue;
    const lower = tokens.map((t) => t.toLowerCase());
    if (CONSTRAINT_WORDS.has(lower[0] as string)) {
      const i = lower[0] === 'constraint' ? 2 : 0;
      if (lower[i] === 'primary' && lower[i + 1] === 'key') {
        keys.push({ columns: columnList(tokens, i + 2)[0], pk: true });
      } else if (lower[i] === 'unique') {
        keys.push({ columns: columnList(tokens, i + 1)[0], pk: false });
      }
      continue;
    }
    const colName = unquote(first);
    let t = 1;
    const typeWords: string[] = [];
    while (t < tokens.length && !COLUMN_CONSTRAINT_WORDS.has(lower[t] as string))
      typeWords.push(tokens[t++] as string);
    const type = typeWords.join(' ');
    let collation: Collation = 'binary';
    for (let j = t; j < tokens.length; j++) {
      const w = lower[j];
      if (w === 'collate') collation = collationOf(tokens[++j]);
      else if (w === 'primary' && lower[j + 1] === 'key') {
        const desc = lower[j + 2] === 'desc';
        if (type.toLowerCase() === 'integer' && !desc) rowidColumn = columns.length;
        else keys.push({ columns: [{ name: colName, desc }], pk: true });
      } else if (w === 'unique') keys.push({ columns: [{ name: colName, desc: false }], pk: false });
      else if (w === 'default' || w === 'check' || w === 'references' || w === 'as') {
        // Skip a parenthesised expression or a single value, so that its words are not read as constraints.
        if (tokens[j + 1] === '(' || (w === 'references' && tokens[j + 2] === '(')) {
          let depth = 0;
          j += w === 'references' ? 2 : 1;
          for (; j < tokens.length; j++) {
            if (tokens[j] === '(') depth++;
            else if (tokens[j] === ')' && --depth === 0) break;
          }
        } else if (w !== 'references') j++;
      }
    }
    columns.push({ name: colName, type, affinity: affinityOf(type), collation });
  }
  // A table constraint PRIMARY KEY(x) on a lone INTEGER column makes it the rowid, as the column form does.
  const table: TableDef = { name, columns, rowidColumn };
  const out: Parsed['autoIndexes'] = [];
  for (const k of keys) {
    if (k.pk && k.columns.length === 1 && rowidColumn < 0) {
      const c = columns.find((c) => c.name.toLowerCase() === k.columns[0]?.name.toLowerCase());
      if (c !== undefined && c.type.toLowerCase() === 'integer' && k.columns[0]?.desc !== true) {
        table.rowidColumn = columns.indexOf(c);
        continue;
      }
    }
    const same = out.find((o) => sameKey(o.columns, k.columns, columns));
    if (same === undefined) out.push(k);
  }
  return { table, autoIndexes: out };
}

function sameKey(a: IndexColumn[], b: IndexColumn[], cols: ColumnDef[]): boolean {
  const coll = (c: IndexColumn): string =>
    c.collation ?? cols.find((d) => d.name.toLowerCase() === c.name.toLowerCase())?.collation ?? 'binary';
  return (
    a.length === b.length &&
    a.every((c, i) => {
      const d = b[i] as IndexColumn;
      return c.name.toLowerCase() === d.name.toLowerCase() && coll(c) === coll(d);
    })
  );
}

/** A table's columns and rowid column from its CREATE TABLE text. */
export function parseTable(name: string, sql: string): TableDef {
  return parse(name, sql).table;
}

/**
 * The indexes SQLite makes for a table's PRIMARY KEY (unless it is the rowid) and UNIQUE
 * constraints, named as SQLite names them, with their key columns: the `sqlite_master` rows (sql
 * NULL) that follow the table's own.
 */
export function autoIndexes(tableName: string, createSql: string): AutoIndex[] {
  return parse(tableName, createSql).autoIndexes.map((k, i) => ({
    name: `sqlite_autoindex_${tableName}_${i + 1}`,
    columns: k.columns,
    unique: true,
  }));
}

/** The schema objects a CREATE TABLE statement makes: the table, then its automatic indexes. */
export function tableObjects(tableName: string, createSql: string): SchemaObject[] {
  return [
    { type: 'table', name: tableName, tableName, sql: createSql },
    ...autoIndexes(tableName, createSql).map((a): SchemaObject => ({
      type: 'index',
      name: a.name,
      tableName,
      sql: null,
    })),
  ];
}

export interface IndexDef {
  name: string;
  tableName: string;
  columns: IndexColumn[];
  unique: boolean;
}

/** A CREATE INDEX statement's table and key columns; partial and expression indexes are refused. */
export function parseIndex(name: string, sql: string): IndexDef {
  const tokens = tokenize(sql);
  const lower = tokens.map((t) => t.toLowerCase());
  const on = lower.indexOf('on');
  if (lower[0] !== 'create' || on < 0)
    throw new SqliteFormatError(`unreadable index definition: ${sql.slice(0, 80)}`);
  const tableName = unquote(tokens[on + 1] as string);
  const [columns, after] = columnList(tokens, on + 2);
  if (after < tokens.length && lower[after] !== ';')
    throw unsupported(`a partial index (${sql.slice(0, 80)})`);
  return { name, tableName, columns, unique: lower[1] === 'unique' };
}
