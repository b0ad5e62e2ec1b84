/**
 * The row changes `registry add` makes, one operation at a time, over the tables held in memory:
 * a bundle's rows (operatorbundle, related_image, dependencies, properties, api and its providers
 * and requirers), a package's channels rebuilt from its heads by walking `replaces` and `skips`
 * (replaces mode) or from a version graph (semver modes), and the manifests of non-head bundles
 * cleared. Values and row order as opm v1.73 writes them.
 */
import { marshal } from '../../go/json-encode.js';
import { goStruct } from '../../go/go-struct.js';
import type { SqlValue } from '../../sqlite/file.js';
import type { BundleRecord } from './bundle-record.js';
import type { RowStore } from '../../sqlite/write/row-store.js';
import { addSubstitutesFor } from './substitutes-for.js';
import { AddError, findBy } from './add-error.js';

const enc = new TextEncoder();

/** Go's sql.NullString: '' is NULL. */
const nullable = (s: string): SqlValue => (s === '' ? null : s);

const str = (v: SqlValue | undefined): string => (typeof v === 'string' ? v : '');

export function isDeprecated(t: RowStore, name: string): boolean {
  return findBy(t, 'deprecated', 'operatorbundle_name', name) !== undefined;
}

/** operatorbundle and the rows hanging off it (opm's addOperatorBundle); `enableAlpha`: --enable-alpha. */
export function addOperatorBundle(t: RowStore, b: BundleRecord, enableAlpha = false): void {
  if (b.name === '') throw new AddError('csv name not found');
  if (b.substitutesFor !== '' && !enableAlpha)
    throw new AddError(
      'SubstitutesFor is an alpha-only feature. You must enable alpha features with the flag --enable-alpha in order to use this feature.',
    );
  if (findBy(t, 'operatorbundle', 'name', b.name) !== undefined)
    throw new AddError(`failed to add bundle "${b.name}": UNIQUE constraint failed: operatorbundle.name`);
  t.insertNamed('operatorbundle', {
    name: b.name,
    // Stored as bytes, as opm's driver stores the []byte it is given.
    csv: enc.encode(b.csvJson),
    bundle: enc.encode(b.bundleJson),
    bundlepath: b.image,
    version: b.version,
    skiprange: b.skipRange,
    replaces: b.replaces,
    skips: b.skips.join(','),
    substitutesfor: b.substitutesFor,
  });
  for (const image of b.images) t.insertNamed('related_image', { image, operatorbundle_name: b.name });
  for (const d of b.dependencies) {
    t.insertNamed('dependencies', {
      type: d.type,
      value: d.value,
      operatorbundle_name: b.name,
      operatorbundle_version: nullable(b.version),
      operatorbundle_path: nullable(b.image),
    });
  }
  const props = [...b.properties];
  if (isDeprecated(t, b.name) && !props.some((p) => p.type === 'olm.deprecated' && p.value === '{}'))
    props.push({ type: 'olm.deprecated', value: '{}' });
  for (const p of props) addProperty(t, p.type, p.value, b.name, b.version, b.image);
  if (enableAlpha) addSubstitutesFor(t, b);
  const api = t.getter('api');
  for (const [list, table] of [
    [b.provided, 'api_provider'],
    [b.required, 'api_requirer'],
  ] as const) {
    for (const a of list) {
      const exists = t.find(
        'api',
        (r) =>
          api(r, 'group_name') === a.group && api(r, 'version') === a.version && api(r, 'kind') === a.kind,
      );
      if (exists === undefined)
        t.insertNamed('api', { group_name: a.group, version: a.version, kind: a.kind, plural: a.plural });
      t.insertNamed(table, {
        group_name: a.group,
        version: a.version,
        kind: a.kind,
        operatorbundle_name: b.name,
        operatorbundle_version: nullable(b.version),
        operatorbundle_path: nullable(b.image),
      });
    }
  }
}

function addProperty(
  t: RowStore,
  type: string,
  value: string,
  name: string,
  version: string,
  path: string,
): void {
  t.insertNamed('properties', {
    type,
    value,
    operatorbundle_name: name,
    operatorbundle_version: nullable(version),
    operatorbundle_path: nullable(path),
  });
}

export interface BundleFields {
  replaces: string;
  skips: string[];
  version: string;
}

/** replaces, skips and version of the first operatorbundle row named `name`. */
export function bundleFields(t: RowStore, name: string): BundleFields | undefined {
  const r = findBy(t, 'operatorbundle', 'name', name);
  if (r === undefined) return undefined;
  const get = t.getter('operatorbundle');
  const skips = str(get(r, 'skips'));
  return {
    replaces: str(get(r, 'replaces')),
    skips: skips === '' ? [] : skips.split(','),
    version: str(get(r, 'version')),
  };
}

