/**
 * Schema migrations run on rendered catalogs (`--migrate-level`, `--migrate`), in opm's order.
 */
import { InternalError, OpmError } from '../errors.js';
import { RawJson } from '../go/raw-json.js';
import type { Bundle, DeclarativeConfig } from '../declcfg/types.js';
import { isRecord } from '../go/json-value.js';
import type { Property } from '../property/types.js';
import { parseYaml, DecodeError } from '../bundle/decode.js';
import {
  asBool,
  asObject,
  asString,
  asStringArray,
  asStringMap,
  field,
  type Obj,
} from '../go/json-decode.js';
import { marshal } from '../go/json-encode.js';
import {
  apiServiceDescriptions,
  appLink,
  asStructs,
  compact,
  crdDescriptions,
  nonEmpty,
  nonEmptyList,
  objects,
  sortedMap,
} from '../property/csv-types.js';
import { ALL_MIGRATIONS, MIGRATION_LEVELS, type MigrationLevel } from './levels.js';

import { TYPE_BUNDLE_OBJECT, TYPE_CSV_METADATA } from '../property/property.js';

export interface Migration extends MigrationLevel {
  migrate(cfg: DeclarativeConfig): void;
}

const RUN: Record<string, (cfg: DeclarativeConfig) => void> = {
  none: () => undefined,
  'bundle-object-to-csv-metadata': bundleObjectToCsvMetadata,
};

const MIGRATIONS: readonly Migration[] = MIGRATION_LEVELS.map((level) => ({
  ...level,
  migrate: RUN[level.token] ?? missingMigration(level.token),
}));

function missingMigration(token: string): never {
  throw new InternalError(`migration level "${token}" has no implementation`);
}

/**
 * The migrations to run for a level: every one up to and including it. '' runs none; an
 * unknown level is an error.
 */
export function migrationsUpTo(level: string): Migration[] {
  if (level === '') return [];
  if (level === ALL_MIGRATIONS) return [...MIGRATIONS];
  const i = MIGRATIONS.findIndex((m) => m.token === level);
  if (i < 0) throw new OpmError(`unknown migration level "${level}"`);
  return MIGRATIONS.slice(0, i + 1);
}

export function runMigrations(cfg: DeclarativeConfig, migrations: readonly Migration[]): void {
  for (const m of migrations) m.migrate(cfg);
}

/**
 * Replace each bundle's `olm.bundle.object` properties with one `olm.csv.metadata` built from
 * its CSV. Bundles that already carry `olm.csv.metadata`, or have no CSV object, are left alone.
 * Unlike opm, bundles without an image are migrated too.
 */
function bundleObjectToCsvMetadata(cfg: DeclarativeConfig): void {
  for (const b of cfg.bundles) {
    const props = b.properties ?? [];
    if (props.some((p) => p.type === TYPE_CSV_METADATA)) continue;
    const csv = bundleCsv(b);
    if (csv === undefined) continue;
    let value: RawJson;
    try {
      value = csvMetadata(csv);
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      throw new OpmError(`migrate: package "${b.package}", bundle "${b.name}": ${msg}`, { cause: err });
    }
    b.properties = [
      ...props.filter((p) => p.type !== TYPE_BUNDLE_OBJECT),
      { type: TYPE_CSV_METADATA, value },
    ];
  }
}

function propertyObject(p: Property): Obj | undefined {
  const v: unknown = p.value instanceof RawJson ? p.value.parse() : p.value;
  return isRecord(v) ? v : undefined;
}

