// Index databases made with the sqlite3 command line at a chosen schema version (5 to 13, and a
// version newer than opm knows), from our own SQL of opm's documented tables: what `registry add`
// would have left at that version. Tests that use it are skipped, loudly, without sqlite3.
import { spawnSync } from 'node:child_process';

export const haveSqlite3 = spawnSync('sqlite3', ['-version'], { encoding: 'utf8' }).status === 0;
if (!haveSqlite3)
  console.warn('sqlite3 is not installed: the tests that make index databases with it are skipped');

/** The tables of a database at `version` (the columns and tables each migration added). */
export function schemaSql(version: number): string {
  const bundleColumns = [
    'name TEXT PRIMARY KEY',
    'csv TEXT',
    'bundle TEXT',
    // Migration 2's column, then migration 5's.
    ...(version >= 2 ? ['bundlepath TEXT'] : []),
    ...(version >= 5 ? ['skiprange TEXT', 'version TEXT'] : []),
    // Migration 7's columns.
    ...(version >= 7 ? ['replaces TEXT', 'skips TEXT'] : []),
    ...(version >= 11 ? ['substitutesfor TEXT'] : []),
  ];
  const perBundle = (t: string): string =>
    `CREATE TABLE ${t} (type TEXT, value TEXT, operatorbundle_name TEXT, operatorbundle_version TEXT, operatorbundle_path TEXT);`;
  return [
    `CREATE TABLE operatorbundle (${bundleColumns.join(', ')});`,
    // Migration 6's index: the key the per-bundle tables' foreign keys name.
    ...(version >= 6 ? ['CREATE UNIQUE INDEX pk ON operatorbundle(name, version, bundlepath);'] : []),
    'CREATE TABLE package (name TEXT PRIMARY KEY, default_channel TEXT);',
    'CREATE TABLE channel (name TEXT, package_name TEXT, head_operatorbundle_name TEXT, PRIMARY KEY(name, package_name));',
    'CREATE TABLE channel_entry (entry_id INTEGER PRIMARY KEY, channel_name TEXT, package_name TEXT, operatorbundle_name TEXT, replaces INTEGER, depth INTEGER);',
    'CREATE TABLE api (group_name TEXT, version TEXT, kind TEXT, plural TEXT NOT NULL, PRIMARY KEY(group_name, version, kind));',
    // Before migration 6 the API tables name a channel entry, not a bundle.
    // api_requirer from migration 3 on.
    ...(version >= 3 ? ['api_provider', 'api_requirer'] : ['api_provider']).map((t) =>
      version >= 6
        ? `CREATE TABLE ${t} (group_name TEXT, version TEXT, kind TEXT, operatorbundle_name TEXT, operatorbundle_version TEXT, operatorbundle_path TEXT);`
        : `CREATE TABLE ${t} (group_name TEXT, version TEXT, kind TEXT, channel_entry_id INTEGER);`,
    ),
    ...(version >= 1 ? ['CREATE TABLE related_image (image TEXT, operatorbundle_name TEXT);'] : []),
    ...(version >= 8 ? [perBundle('dependencies')] : []),
    ...(version >= 9 ? [perBundle('properties')] : []),
    ...(version >= 12 ? ['CREATE TABLE deprecated (operatorbundle_name TEXT PRIMARY KEY);'] : []),
    'CREATE TABLE schema_migrations (version bigint NOT NULL, timestamp DATETIME DEFAULT CURRENT_TIMESTAMP);',
    `INSERT INTO schema_migrations(version) VALUES (${version});`,
  ].join('\n');
}

const q = (s: string | null): string => (s === null ? 'NULL' : `'${s.replaceAll("'", "''")}'`);

export interface DbBundle {
  name: string;
  pkg: string;
  version: string;
  image: string;
  channels: string[];
  replaces?: string;
  skipRange?: string;
  csv?: Record<string, unknown>;
}