/** Delete a package, its channels and their entries (opm's rmPackage). */
export function rmPackage(t: RowStore, pkg: string): void {
  for (const [table, column] of [
    ['package', 'name'],
    ['channel', 'package_name'],
    ['channel_entry', 'package_name'],
  ] as const) {
    const c = t.col(table, column);
    t.deleteWhere(table, (r) => r[c] === pkg);
  }
}

export interface PackageChannel {
  name: string;
  head: string;
}

export interface PackageManifest {
  packageName: string;
  defaultChannel: string;
  channels: PackageChannel[];
}

function entry(t: RowStore, channel: string, pkg: string, bundle: string, depth: number): SqlValue[] {
  return t.insertNamed('channel_entry', {
    channel_name: channel,
    package_name: pkg,
    operatorbundle_name: bundle,
    depth,
  });
}

/**
 * A package and its channels from their heads: each channel's entries follow `replaces` down from
 * the head, a pair of entries for every skipped name (opm's addPackageChannels). Errors gathered.
 */
export function addPackageChannels(t: RowStore, m: PackageManifest): string[] {
  const errs: string[] = [];
  if (findBy(t, 'package', 'name', m.packageName) !== undefined) {
    throw new AddError(`failed to add package "${m.packageName}": UNIQUE constraint failed: package.name`);
  }
  let pkgRow = t.insertNamed('package', { name: m.packageName });
  const channels: PackageChannel[] = [];
  let hasDefault = false;
  for (const c of m.channels) {
    if (isDeprecated(t, c.head)) continue;
    t.insertNamed('channel', { name: c.name, package_name: m.packageName, head_operatorbundle_name: c.head });
    if (c.name === m.defaultChannel || m.channels.length === 1) {
      hasDefault = true;
      pkgRow = t.set('package', pkgRow, 'default_channel', c.name);
    }
    channels.push(c);
  }
  if (!hasDefault) errs.push(`no default channel specified for ${m.packageName}`);

  const entryId = t.getter('channel_entry');
  const bundlepath = t.col('operatorbundle', 'bundlepath');
  for (const c of channels) {
    let current = entry(t, c.name, m.packageName, c.head, 0);
    let name = c.head;
    let depth = 1;
    const seen = new Set([name]);
    for (;;) {
      const f = bundleFields(t, name);
      if (f === undefined) {
        errs.push(`no bundle found for bundlename ${name}`);
        break;
      }
      const path = str(findBy(t, 'operatorbundle', 'name', name)?.[bundlepath]);
      const pkgValue = marshal(goStruct({ packageName: m.packageName, version: f.version }), true);
      addProperty(t, 'olm.package', pkgValue, name, f.version, path);
      if (isDeprecated(t, name)) break;
      for (const skip of f.skips) {
        const skipped = entry(t, c.name, m.packageName, skip, depth);
        const synthesized = entry(t, c.name, m.packageName, name, depth);
        t.set('channel_entry', synthesized, 'replaces', entryId(skipped, 'entry_id'));
        depth++;
      }
      if (f.replaces === '') break;
      const replaced = entry(t, c.name, m.packageName, f.replaces, depth);
      if (seen.has(f.replaces)) {
        errs.push(`Cycle detected, ${name} replaces ${f.replaces}`);
        break;
      }
      seen.add(f.replaces);
      t.set('channel_entry', current, 'replaces', entryId(replaced, 'entry_id'));
      if (bundleFields(t, f.replaces) === undefined) {
        errs.push(`Invalid bundle ${c.head}, replaces nonexistent bundle ${f.replaces}`);
        break;
      }
      current = replaced;
      name = f.replaces;
      depth++;
    }
  }
  return errs;
}

/** Drop the manifests of bundles with an image that head no channel (semver modes end so). */
export function clearNonHeadBundles(t: RowStore): void {
  const head = t.col('channel', 'head_operatorbundle_name');
  const heads = new Set(t.rows('channel').map((r) => r[head]));
  const col = (c: string): number => t.col('operatorbundle', c);
  const [name, path, bundle, csv] = [col('name'), col('bundlepath'), col('bundle'), col('csv')] as const;
  t.update(
    'operatorbundle',
    // opm's condition `bundlepath != null or bundlepath != ""` holds for a non-empty path only.
    (r) => str(r[path]) !== '' && !heads.has(r[name] ?? null),
    (r) => {
      r[bundle] = null;
      r[csv] = null;
    },
  );
}
