/**
 * `registry rm`, `registry prune` and `registry prune-stranded`: an index database edited as opm
 * v1.73 edits it, then written whole (as its closing VACUUM would leave it) through a temporary
 * file renamed over the original. A change that cannot be made in full changes nothing: the file
 * keeps its bytes.
 */
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { OpmError } from '../errors.js';
import { SqliteFormatError } from '../sqlite/file.js';
import { NEWEST_SCHEMA } from '../sqlite/schema-version.js';
import { migrateToNewest } from '../sqlite/write/migrate-to-newest.js';
import { readDatabaseContent, writeDatabaseContent } from '../sqlite/write/content.js';
import { RowStore } from '../sqlite/write/row-store.js';
import { listPackages, removePackage, removeStrandedBundles } from '../sqlite/remove-packages.js';
import { deprecateTruncate } from '../sqlite/deprecate-truncate.js';

export interface RegistryEditResult {
  /** The packages removed, in the order they went. */
  removed: string[];
  /** What --permissive let pass. */
  warnings: string[];
}

/** Read the database for editing: present, writable, an index database (brought to the newest schema). */
function open(database: string, cwd: string): { file: string; store: RowStore } {
  const file = path.resolve(cwd, database);
  let isFile = false;
  try {
    isFile = statSync(file).isFile();
  } catch {
    throw new OpmError(`database ${database} does not exist`, {
      hint: 'name an existing index database with -d/--database',
    });
  }
  if (!isFile) throw new OpmError(`database ${database} is not a file`);
  try {
    accessSync(file, constants.R_OK | constants.W_OK);
    accessSync(path.dirname(file), constants.W_OK);
  } catch {
    throw new OpmError(`database ${database} is read-only: attempt to write a readonly database`, {
      hint: 'make the file and its directory writable, or edit a copy',
    });
  }
  let store: RowStore;
  try {
    const content = readDatabaseContent(file);
    // Below schema 13 opm migrates the database first: so does opm-ts (9 to 12).
    if (content.rows.has('schema_migrations')) migrateToNewest(content, database, new Date());
    store = new RowStore(content);
  } catch (err) {
    if (err instanceof SqliteFormatError) throw new OpmError(`${database}: ${err.message}`);
    throw err;
  }
  for (const t of [
    'operatorbundle',
    'package',
    'channel',
    'channel_entry',
    'properties',
    'deprecated',
    'schema_migrations',
  ]) {
    if (!store.has(t))
      throw new OpmError(
        `${database}: not an opm index database at schema ${NEWEST_SCHEMA} (table ${t} is missing)`,
      );
  }
  const version = Number(
    store.rows('schema_migrations')[0]?.[store.col('schema_migrations', 'version')] ?? -1,
  );
  if (version !== NEWEST_SCHEMA) {
    throw new OpmError(
      `${database}: database schema version ${version}, opm-ts edits version ${NEWEST_SCHEMA} only`,
      {
        hint: 'migrate it first with opm v1.73 (any registry verb on it), or render it to a File-Based Catalog with `opm migrate`',
      },
    );
  }
  return { file, store };
}

function removeAll(store: RowStore, packages: string[], permissive: boolean): RegistryEditResult {
  const result: RegistryEditResult = { removed: [], warnings: [] };
  const failed: string[] = [];
  for (const pkg of packages) {
    try {
      removePackage(store, pkg);
      result.removed.push(pkg);
    } catch (err) {
      if (!(err instanceof OpmError)) throw err;
      const message = `error deleting packages from database: error removing operator package ${pkg}: ${err.message}`;
      if (permissive) result.warnings.push(message);
      else failed.push(pkg);
    }
  }
  if (failed.length > 0) {
    throw new OpmError(
      `error deleting packages from database: no package found for packagename ${failed.join(', ')}; nothing was changed`,
      { hint: 'name packages the database holds, or pass --permissive to remove the others' },
    );
  }
  return result;
}

/** The package names of `-o`: each comma-separated, empty ones and repeats dropped. */
export function packageList(values: readonly string[]): string[] {
  return [...new Set(values.flatMap((v) => v.split(',')).filter((p) => p !== ''))];
}

export interface RegistryRmOptions {
  database: string;
  packages: string[];
  permissive: boolean;
  cwd: string;
}

/** `opm registry rm`: the packages, then whatever their removal strands. */
export function registryRm(opts: RegistryRmOptions): RegistryEditResult {
  const { file, store } = open(opts.database, opts.cwd);
  const result = removeAll(store, packageList(opts.packages), opts.permissive);
  removeStrandedBundles(store);
  writeDatabaseContent(file, store.toContent());
  return result;
}

export interface RegistryPruneOptions {
  database: string;
  /** The packages kept; every other one goes. */
  keep: string[];
  permissive: boolean;
  cwd: string;
}

/** `opm registry prune`: every package not kept. */
export function registryPrune(opts: RegistryPruneOptions): RegistryEditResult {
  const { file, store } = open(opts.database, opts.cwd);
  const keep = new Set(opts.keep);
  const result = removeAll(
    store,
    listPackages(store).filter((p) => !keep.has(p)),
    opts.permissive,
  );
  writeDatabaseContent(file, store.toContent());
  return result;
}

/** `opm registry prune-stranded`: bundles no package's channel reaches. */
export function registryPruneStranded(opts: { database: string; cwd: string }): RegistryEditResult {
  const { file, store } = open(opts.database, opts.cwd);
  removeStrandedBundles(store);
  writeDatabaseContent(file, store.toContent());
  return { removed: [], warnings: [] };
}

export interface RegistryDeprecateTruncateOptions {
  database: string;
  /** Bundle images (bundlepaths) to deprecate. */
  images: string[];
  permissive: boolean;
  allowPackageRemoval: boolean;
  cwd: string;
}

/** `opm registry deprecatetruncate`: the bundles deprecated, what they replace truncated. */
export function registryDeprecateTruncate(opts: RegistryDeprecateTruncateOptions): RegistryEditResult {
  const { file, store } = open(opts.database, opts.cwd);
  const warnings = deprecateTruncate(store, {
    images: opts.images,
    permissive: opts.permissive,
    allowPackageRemoval: opts.allowPackageRemoval,
  });
  writeDatabaseContent(file, store.toContent());
  return { removed: [], warnings };
}