/** Rows for a small package: the bundles in order, each replacing the one before in every channel. */
export function rowsSql(pkg: string, defaultChannel: string, bundles: DbBundle[], version = 13): string {
  const out: string[] = [`INSERT INTO package VALUES (${q(pkg)}, ${q(defaultChannel)});`];
  const channels = [...new Set(bundles.flatMap((b) => b.channels))];
  let id = 1;
  const entryIds = new Map<string, number[]>();
  if (version < 6) {
    // Migration 6 copies the API tables into ones whose foreign keys name the api table's rows.
    out.push(
      `INSERT INTO api VALUES (${q(`${pkg}.example.com`)}, 'v1', 'Thing', 'things'), ('other.example.com', 'v1', 'Need', 'needs');`,
    );
  }
  for (const ch of channels) {
    const inCh = bundles.filter((b) => b.channels.includes(ch));
    const head = inCh[inCh.length - 1];
    out.push(`INSERT INTO channel VALUES (${q(ch)}, ${q(pkg)}, ${q(head?.name ?? null)});`);
    // Head first, depth 0, each entry replacing the next one down.
    const ids = inCh.map(() => id++);
    inCh.forEach((b, i) => entryIds.set(b.name, [...(entryIds.get(b.name) ?? []), ids[i] as number]));
    inCh
      .slice()
      .reverse()
      .forEach((b, depth) => {
        const entry = ids[inCh.length - 1 - depth] as number;
        const replaced = depth + 1 < inCh.length ? ids[inCh.length - 2 - depth] : undefined;
        out.push(
          `INSERT INTO channel_entry VALUES (${entry}, ${q(ch)}, ${q(pkg)}, ${q(b.name)}, ${replaced ?? 'NULL'}, ${depth});`,
        );
      });
  }
  for (const b of bundles) {
    const csv = JSON.stringify(
      b.csv ?? {
        apiVersion: 'operators.coreos.com/v1alpha1',
        kind: 'ClusterServiceVersion',
        metadata: { name: b.name },
        spec: { version: b.version },
      },
    );
    const cols = [q(b.name), q(csv), q(csv)];
    if (version >= 2) cols.push(q(b.image));
    if (version >= 5) cols.push(q(b.skipRange ?? ''), q(b.version));
    if (version >= 7) cols.push(q(b.replaces ?? ''), q(''));
    if (version >= 11) cols.push('NULL');
    out.push(`INSERT INTO operatorbundle VALUES (${cols.join(', ')});`);
    const gvk = { group: `${pkg}.example.com`, kind: 'Thing', version: 'v1' };
    if (version >= 9) {
      out.push(
        `INSERT INTO properties VALUES ('olm.package', ${q(JSON.stringify({ packageName: pkg, version: b.version }))}, ${q(b.name)}, ${q(b.version)}, ${q(b.image)});`,
        `INSERT INTO properties VALUES ('olm.gvk', ${q(JSON.stringify(gvk))}, ${q(b.name)}, ${q(b.version)}, ${q(b.image)});`,
      );
    } else if (version >= 6) {
      // Schema 6 to 8: provided APIs in api_provider, by bundle.
      out.push(
        `INSERT INTO api_provider VALUES (${q(gvk.group)}, 'v1', 'Thing', ${q(b.name)}, ${q(b.version)}, ${q(b.image)});`,
      );
    } else {
      // Before 6: by channel entry, one row per entry of the bundle.
      for (const e of entryIds.get(b.name) ?? []) {
        out.push(`INSERT INTO api_provider VALUES (${q(gvk.group)}, 'v1', 'Thing', ${e});`);
      }
    }
    if (version >= 8) {
      out.push(
        `INSERT INTO dependencies VALUES ('olm.gvk', ${q(JSON.stringify({ group: 'other.example.com', kind: `Need${b.version.replaceAll('.', '')}`, type: 'olm.gvk', version: 'v1' }))}, ${q(b.name)}, ${q(b.version)}, ${q(b.image)});`,
      );
    } else {
      // Before migration 8: required APIs in api_requirer. One API for every bundle: opm's migration
      // 8 inserts their rows in Go's map order, and which comes first decides what migration 9 leaves.
      const requirers =
        version >= 6
          ? [`${q(b.name)}, ${q(b.version)}, ${q(b.image)}`]
          : (entryIds.get(b.name) ?? []).map(String);
      if (version >= 3)
        for (const r of requirers)
          out.push(`INSERT INTO api_requirer VALUES ('other.example.com', 'v1', 'Need', ${r});`);
    }
  }
  return out.join('\n');
}

/** Run SQL on `file` (created when absent) with the sqlite3 command line. */
export function sqlite3(file: string, sql: string): void {
  const r = spawnSync('sqlite3', [file], { input: sql, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`sqlite3 ${file}: ${r.stderr}`);
}

/** A package of three bundles over two channels, one with a skipRange: the older-schema tests' catalog. */
export const FOO_BUNDLES: DbBundle[] = [
  { name: 'foo.v1.0.0', pkg: 'foo', version: '1.0.0', image: 'example.com/foo:1.0.0', channels: ['stable'] },
  {
    name: 'foo.v1.1.0',
    pkg: 'foo',
    version: '1.1.0',
    image: 'example.com/foo:1.1.0',
    channels: ['stable', 'fast'],
    skipRange: '<1.1.0',
  },
  { name: 'foo.v1.2.0', pkg: 'foo', version: '1.2.0', image: 'example.com/foo:1.2.0', channels: ['fast'] },
];

/**
 * Rows the migrations to schema 13 work on (from 9): a property without its bundle path, an
 * `olm.deprecated` property, and at 12 a `deprecated` table naming a bundle that is gone.
 */
export function migrationInputsSql(version: number): string {
  if (version < 9) return '';
  const out = [
    "INSERT INTO properties VALUES ('custom.note', '{}', 'foo.v1.1.0', '1.1.0', NULL);",
    "INSERT INTO properties VALUES ('olm.deprecated', '{}', 'foo.v1.0.0', '1.0.0', 'example.com/foo:1.0.0');",
  ];
  if (version >= 12) out.push("INSERT INTO deprecated VALUES ('foo.v1.0.0'), ('gone.v0.1.0');");
  return out.join('\n');
}
