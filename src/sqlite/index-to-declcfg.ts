/**
 * An opm index database (the SQLite catalogs of `opm registry add` and `opm index add`) read as the
 * declarative config opm v1.73's `render` makes of it: packages with their default channel and the
 * icon of that channel's head, channels with their entries, bundles with the properties, objects and
 * related images opm derives from the rows. Bundles carrying `olm.deprecated` are left out.
 */
import { OpmError } from '../errors.js';
import {
  emptyConfig,
  SCHEMA_BUNDLE,
  SCHEMA_CHANNEL,
  SCHEMA_PACKAGE,
  type Bundle,
  type Channel,
  type ChannelEntry,
  type DeclarativeConfig,
  type Package,
} from '../declcfg/types.js';
import { compareUtf8 } from '../go/utf8.js';
import { goQuote } from '../go/fmt.js';
import { parseSemver, SemverError } from '../model/semver.js';
import { convertToModel } from '../model/convert.js';
import type { SqliteDatabase } from './database.js';
import { bundlesInChannels, channelEntryRow, text, type BundleInChannel } from './channel-rows.js';
import {
  bundleProperties,
  relatedImagesOf,
  splitBundleObjects,
  uniqueTypedValues,
  type TypedValue,
} from './bundle-rows.js';
import { packageIcon } from './icon.js';
import { readableSchema } from './schema-version.js';
import { ObjectBytes } from './payloads.js';
import {
  dependenciesAfterMigration9,
  dependenciesFromRequiredApis,
  propertiesFromProvidedApis,
} from './schema-8.js';

const DEPRECATED_TYPE = 'olm.deprecated';

export interface IndexReadOptions {
  /** A problem opm logs as a warning and reads past (an icon that is not base64). */
  onWarning?: (message: string) => void;
  /**
   * For output only: bundles' objects left as bytes (`payloadsElided`), given back by the config's
   * `payloads` as the writers reach each bundle.
   */
  deferObjects?: boolean;
}

/** Rows of a per-bundle table (properties, dependencies) grouped by bundle name, in table order. */
function typedValuesByBundle(db: SqliteDatabase, table: string): Map<string, TypedValue[]> {
  const out = new Map<string, TypedValue[]>();
  for (const r of db.rows(table)) {
    const name = text(r.operatorbundle_name);
    if (name === null) continue;
    const v: TypedValue = { type: text(r.type) ?? '', value: text(r.value) ?? 'null' };
    const list = out.get(name);
    if (list === undefined) out.set(name, [v]);
    else list.push(v);
  }
  return out;
}

interface PackageRow {
  name: string;
  defaultChannel: string;
  channels: Map<string, string | null>;
}

function readPackages(db: SqliteDatabase): Map<string, PackageRow> {
  const defaults = new Map<string, string | null>();
  for (const r of db.rows('package')) {
    const name = text(r.name);
    if (name !== null && !defaults.has(name)) defaults.set(name, text(r.default_channel));
  }
  const channels = new Map<string, Map<string, string | null>>();
  for (const r of db.rows('channel')) {
    const pkg = text(r.package_name);
    if (pkg === null || !defaults.has(pkg)) continue;
    let m = channels.get(pkg);
    if (m === undefined) channels.set(pkg, (m = new Map()));
    m.set(text(r.name) ?? '', text(r.head_operatorbundle_name));
  }
  const out = new Map<string, PackageRow>();
  for (const [name, def] of defaults) {
    const chs = channels.get(name);
    if (chs === undefined) throw new OpmError(`package ${name} not found`);
    out.set(name, { name, defaultChannel: def ?? '', channels: chs });
  }
  return out;
}

/** A bundle of the output with its places, built from one operatorbundle row. */
interface Built {
  bundle: Bundle;
  places: BundleInChannel[];
  skipRange: string;
}

