/**
 * `opm registry serve --database <file>`: the entrypoint of every SQLite index image. The database
 * is opened read-only (never written: opm's migration in place is not done), its bundle rows read
 * when a call asks for them, and served by `opm serve`'s server, each RPC answered from its rows as
 * opm's SQLite querier answers (sqlite-serve/registry-queries.ts).
 */
import path from 'node:path';
import { OpmError } from '../errors.js';
import { goQuote } from '../go/fmt.js';
import type { ServedIndex } from '../catalog-queries/queries.js';
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
  /** `--timeout-seconds` as given: `infinite` (the default), or whole seconds up to 65535. */
  timeoutSeconds?: string;
}

/**
 * The seconds of `--timeout-seconds` (undefined: `infinite`), read as opm reads them (Go's
 * ParseUint in base 10 into 16 bits), its error's words kept.
 */
export function parseTimeoutSeconds(value: string): number | undefined {
  if (value === 'infinite') return undefined;
  const fail = (why: string): never => {
    throw new OpmError(`invalid --timeout-seconds: strconv.ParseUint: parsing ${goQuote(value)}: ${why}`, {
      hint: 'give a whole number of seconds from 0 to 65535, or infinite',
    });
  };
  if (!/^[0-9]+$/.test(value)) return fail('invalid syntax');
  const n = Number(value);
  return n > 65535 ? fail('value out of range') : n;
}

/** Serve the index database until `signal` fires. */
export async function registryServe(opts: RegistryServeOptions): Promise<void> {
  const timeout = opts.timeoutSeconds ?? 'infinite';
  const seconds = parseTimeoutSeconds(timeout);
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
      // Read page by page and kept open: the bundle rows are read when a call asks for them.
      const opened = SqliteDatabase.open(file, true);
      db = opened;
      const queries = new SqliteRegistryQueries(readRegistryRows(opened));
      return Promise.resolve({
        queries,
        close: () => {
          opened.close();
          return Promise.resolve();
        },
      });
    } catch (err) {
      db?.close();
      // The reader's words say what is wrong, not with which file.
      if (err instanceof OpmError && err.code === undefined && !err.message.includes(opts.database)) {
        throw new OpmError(`${opts.database}: ${err.message}`, {
          cause: err,
          ...(err.hint !== undefined ? { hint: err.hint } : {}),
        });
      }
      throw err;
    }
  };
  const { database, timeoutSeconds: _given, ...rest } = opts;
  const fields = { database, port: opts.port ?? '50051' };
  await serve({
    ...rest,
    configDir: database,
    index: {
      load,
      fields: { database },
      // opm's registry server logs no calls, and says how long it stays open before serving.
      logCalls: false,
      beforeServing: () => opts.log('info', `Keeping server open for ${timeout} seconds`, fields),
      ...(seconds === undefined ? {} : { stopAfterMs: seconds * 1000 }),
    },
  });
}