/** The first ClusterServiceVersion among a bundle's `olm.bundle.object` properties. */
export function bundleCsv(b: Bundle): Obj | undefined {
  const props = b.properties ?? [];
  for (let i = 0; i < props.length; i++) {
    const p = props[i];
    if (p === undefined || p.type !== TYPE_BUNDLE_OBJECT) continue;
    if (b.payloadsElided === true) {
      throw new OpmError(`package "${b.package}", bundle "${b.name}": bundle objects were not loaded`);
    }
    const where = `package "${b.package}", bundle "${b.name}": parse property at index ${i} as bundle object`;
    const data = propertyObject(p)?.data;
    if (typeof data !== 'string') throw new OpmError(`${where}: "data" is not a base64 string`);
    const text = Buffer.from(data, 'base64').toString('utf8');
    let obj: unknown;
    try {
      obj = /^\s*[{[]/.test(text) ? JSON.parse(text) : parseYaml(text);
    } catch (err) {
      const msg = err instanceof DecodeError || err instanceof Error ? err.message : String(err);
      throw new OpmError(`${where}: ${msg}`, { cause: err });
    }
    if (isRecord(obj) && obj.kind === 'ClusterServiceVersion') return obj;
  }
  return undefined;
}

/**
 * The `olm.csv.metadata` value of a CSV: the fields of opm's CSVMetadata in their JSON order,
 * empty ones omitted except `apiServiceDefinitions`, `crdDescriptions` and `provider`, encoded
 * compactly without HTML escaping.
 */
export function csvMetadata(csv: Obj): RawJson {
  const meta = asObject(field(csv, 'metadata'), 'ClusterServiceVersion.metadata', 'ObjectMeta');
  const spec = asObject(field(csv, 'spec'), 'ClusterServiceVersion.spec', 'ClusterServiceVersionSpec');
  const s = 'ClusterServiceVersionSpec';
  const apis = asObject(
    field(spec, 'apiservicedefinitions'),
    `${s}.apiservicedefinitions`,
    'APIServiceDefinitions',
  );
  const crds = asObject(
    field(spec, 'customresourcedefinitions'),
    `${s}.customresourcedefinitions`,
    'CustomResourceDefinitions',
  );
  const value = compact({
    annotations: sortedMap(asStringMap(field(meta, 'annotations'), 'ObjectMeta.annotations')),
    apiServiceDefinitions: compact({
      owned: apiServiceDescriptions(field(apis, 'owned'), `${s}.apiservicedefinitions.owned`),
      required: apiServiceDescriptions(field(apis, 'required'), `${s}.apiservicedefinitions.required`),
    }),
    crdDescriptions: compact({
      owned: crdDescriptions(field(crds, 'owned'), `${s}.customresourcedefinitions.owned`),
      required: crdDescriptions(field(crds, 'required'), `${s}.customresourcedefinitions.required`),
    }),
    description: nonEmpty(asString(field(spec, 'description'), `${s}.description`)),
    displayName: nonEmpty(asString(field(spec, 'displayName'), `${s}.displayName`)),
    installModes: nonEmptyList(
      objects(field(spec, 'installModes'), `${s}.installModes`, 'InstallMode').map((m) => ({
        type: asString(field(m, 'type'), `${s}.installModes.type`),
        supported: asBool(field(m, 'supported'), `${s}.installModes.supported`),
      })),
    ),
    keywords: nonEmptyList(asStringArray(field(spec, 'keywords'), `${s}.keywords`)),
    labels: sortedMap(asStringMap(field(meta, 'labels'), 'ObjectMeta.labels')),
    links: nonEmptyList(
      objects(field(spec, 'links'), `${s}.links`, 'AppLink').map((l) => appLink(l, `${s}.links`)),
    ),
    maintainers: nonEmptyList(
      objects(field(spec, 'maintainers'), `${s}.maintainers`, 'Maintainer').map((m) =>
        compact({
          name: nonEmpty(asString(field(m, 'name'), `${s}.maintainers.name`)),
          email: nonEmpty(asString(field(m, 'email'), `${s}.maintainers.email`)),
        }),
      ),
    ),
    maturity: nonEmpty(asString(field(spec, 'maturity'), `${s}.maturity`)),
    minKubeVersion: nonEmpty(asString(field(spec, 'minKubeVersion'), `${s}.minKubeVersion`)),
    nativeAPIs: nonEmptyList(
      objects(field(spec, 'nativeAPIs'), `${s}.nativeAPIs`, 'GroupVersionKind').map((g) => ({
        group: asString(field(g, 'group'), `${s}.nativeAPIs.group`),
        version: asString(field(g, 'version'), `${s}.nativeAPIs.version`),
        kind: asString(field(g, 'kind'), `${s}.nativeAPIs.kind`),
      })),
    ),
    provider: appLink(asObject(field(spec, 'provider'), `${s}.provider`, 'AppLink'), `${s}.provider`),
  });
  return new RawJson(marshal(asStructs(value), false));
}
