/**
 * A new index database as opm v1.73 makes it: the schema its migrations 000 to 013 leave, in
 * `sqlite_master` order with each statement's text as SQLite keeps it (the reference's own
 * database, read back: what `sqlite3 .dump` prints must be the same), and the one row of
 * `schema_migrations` (version 13, the time it was made).
 */
import { NEWEST_SCHEMA } from '../schema-version.js';
import type { DatabaseContent, SchemaObject } from './content.js';

export const SCHEMA_13: readonly SchemaObject[] = [
  {
    type: 'table',
    name: 'schema_migrations',
    tableName: 'schema_migrations',
    sql: 'CREATE TABLE schema_migrations (\n\t\tversion bigint NOT NULL,\n        timestamp DATETIME DEFAULT CURRENT_TIMESTAMP\n\t)',
  },
  {
    type: 'table',
    name: 'api',
    tableName: 'api',
    sql: 'CREATE TABLE api (\n\t\t\tgroup_name TEXT,\n\t\t\tversion TEXT,\n\t\t\tkind TEXT,\n\t\t\tplural TEXT NOT NULL,\n\t\t\tPRIMARY KEY(group_name, version, kind)\n\t\t)',
  },
  { type: 'index', name: 'sqlite_autoindex_api_1', tableName: 'api', sql: null },
  {
    type: 'table',
    name: 'operatorbundle',
    tableName: 'operatorbundle',
    sql: 'CREATE TABLE operatorbundle (\n\t\t\tname TEXT PRIMARY KEY,\n\t\t\tcsv TEXT,\n\t\t\tbundle TEXT,\n\t\t\tbundlepath TEXT, skiprange TEXT, version TEXT, replaces TEXT, skips TEXT, substitutesfor TEXT)',
  },
  { type: 'index', name: 'sqlite_autoindex_operatorbundle_1', tableName: 'operatorbundle', sql: null },
  {
    type: 'table',
    name: 'package',
    tableName: 'package',
    sql: 'CREATE TABLE package (\n\t\t\tname TEXT PRIMARY KEY,\n\t\t\tdefault_channel TEXT,\n\t\t\tFOREIGN KEY(name, default_channel) REFERENCES channel(package_name,name) ON DELETE CASCADE\n\t\t)',
  },
  { type: 'index', name: 'sqlite_autoindex_package_1', tableName: 'package', sql: null },
  {
    type: 'table',
    name: 'channel',
    tableName: 'channel',
    sql: 'CREATE TABLE channel (\n\t\t\tname TEXT,\n\t\t\tpackage_name TEXT,\n\t\t\thead_operatorbundle_name TEXT,\n\t\t\tPRIMARY KEY(name, package_name),\n\t\t\tFOREIGN KEY(head_operatorbundle_name) REFERENCES operatorbundle(name) ON DELETE CASCADE\n\t\t)',
  },
  { type: 'index', name: 'sqlite_autoindex_channel_1', tableName: 'channel', sql: null },
  {
    type: 'table',
    name: 'channel_entry',
    tableName: 'channel_entry',
    sql: 'CREATE TABLE channel_entry (\n\t\t\tentry_id INTEGER PRIMARY KEY,\n\t\t\tchannel_name TEXT,\n\t\t\tpackage_name TEXT,\n\t\t\toperatorbundle_name TEXT,\n\t\t\treplaces INTEGER,\n\t\t\tdepth INTEGER,\n\t\t\tFOREIGN KEY(replaces) REFERENCES channel_entry(entry_id) DEFERRABLE INITIALLY DEFERRED, \n\t\t\tFOREIGN KEY(channel_name, package_name) REFERENCES channel(name, package_name) ON DELETE CASCADE\n\t\t)',
  },
  {
    type: 'table',
    name: 'related_image',
    tableName: 'related_image',
    sql: 'CREATE TABLE related_image (\n\t\t\timage TEXT,\n     \t\toperatorbundle_name TEXT,\n     \t\tFOREIGN KEY(operatorbundle_name) REFERENCES operatorbundle(name) ON DELETE CASCADE\n\t\t)',
  },
  {
    type: 'table',
    name: 'api_provider',
    tableName: 'api_provider',
    sql: 'CREATE TABLE "api_provider" (\n\t\t\tgroup_name TEXT,\n\t\t\tversion TEXT,\n\t\t\tkind TEXT,\n\t\t\toperatorbundle_name TEXT,\n\t\t\toperatorbundle_version TEXT,\n\t\t\toperatorbundle_path TEXT,\n\t\t\tFOREIGN KEY(operatorbundle_name, operatorbundle_version, operatorbundle_path) REFERENCES operatorbundle(name, version, bundlepath) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,\n\t\t\tFOREIGN KEY(group_name, version, kind) REFERENCES api(group_name, version, kind) ON DELETE CASCADE\n\t\t)',
  },
  {
    type: 'table',
    name: 'api_requirer',
    tableName: 'api_requirer',
    sql: 'CREATE TABLE "api_requirer" (\n\t\t\tgroup_name TEXT,\n\t\t\tversion TEXT,\n\t\t\tkind TEXT,\n\t\t\toperatorbundle_name TEXT,\n\t\t\toperatorbundle_version TEXT,\n\t\t\toperatorbundle_path TEXT,\n\t\t\tFOREIGN KEY(operatorbundle_name, operatorbundle_version, operatorbundle_path) REFERENCES operatorbundle(name, version, bundlepath) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,\n\t\t\tFOREIGN KEY(group_name, version, kind) REFERENCES api(group_name, version, kind) ON DELETE CASCADE\n\t\t)',
  },
  {
    type: 'index',
    name: 'pk',
    tableName: 'operatorbundle',
    sql: 'CREATE UNIQUE INDEX pk ON operatorbundle(name, version, bundlepath)',
  },
  {
    type: 'trigger',
    name: 'api_provider_cleanup',
    tableName: 'api_provider',
    sql: 'CREATE TRIGGER api_provider_cleanup\n\t\tAFTER DELETE ON api_provider\n\t\tWHEN NOT EXISTS (SELECT 1 FROM api_provider JOIN api_requirer WHERE \n\t\t    (api_provider.group_name = OLD.group_name AND api_provider.version = OLD.version AND api_provider.kind = OLD.kind) OR \n\t\t\t(api_requirer.group_name = OLD.group_name AND api_requirer.version = OLD.version AND api_requirer.kind = OLD.kind))\n\t\tBEGIN\n\t\t\tDELETE FROM api WHERE group_name = OLD.group_name AND version = OLD.version AND kind = OLD.kind;\n\t\tEND',
  },
  {
    type: 'trigger',
    name: 'api_requirer_cleanup',
    tableName: 'api_requirer',
    sql: 'CREATE TRIGGER api_requirer_cleanup\n\t\tAFTER DELETE ON api_requirer\n\t\tWHEN NOT EXISTS (SELECT 1 FROM api_provider JOIN api_requirer WHERE \n\t\t    (api_provider.group_name = OLD.group_name AND api_provider.version = OLD.version AND api_provider.kind = OLD.kind) OR \n\t\t\t(api_requirer.group_name = OLD.group_name AND api_requirer.version = OLD.version AND api_requirer.kind = OLD.kind))\t\n\t\tBEGIN\n\t\t\tDELETE FROM api WHERE group_name = OLD.group_name AND version = OLD.version AND kind = OLD.kind;\n\t\tEND',
  },
  {
    type: 'table',
    name: 'dependencies',
    tableName: 'dependencies',
    sql: 'CREATE TABLE dependencies (\n\t\t\ttype TEXT,\n\t\t\tvalue TEXT,\n\t\t\toperatorbundle_name TEXT,\n\t\t\toperatorbundle_version TEXT,\n\t\t\toperatorbundle_path TEXT,\n\t\t\tFOREIGN KEY(operatorbundle_name, operatorbundle_version, operatorbundle_path) REFERENCES operatorbundle(name, version, bundlepath) ON DELETE CASCADE\n\t\t)',
  },
  {
    type: 'table',
    name: 'properties',
    tableName: 'properties',
    sql: 'CREATE TABLE properties (\n\t\t\ttype TEXT,\n\t\t\tvalue TEXT,\n\t\t\toperatorbundle_name TEXT,\n\t\t\toperatorbundle_version TEXT,\n\t\t\toperatorbundle_path TEXT,\n\t\t\tFOREIGN KEY(operatorbundle_name, operatorbundle_version, operatorbundle_path) REFERENCES operatorbundle(name, version, bundlepath) ON DELETE CASCADE\n\t\t)',
  },
  {
    type: 'table',
    name: 'deprecated',
    tableName: 'deprecated',
    sql: 'CREATE TABLE deprecated (\n\t\t\toperatorbundle_name TEXT PRIMARY KEY\n\t\t)',
  },
  { type: 'index', name: 'sqlite_autoindex_deprecated_1', tableName: 'deprecated', sql: null },
];

/** SQLite's CURRENT_TIMESTAMP text (UTC, to the second). */
export function sqliteTimestamp(d: Date): string {
  return d.toISOString().slice(0, 19).replace('T', ' ');
}

/** The content of a new database: every table empty but schema_migrations. */
export function newDatabaseContent(now: Date): DatabaseContent {
  const rows = new Map<string, Array<Array<string | number | null>>>();
  for (const o of SCHEMA_13) if (o.type === 'table') rows.set(o.name, []);
  rows.set('schema_migrations', [[NEWEST_SCHEMA, sqliteTimestamp(now)]]);
  return { objects: SCHEMA_13.map((o) => ({ ...o })), rows };
}
