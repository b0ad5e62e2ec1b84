/**
 * `opm registry serve --database <file>`: the entrypoint of every SQLite index image. The database
 * is read once (never written: opm's migration in place is not done), turned into the catalog
 * `render` gives of it, and served by `opm serve`'s server.
 */
import path from 'node:path';
import { OpmError } from '../errors.js';
import { memoryQueries } from '../api/memory.js';
import type { ServedIndex } from '../api/queries.js';
import { convertToModelOrThrow } from '../model/convert.js';
import { looksLikeSqlite, readIndexDatabase } from '../sqlite/read.js';
import { serve, type ServeOptions } from './serve.js';

export interface RegistryServeOptions extends Omit<
  ServeOptions,
  'configDir' | 'index' | 'cacheDir' | 'cacheOnly'
> {
  /** The database file, as given (logged as `database`). */
  database: string;
  /** Problems opm logs as warnings and reads past (an icon that is not base64). */
  onWarning?: (message: string) => void;
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
    const cfg = readIndexDatabase(file, opts.onWarning === undefined ? {} : { onWarning: opts.onWarning });
    return Promise.resolve({
      queries: memoryQueries(convertToModelOrThrow(cfg), cfg.others),
      close: () => Promise.resolve(),
    });
  };
  const { database, onWarning: _w, ...rest } = opts;
  await serve({ ...rest, configDir: database, index: { load, fields: { database } } });
}
