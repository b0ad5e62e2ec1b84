/**
 * What every step of `registry add` shares: its error, worded as opm words it, and the row lookup
 * the steps make (one module, so the steps that call each other do not import in a circle).
 */
import type { SqlValue } from '../../sqlite/file.js';
import type { RowStore } from '../../sqlite/write/row-store.js';

/** An error of one step, worded as opm words it. */
export class AddError extends Error {}

/** The first row of `table` whose column `column` holds `value`. */
export function findBy(t: RowStore, table: string, column: string, value: SqlValue): SqlValue[] | undefined {
  const c = t.col(table, column);
  return t.find(table, (r) => r[c] === value);
}