/** The declarative config of an index database, as opm v1.73 renders it (before render's ordering). */
export function indexToDeclcfg(db: SqliteDatabase, opts: IndexReadOptions = {}): DeclarativeConfig {
  const schema = readableSchema(db);
  const pkgs = readPackages(db);
  const entries = [...db.rows('channel_entry')].map(channelEntryRow);
  const places = bundlesInChannels(entries);
  const migrated9 = schema < 9;
  const props = migrated9 ? propertiesFromProvidedApis(db) : typedValuesByBundle(db, 'properties');
  const stored = schema < 8 ? dependenciesFromRequiredApis(db) : typedValuesByBundle(db, 'dependencies');
  const deps = migrated9 ? dependenciesAfterMigration9(stored) : stored;
  // The heads of default channels: their CSV column gives the package icon.
  const heads = new Map<string, string>();
  for (const p of pkgs.values()) {
    const head = p.channels.get(p.defaultChannel);
    if (head !== undefined && head !== null) heads.set(head, p.name);
  }
  const headCsv = new Map<string, string | null>();
  const deferred = opts.deferObjects === true ? new ObjectBytes() : undefined;
  const built: Built[] = [];
  for (const r of db.rows('operatorbundle', ['bundle'])) {
    const name = text(r.name);
    if (name === null) continue;
    if (heads.has(name) && !headCsv.has(name)) headCsv.set(name, text(r.csv));
    const at = places.get(name);
    if (at === undefined) continue;
    const version = text(r.version);
    const image = text(r.bundlepath);
    const usable = at.filter((p) => p.channel !== null);
    if (version === null || image === null || usable.length === 0) continue;
    const bundleProps = uniqueTypedValues(props.get(name) ?? []);
    if (bundleProps.some((p) => p.type === DEPRECATED_TYPE)) continue;
    const pkgName = usable[0]?.pkg ?? '';
    for (const place of usable) {
      const pkg = place.pkg === null ? undefined : pkgs.get(place.pkg);
      if (pkg === undefined)
        throw new OpmError(`unknown package ${goQuote(place.pkg ?? '')} for bundle ${goQuote(name)}`);
      if (!pkg.channels.has(place.channel ?? ''))
        throw new OpmError(`unknown channel ${goQuote(place.channel ?? '')} for bundle ${goQuote(name)}`);
    }
    const column = r.bundle;
    const { bytes, csv } =
      column instanceof Uint8Array && column.length > 0
        ? splitBundleObjects(column)
        : { bytes: [], csv: undefined };
    try {
      parseSemver(version);
    } catch (err) {
      const why = err instanceof SemverError ? err.message : String(err);
      throw new OpmError(`convert bundle ${goQuote(name)}: parse version ${goQuote(version)}: ${why}`);
    }
    const defer = deferred !== undefined && bytes.length > 0;
    const { properties, objectOrder } = bundleProperties({
      packageName: pkgName,
      version,
      properties: bundleProps,
      dependencies: uniqueTypedValues(deps.get(name) ?? []),
      objects: bytes,
      bundleName: name,
      deferObjects: defer,
    });
    const bundle: Bundle = {
      schema: SCHEMA_BUNDLE,
      name,
      package: pkgName,
      image,
      properties,
      relatedImages: relatedImagesOf(csv),
    };
    if (defer) {
      bundle.payloadsElided = true;
      deferred.defer(bundle, objectOrder);
    }
    built.push({ bundle, places: usable, skipRange: text(r.skiprange) ?? '' });
  }
  const cfg = emptyConfig();
  if (deferred !== undefined) cfg.payloads = deferred;
  addRelatedImageRows(db, built);
  assemble(cfg, pkgs, built);
  for (const p of cfg.packages) {
    const pkg = pkgs.get(p.name);
    const head = pkg?.channels.get(pkg.defaultChannel);
    if (pkg === undefined || !pkg.channels.has(pkg.defaultChannel)) {
      throw new OpmError(
        `invalid package ${goQuote(p.name)}: default channel ${goQuote(pkg?.defaultChannel ?? '')} not found`,
      );
    }
    const csv = head === null || head === undefined ? undefined : headCsv.get(head);
    if (csv === undefined) {
      throw new OpmError(
        `populate package icons: get default channel head for package ${goQuote(p.name)}: no entry found for ${p.name} ${pkg.defaultChannel}`,
      );
    }
    const icon = packageIcon(csv ?? '', head ?? '', opts.onWarning);
    if (icon !== undefined) p.icon = icon;
  }
  // opm validates the model it built (a channel left without bundles, a broken replaces chain).
  const problem = convertToModel(cfg).opmMessage;
  if (problem !== undefined) throw new OpmError(problem);
  return cfg;
}

/** Images of the related_image table a bundle's CSV does not list, added without a name. */
function addRelatedImageRows(db: SqliteDatabase, built: readonly Built[]): void {
  const images = new Map<string, Set<string>>();
  for (const r of db.rows('related_image')) {
    const img = text(r.image);
    const name = text(r.operatorbundle_name);
    if (img === null || name === null) continue;
    let s = images.get(name);
    if (s === undefined) images.set(name, (s = new Set()));
    s.add(img);
  }
  for (const { bundle } of built) {
    const extra = images.get(bundle.name);
    if (extra === undefined) continue;
    const listed = new Set((bundle.relatedImages ?? []).map((ri) => ri.image));
    for (const img of extra)
      if (!listed.has(img)) (bundle.relatedImages ??= []).push({ name: '', image: img });
  }
}

/** Packages, channels (entries by name) and bundles, each sorted as opm's model conversion sorts them. */
function assemble(
  cfg: DeclarativeConfig,
  pkgs: ReadonlyMap<string, PackageRow>,
  built: readonly Built[],
): void {
  const channels = new Map<string, Channel>();
  for (const p of pkgs.values()) {
    const pkg: Package = {
      schema: SCHEMA_PACKAGE,
      name: p.name,
      defaultChannel: p.channels.has(p.defaultChannel) ? p.defaultChannel : '',
    };
    cfg.packages.push(pkg);
    for (const ch of p.channels.keys()) {
      channels.set(JSON.stringify([p.name, ch]), {
        schema: SCHEMA_CHANNEL,
        name: ch,
        package: p.name,
        entries: [],
      });
    }
  }
  for (const b of built) {
    for (const place of b.places) {
      const ch = channels.get(JSON.stringify([place.pkg, place.channel]));
      if (ch === undefined || ch.entries === null) continue;
      const e: ChannelEntry = { name: b.bundle.name };
      if (place.replaces !== null && place.replaces !== '') e.replaces = place.replaces;
      if (place.skips !== null && place.skips.length > 0) e.skips = place.skips;
      if (b.skipRange !== '') e.skipRange = b.skipRange;
      // A bundle listed twice in a channel is one entry (opm keys a channel's bundles by name).
      if (!ch.entries.some((x) => x.name === e.name)) ch.entries.push(e);
    }
    cfg.bundles.push(b.bundle);
  }
  cfg.packages.sort((a, b) => compareUtf8(a.name, b.name));
  cfg.channels.push(...channels.values());
  for (const ch of cfg.channels) ch.entries?.sort((a, b) => compareUtf8(a.name, b.name));
  cfg.channels.sort((a, b) => compareUtf8(a.package, b.package) || compareUtf8(a.name, b.name));
  cfg.bundles.sort((a, b) => compareUtf8(a.package, b.package) || compareUtf8(a.name, b.name));
}
