/**
 * The rows `opm registry serve` answers from, read once from an index database and indexed the way
 * its SQL queries reach them: packages and channels by name, channel entries by id and by bundle,
 * bundles by name, the per-bundle tables by bundle in table (rowid) order, plurals by GVK. A
 * database at schema 8 is read as migration 9 would leave it (schema-8.ts).
 */
import { compareUtf8 } from '../go/utf8.js';
import type { Row, SqliteDatabase } from './database.js';
import type { CellRef } from './file.js';
import { channelEntryRow, text, type ChannelEntryRow } from './channel-rows.js';
import { readableSchema } from './schema-version.js';
import {
  dependenciesAfterMigration9,
  dependenciesFromRequiredApis,
  propertiesFromProvidedApis,
} from './schema-8.js';

/** A row of `properties` or `dependencies` (NULL as null). */
export interface PerBundleRow {
  type: string | null;
  value: string | null;
  /**
   * The value is stored as a BLOB (migration 9 binds Go's []byte): it reads as its text but is
   * never equal to a text in SQL, so the provider queries never match it.
   */
  blob?: boolean;
  version: string | null;
  path: string | null;
}

export interface BundleRow {
  name: string;
  csv: string | null;
  /** The manifests, JSON objects one after another, as bytes (the largest column by far). */
  bundle: Uint8Array | null;
  bundlepath: string | null;
  version: string | null;
  skiprange: string | null;
}

export interface ChannelRow {
  name: string | null;
  pkg: string | null;
  head: string | null;
}

export interface RegistryRows {
  /** Package names in the order of the table's primary key (byte order), NULL left out. */
  packageNames: string[];
  defaultChannel: Map<string, string | null>;
  /** Channels in the order of their primary key index: name, then package (NULL first). */
  channels: ChannelRow[];
  /** Every channel entry in rowid order. */
  entries: ChannelEntryRow[];
  entryById: Map<number, ChannelEntryRow>;
  /** The entries of each bundle name, in rowid order. */
  entriesOfBundle: Map<string, ChannelEntryRow[]>;
  bundles: Map<string, BundleRow>;
  properties: Map<string, PerBundleRow[]>;
  dependencies: Map<string, PerBundleRow[]>;
  /** Each property row in rowid order with its bundle name (the provider queries scan them). */
  propertyScan: { name: string; type: string | null; value: string | null; blob?: boolean }[];
  /** api.plural by JSON [group, version, kind]. */
  plurals: Map<string, string>;
}

const nullFirst = (a: string | null, b: string | null): number =>
  a === null ? (b === null ? 0 : -1) : b === null ? 1 : compareUtf8(a, b);

export const gvkKey = (group: string, version: string, kind: string): string =>
  JSON.stringify([group, version, kind]);

/** A per-bundle table grouped by bundle; each row also added to `scan` (in rowid order) when given. */
function perBundle(
  db: SqliteDatabase,
  table: string,
  scan?: RegistryRows['propertyScan'],
): Map<string, PerBundleRow[]> {
  const out = new Map<string, PerBundleRow[]>();
  for (const r of db.rows(table)) {
    const name = text(r.operatorbundle_name);
    if (name === null) continue;
    const row: PerBundleRow = {
      type: text(r.type),
      value: text(r.value),
      version: text(r.operatorbundle_version),
      path: text(r.operatorbundle_path),
    };
    scan?.push({ name, type: row.type, value: row.value });
    const list = out.get(name);
    if (list === undefined) out.set(name, [row]);
    else list.push(row);
  }
  return out;
}

function bundleRow(r: Row): BundleRow {
  const raw = r.bundle;
  return {
    name: text(r.name) as string,
    csv: text(r.csv),
    bundle:
      raw instanceof Uint8Array ? raw : raw === null || raw === undefined ? null : Buffer.from(String(raw)),
    bundlepath: text(r.bundlepath),
    version: text(r.version),
    skiprange: text(r.skiprange),
  };
}

/**
 * Rows read when asked for: the last few kept, since one answer reads several fields of the same
 * row. The manifests are most of the database; reading them all before serving took most of the
 * start-up (docs/performance.md, "SQLite index databases").
 */
class RowsOnDemand {
  private readonly recent = new Map<string, BundleRow>();
  private readonly db: SqliteDatabase;
  constructor(db: SqliteDatabase) {
    this.db = db;
  }
  get(name: string, ref: CellRef): BundleRow {
    let r = this.recent.get(name);
    if (r === undefined) {
      r = bundleRow(this.db.rowAt('operatorbundle', ref, ['bundle']));
      if (this.recent.size >= 8) this.recent.delete(this.recent.keys().next().value as string);
      this.recent.set(name, r);
    }
    return r;
  }
}

