/**
 * `opm registry add`: bundle images pulled, read, and added to an index database (made at schema
 * 13 when the file does not exist), as opm v1.73 adds them. The database is written once, whole,
 * at the end; when the add fails without --permissive it is left as it was.
 */
import { existsSync, statSync } from 'node:fs';
import { OpmError } from '../../errors.js';
import type { ImageSource } from '../../oci/image-source.js';
import { parseBundleDirSync } from '../../bundle/parse.js';
import {
  readDatabaseContent,
  refuseUnwritable,
  writeDatabaseContent,
  type DatabaseContent,
} from '../../sqlite/write/content.js';
import { bundleRecord, type BundleRecord } from './bundle-record.js';
import { addExitCode, populate, type AddMode, type PopulateFlags } from './populate.js';
import { migrateToNewest } from '../../sqlite/write/migrate-to-newest.js';
import { SqliteFormatError } from '../../sqlite/file.js';
import { newDatabaseContent } from '../../sqlite/write/schema-13.js';
import { RowStore } from '../../sqlite/write/row-store.js';

export type { AddMode } from './populate.js';

export interface RegistryAddOptions {
  /** The database file; made when missing (or empty). */
  database: string;
  /** Bundle image references, added in this order. */
  bundles: string[];
  mode: AddMode;
  /** Add what can be added and report the error as a warning. */
  permissive: boolean;
  /**
   * `--overwrite-latest`: a bundle whose CSV name heads its package's channels replaces that head
   * (replaces mode; the semver modes refuse it as already added).
   */
  overwriteLatest?: boolean;
  /** `--enable-alpha`: bundles with `olm.substitutesFor` are taken (opm's alpha substitutions). */
  enableAlpha?: boolean;
  imageSource: ImageSource;
  /** The time written in `schema_migrations` of a new database (default: now). */
  now?: Date;
  signal?: AbortSignal;
}

/** An add that failed, worded as opm words it, with the exit code opm gives it. */
export class RegistryAddError extends OpmError {
  readonly opmExitCode: number;
  constructor(message: string) {
    super(message);
    this.opmExitCode = addExitCode(message);
  }
}

export interface RegistryAddResult {
  /** With --permissive: the error the add met (what opm logs as a warning). */
  permissiveError?: string;
}

export function parseMode(mode: string): AddMode {
  switch (mode.toLowerCase()) {
    case 'replaces':
      return 'replaces';
    case 'semver':
      return 'semver';
    case 'semver-skippatch':
      return 'semver-skippatch';
    default:
      throw new OpmError(`Invalid channel update mode ${mode} specified`);
  }
}

/** The content of `file` (brought to schema 13), or a new schema-13 database when it is missing or empty. */
export function openOrCreate(file: string, now: Date): DatabaseContent {
  // Refused before any image is pulled, and again when written.
  refuseUnwritable(file);
  if (!existsSync(file) || statSync(file).size === 0) return newDatabaseContent(now);
  let content: DatabaseContent;
  try {
    content = readDatabaseContent(file);
  } catch (err) {
    // The reader's words say what is wrong, not with which file.
    if (err instanceof SqliteFormatError) throw new OpmError(`${file}: ${err.message}`, { cause: err });
    throw err;
  }
  migrateToNewest(content, file, now);
  return content;
}

/** Pull and read each bundle image, in order. */
export async function readBundles(
  refs: readonly string[],
  source: ImageSource,
  signal?: AbortSignal,
): Promise<BundleRecord[]> {
  const out: BundleRecord[] = [];
  for (const ref of refs) {
    const img = await source.pull(ref, signal === undefined ? {} : { signal });
    try {
      out.push(bundleRecord(parseBundleDirSync(img.root, signal === undefined ? {} : { signal }), ref));
    } finally {
      await img.release();
    }
  }
  return out;
}

/** Add the bundles to the content (changed in place); returns the error text when the add failed. */
export function addToContent(
  content: DatabaseContent,
  bundles: BundleRecord[],
  mode: AddMode,
  flags: PopulateFlags = {},
): string | undefined {
  const t = new RowStore(content);
  const err = populate(t, bundles, mode, flags);
  content.rows = t.toContent().rows;
  return err;
}

export async function registryAdd(o: RegistryAddOptions): Promise<RegistryAddResult> {
  const content = openOrCreate(o.database, o.now ?? new Date());
  let err: string | undefined;
  try {
    const bundles = await readBundles(o.bundles, o.imageSource, o.signal);
    err = addToContent(content, bundles, o.mode, {
      overwriteLatest: o.overwriteLatest === true,
      enableAlpha: o.enableAlpha === true,
    });
  } catch (e) {
    // opm reads the images inside the step --permissive forgives: a pull or parse error too.
    if (!(e instanceof OpmError) || !o.permissive) throw e;
    err = e.message;
  }
  if (err !== undefined && !o.permissive) throw new RegistryAddError(err);
  writeDatabaseContent(o.database, content);
  return err === undefined ? {} : { permissiveError: err };
}
