/**
 * What `opm index export` takes from an index database, as opm v1.73's SQLite querier gives it:
 * the packages (all of them, by name, when none are asked for), each package's default channel
 * and channels with their heads (`package.yaml`), and the bundle images to pull, each with the
 * folder `<package>/<version>` its manifests go to.
 */
import { compareUtf8 } from '../go/utf8.js';
import { text } from './channel-rows.js';
import type { SqliteDatabase } from './database.js';

export interface ExportChannel {
  name: string;
  currentCSV: string;
}

export interface ExportPackage {
  name: string;
  defaultChannel: string;
  channels: ExportChannel[];
}

export interface ExportBundle {
  /** The bundle image (the row's `bundlepath`). */
  image: string;
  csvName: string;
  pkg: string;
  /** The folder under the package's: the bundle's version, or its CSV name when it has none. */
  dir: string;
}

export interface ExportPlan {
  packages: ExportPackage[];
  /** By image, in byte order of image: opm keys them by image, so a later package's row wins. */
  bundles: ExportBundle[];
  /** Packages asked for that the database does not hold. */
  unknown: string[];
  /** Bundles that cannot be exported (no image recorded), one sentence each. */
  problems: string[];
}

const byBytes = (a: string, b: string): number => compareUtf8(a, b);

/** The distinct non-NULL values of `column` over `rows`, in byte order (an index scan's order). */
function distinctSorted(values: Iterable<string | null>): string[] {
  const set = new Set<string>();
  for (const v of values) if (v !== null) set.add(v);
  return [...set].sort(byBytes);
}

/** The export of `asked` packages (every package when empty) from `db`. */
export function exportPlan(db: SqliteDatabase, asked: readonly string[]): ExportPlan {
  const packageRows = [...db.rows('package')].map((r) => ({
    name: text(r.name),
    defaultChannel: text(r.default_channel),
  }));
  const all = distinctSorted(packageRows.map((r) => r.name));
  const wanted = asked.length === 0 ? all : [...new Set(asked)];
  const known = new Set(all);
  const unknown = wanted.filter((p) => !known.has(p));

  const channelRows = [...db.rows('channel')].map((r) => ({
    name: text(r.name),
    pkg: text(r.package_name),
    head: text(r.head_operatorbundle_name),
  }));
  const packages = wanted
    .filter((p) => known.has(p))
    .map((name): ExportPackage => {
      const own = channelRows.filter((c) => c.pkg === name);
      return {
        name,
        defaultChannel: packageRows.find((r) => r.name === name)?.defaultChannel ?? '',
        channels: distinctSorted(own.map((c) => c.name)).map((ch) => ({
          name: ch,
          currentCSV: own.find((c) => c.name === ch)?.head ?? '',
        })),
      };
    });

  const bundleRows = new Map<string, { image: string; version: string }>();
  for (const r of db.rows('operatorbundle')) {
    const name = text(r.name);
    if (name !== null)
      bundleRows.set(name, { image: text(r.bundlepath) ?? '', version: text(r.version) ?? '' });
  }
  const entries = [...db.rows('channel_entry')].map((r) => ({
    pkg: text(r.package_name),
    bundle: text(r.operatorbundle_name),
  }));
  const byImage = new Map<string, ExportBundle>();
  const problems: string[] = [];
  for (const { name: pkg } of packages) {
    const names = new Set<string>();
    for (const e of entries) if (e.pkg === pkg && e.bundle !== null) names.add(e.bundle);
    for (const csvName of names) {
      const row = bundleRows.get(csvName);
      if (row === undefined) continue; // the join finds no bundle row: opm exports nothing for it
      if (row.image === '') {
        problems.push(`bundle ${csvName} of package ${pkg} has no image recorded in the index`);
        continue;
      }
      byImage.set(row.image, {
        image: row.image,
        csvName,
        pkg,
        dir: row.version === '' ? csvName : row.version,
      });
    }
  }
  const bundles = [...byImage.values()].sort((a, b) => byBytes(a.image, b.image));
  return { packages, bundles, unknown, problems };
}