/** A bundle row whose fields are read from the database when first used (RowsOnDemand). */
class StoredBundleRow implements BundleRow {
  readonly name: string;
  private readonly ref: CellRef;
  private readonly rows: RowsOnDemand;
  constructor(name: string, ref: CellRef, rows: RowsOnDemand) {
    this.name = name;
    this.ref = ref;
    this.rows = rows;
  }
  private get row(): BundleRow {
    return this.rows.get(this.name, this.ref);
  }
  get csv(): string | null {
    return this.row.csv;
  }
  get bundle(): Uint8Array | null {
    return this.row.bundle;
  }
  get bundlepath(): string | null {
    return this.row.bundlepath;
  }
  get version(): string | null {
    return this.row.version;
  }
  get skiprange(): string | null {
    return this.row.skiprange;
  }
}

/**
 * The bundle rows by name (the first row of a name wins): only the names are read now when the
 * name is the table's first column and lies in its cell's page, as in every database opm writes.
 */
function readBundleRows(db: SqliteDatabase): Map<string, BundleRow> {
  const bundles = new Map<string, BundleRow>();
  const onDemand = new RowsOnDemand(db);
  const byName = db.firstColumn('operatorbundle') === 'name';
  for (const { ref, first } of db.rowRefs('operatorbundle')) {
    const name = byName && typeof first === 'string' ? first : text(db.rowAt('operatorbundle', ref).name);
    if (name === null || bundles.has(name)) continue;
    bundles.set(name, new StoredBundleRow(name, ref, onDemand));
  }
  return bundles;
}

/** Schema 8's rows as migrations 8 and 9 leave them: no version or path (they match any bundle row). */
function migrated(
  m: Map<string, { type: string; value: string }[]>,
  blob: boolean,
): Map<string, PerBundleRow[]> {
  return new Map(
    [...m].map(([name, list]) => [name, list.map((t) => ({ ...t, version: null, path: null, blob }))]),
  );
}

/**
 * Read every table the registry's queries use, the bundle rows' fields when first used: `db` must
 * stay open while the rows are. Throws OpmError for a schema this reader does not take.
 */
export function readRegistryRows(db: SqliteDatabase): RegistryRows {
  const schema = readableSchema(db);
  const defaultChannel = new Map<string, string | null>();
  for (const r of db.rows('package')) {
    const name = text(r.name);
    if (name !== null && !defaultChannel.has(name)) defaultChannel.set(name, text(r.default_channel));
  }
  const channels: ChannelRow[] = [...db.rows('channel')]
    .map((r) => ({
      name: text(r.name),
      pkg: text(r.package_name),
      head: text(r.head_operatorbundle_name),
    }))
    .sort((a, b) => nullFirst(a.name, b.name) || nullFirst(a.pkg, b.pkg));
  const entries = [...db.rows('channel_entry')].map(channelEntryRow).sort((a, b) => a.id - b.id);
  const entryById = new Map<number, ChannelEntryRow>();
  const entriesOfBundle = new Map<string, ChannelEntryRow[]>();
  for (const e of entries) {
    entryById.set(e.id, e);
    if (e.bundle === null) continue;
    const list = entriesOfBundle.get(e.bundle);
    if (list === undefined) entriesOfBundle.set(e.bundle, [e]);
    else list.push(e);
  }
  const bundles = readBundleRows(db);
  let properties: Map<string, PerBundleRow[]>;
  let dependencies: Map<string, PerBundleRow[]>;
  const propertyScan: RegistryRows['propertyScan'] = [];
  if (schema < 9) {
    properties = migrated(propertiesFromProvidedApis(db), true);
    const stored = new Map<string, { type: string; value: string }[]>();
    if (schema < 8) for (const [name, list] of dependenciesFromRequiredApis(db)) stored.set(name, list);
    else
      for (const [name, list] of perBundle(db, 'dependencies'))
        stored.set(
          name,
          list.map((d) => ({ type: d.type ?? '', value: d.value ?? 'null' })),
        );
    dependencies = migrated(dependenciesAfterMigration9(stored), false);
    for (const [name, list] of properties)
      for (const p of list) propertyScan.push({ name, type: p.type, value: p.value, blob: true });
  } else {
    // One pass over properties gives both the per-bundle lists and the scan the provider queries use.
    properties = perBundle(db, 'properties', propertyScan);
    dependencies = perBundle(db, 'dependencies');
  }
  const plurals = new Map<string, string>();
  for (const r of db.rows('api')) {
    const [g, v, k, p] = [r.group_name, r.version, r.kind, r.plural].map(text);
    if (g === null || v === null || k === null || p === null || g === undefined) continue;
    plurals.set(gvkKey(g, v as string, k as string), p as string);
  }
  const packageNames = [...defaultChannel.keys()].sort(compareUtf8);
  return {
    packageNames,
    defaultChannel,
    channels,
    entries,
    entryById,
    entriesOfBundle,
    bundles,
    properties,
    dependencies,
    propertyScan,
    plurals,
  };
}
