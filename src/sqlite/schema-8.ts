/**
 * A database at schema 8 read as opm reads it after migrating it to 9: migration 9 writes each
 * bundle's properties from `api_provider` (its package, taken from its first channel entry, and one
 * GVK per provided API), and then sets every row of `dependencies` to the first row's value less its
 * `type` key (its UPDATE's subquery compares the table with itself, so every row matches the first).
 */
import { OpmError } from '../errors.js';
import { marshal } from '../go/json-encode.js';
import type { SqliteDatabase } from './database.js';
import { text } from './channel-rows.js';
import type { TypedValue } from './bundle-rows.js';

/** The properties migration 9 writes, by bundle name, in the order it would add them. */
export function propertiesFromProvidedApis(db: SqliteDatabase): Map<string, TypedValue[]> {
  const pkgOf = new Map<string, string>();
  for (const r of db.rows('channel_entry')) {
    const name = text(r.operatorbundle_name);
    const pkg = text(r.package_name);
    if (name !== null && pkg !== null && !pkgOf.has(name)) pkgOf.set(name, pkg);
  }
  const bundles = new Map<string, { name: string; version: string; apis: Map<string, TypedValue> }>();
  for (const r of db.rows('api_provider')) {
    const [group, version, kind, name] = [r.group_name, r.version, r.kind, r.operatorbundle_name].map(text);
    if (group === null || version === null || kind === null || name === null || name === undefined) continue;
    const bundleVersion = text(r.operatorbundle_version) ?? '';
    const key = JSON.stringify([name, bundleVersion, text(r.operatorbundle_path)]);
    let b = bundles.get(key);
    if (b === undefined) bundles.set(key, (b = { name, version: bundleVersion, apis: new Map() }));
    const value = marshal({ group, kind, version });
    b.apis.set(value, { type: 'olm.gvk', value });
  }
  const out = new Map<string, TypedValue[]>();
  for (const b of bundles.values()) {
    const list = out.get(b.name) ?? [];
    list.push({
      type: 'olm.package',
      value: marshal({ packageName: pkgOf.get(b.name) ?? '', version: b.version }),
    });
    list.push(...b.apis.values());
    out.set(b.name, list);
  }
  return out;
}

/** `dependencies` after migration 9's UPDATE: every value the first row's, without `type`. */
export function dependenciesAfterMigration9(deps: Map<string, TypedValue[]>): Map<string, TypedValue[]> {
  const first = [...deps.values()][0]?.[0];
  if (first === undefined) return deps;
  let parsed: unknown;
  try {
    parsed = JSON.parse(first.value);
  } catch {
    throw new OpmError('malformed JSON in the dependencies table (migration 9 of opm would fail on it)');
  }
  let value = first.value;
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
    const o = { ...(parsed as Record<string, unknown>) };
    delete o.type;
    value = JSON.stringify(o);
  }
  return new Map([...deps].map(([name, list]) => [name, list.map((d) => ({ type: d.type, value }))]));
}
