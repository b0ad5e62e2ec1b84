/**
 * `opm registry serve --database <file>`: the entrypoint of every SQLite index image. The database
 * is read once (never written: opm's migration in place is not done) and served by `opm serve`'s
 * server, each RPC answered from its rows as opm's SQLite querier answers (sqlite-serve/registry-queries.ts).
 */
import path from 'node:path';
import { OpmError } from '../errors.js';
import type { ServedIndex } from '../api/queries.js';
import { looksLikeSqlite } from '../sqlite/read.js';
import { SqliteDatabase } from '../sqlite/database.js';
import { readRegistryRows } from '../sqlite/registry-rows.js';
import { SqliteRegistryQueries } from '../sqlite-serve/registry-queries.js';
import { serve, type ServeOptions } from './serve.js';

export interface RegistryServeOptions extends Omit<
  ServeOptions,
  'configDir' | 'index' | 'cacheDir' | 'cacheOnly'
> {
  /** The database file, as given (logged as `database`). */
  database: string;
}

/** Serve the index database until `signal` fires. */
export async function registryServe(opts: RegistryServeOptions): Promise<void> {
  const file = path.resolve(opts.cwd ?? '', opts.database);
  const load = (): Promise<ServedIndex> => {
    let sqlite: boolean;
    try {
      sqlite = looksLikeSqlite(file);
    } catch (err) {
      throw new OpmError(`open ${opts.database}: ${err instanceof Error ? err.message : String(err)}`, {
        cause: err,
      });
    }
    if (!sqlite) throw new OpmError(`${opts.database} is not a SQLite database`);
    let db: SqliteDatabase | undefined;
    try {
      db = SqliteDatabase.open(file);
      const queries = new SqliteRegistryQueries(readRegistryRows(db));
      return Promise.resolve({ queries, close: () => Promise.resolve() });
    } catch (err) {
      // The reader's words say what is wrong, not with which file.
      if (err instanceof OpmError && err.code === undefined && !err.message.includes(opts.database)) {
        throw new OpmError(`${opts.database}: ${err.message}`, {
          cause: err,
          ...(err.hint !== undefined ? { hint: err.hint } : {}),
        });
      }
      throw err;
    } finally {
      db?.close();
    }
  };
  const { database, ...rest } = opts;
  const fields = { database, port: opts.port ?? '50051' };
  await serve({
    ...rest,
    configDir: database,
    index: {
      load,
      fields: { database },
      // opm's registry server logs no calls, and says how long it stays open before serving.
      logCalls: false,
      beforeServing: () => opts.log('info', 'Keeping server open for infinite seconds', fields),
    },
  });
}
