/**
 * The package, channels and default channel of a bundle folder inside a packagemanifests layout
 * (`<package>/<version>/` beside `<package>/*.package.yaml`), as `opm alpha bundle generate` infers
 * them when they are not given: a channel holds the bundle when its CSV is reached from the
 * channel's head by `replaces` and `skips`.
 */
import { readdir, readFile } from 'node:fs/promises';
import { readableTexts } from './read-texts.js';
import path from 'node:path';
import { OpmError } from '../errors.js';
import { errnoText } from '../go/errno.js';
import { compareUtf8 } from '../go/utf8.js';
import { CSV_KIND, filesOf, firstObject } from './media-type.js';

export interface PackageLayoutFacts {
  packageName: string;
  /** Channels holding the bundle, sorted. */
  channels: string[];
  /** The package's default channel: named, or its only channel, or ''. */
  defaultChannel: string;
}

interface CsvFacts {
  name: string;
  /** `replaces` and `skips`: the CSVs it leads on from. */
  replaces: string[];
}

/** Why the layout could not be read; `message` in opm's words. */
export class PackageLayoutError extends OpmError {}

function spec(csv: Record<string, unknown>): Record<string, unknown> {
  const s = csv.spec;
  return typeof s === 'object' && s !== null && !Array.isArray(s) ? (s as Record<string, unknown>) : {};
}

function csvName(csv: Record<string, unknown>): string {
  const m = csv.metadata;
  if (typeof m !== 'object' || m === null) return '';
  const n = (m as Record<string, unknown>).name;
  return typeof n === 'string' ? n : '';
}

/** The one CSV among the files directly in `dir`; errors in opm's words. */
async function readCsv(dir: string): Promise<Record<string, unknown>> {
  let names: string[];
  try {
    names = await filesOf(dir);
  } catch (err) {
    throw new PackageLayoutError(`error reading bundle directory ${dir}, open ${dir}: ${errnoText(err)}`);
  }
  let found: Record<string, unknown> | undefined;
  for await (const { text } of readableTexts(dir, names)) {
    const obj = firstObject(text);
    if (obj?.kind !== CSV_KIND) continue;
    if (found !== undefined)
      throw new PackageLayoutError('more than one ClusterServiceVersion is found in bundle');
    found = obj;
  }
  if (found === undefined) throw new PackageLayoutError(`no ClusterServiceVersion object found in ${dir}`);
  return found;
}

function csvFacts(csv: Record<string, unknown>): CsvFacts {
  const s = spec(csv);
  const replaces: string[] = [];
  // Taken only when well typed, as opm reads them on a best-effort basis.
  if (Array.isArray(s.skips) && s.skips.every((x) => typeof x === 'string')) replaces.push(...s.skips);
  if (typeof s.replaces === 'string' && s.replaces !== '') replaces.push(s.replaces);
  return { name: csvName(csv), replaces };
}

interface PackageManifest {
  packageName: string;
  channels: Array<{ name: string; currentCSV: string }>;
  defaultChannel: string;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** The first file directly in `dir` that reads as a package manifest; errors as opm words them. */
async function readPackageManifest(dir: string): Promise<PackageManifest> {
  const errs: string[] = [];
  for (const name of await filesOf(dir)) {
    const file = path.join(dir, name);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      errs.push(`error opening ${file} file, open ${file}: ${errnoText(err)}`);
      continue;
    }
    const obj = firstObject(text);
    if (obj === undefined) {
      errs.push(
        `error parsing ${file} as package.yaml file, could not decode contents into package manifest`,
      );
      continue;
    }
    const packageName = str(obj.packageName);
    if (packageName === '') {
      errs.push(`error parsing ${file} as package.yaml file, name of package (packageName) is missing`);
      continue;
    }
    const channels = Array.isArray(obj.channels)
      ? obj.channels.flatMap((c: unknown) =>
          typeof c === 'object' && c !== null
            ? [
                {
                  name: str((c as Record<string, unknown>).name),
                  currentCSV: str((c as Record<string, unknown>).currentCSV),
                },
              ]
            : [],
        )
      : [];
    return { packageName, channels, defaultChannel: str(obj.defaultChannel) };
  }
  const all = errs.length === 1 ? (errs[0] ?? '') : errs.length === 0 ? '' : `[${errs.join(', ')}]`;
  throw new PackageLayoutError(
    `error parsing package.yaml file in the package root directory, valid PackageManifest YAML file not found in ${dir}, ${all}`,
  );
}

/** The CSVs a channel holds: its head and every CSV reached from it by replaces and skips. */
function channelMembers(head: string, byName: Map<string, CsvFacts>): Set<string> {
  const seen = new Set<string>([head]);
  const queue = [head];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    for (const r of byName.get(next)?.replaces ?? []) {
      if (!seen.has(r)) {
        seen.add(r);
        queue.push(r);
      }
    }
  }
  return seen;
}

/**
 * What the packagemanifests layout around `bundleDir` (absolute) says of it. Throws a
 * PackageLayoutError whose message is opm's reason when the layout cannot be read.
 */
export async function inferFromPackageLayout(bundleDir: string): Promise<PackageLayoutFacts> {
  let bundleCsv: string;
  try {
    bundleCsv = csvName(await readCsv(bundleDir));
  } catch (err) {
    if (err instanceof PackageLayoutError)
      throw new PackageLayoutError(`error loading CSV from bundle directory, ${err.message}`);
    throw err;
  }
  const pkgDir = path.dirname(bundleDir);
  let entries;
  try {
    entries = await readdir(pkgDir, { withFileTypes: true });
  } catch (err) {
    throw new PackageLayoutError(
      `error loading package from directory, error reading from ${pkgDir} directory, open ${pkgDir}: ${errnoText(err)}`,
    );
  }
  const byName = new Map<string, CsvFacts>();
  for (const e of entries.filter((x) => x.isDirectory()).sort((a, b) => compareUtf8(a.name, b.name))) {
    try {
      const facts = csvFacts(await readCsv(path.join(pkgDir, e.name)));
      byName.set(facts.name, facts);
    } catch (err) {
      if (err instanceof PackageLayoutError)
        throw new PackageLayoutError(
          `error getting CSVs from bundles in the package directory, ${err.message}`,
        );
      throw err;
    }
  }
  const pkg = await readPackageManifest(pkgDir);
  const channels = new Map<string, string>();
  for (const c of pkg.channels) channels.set(c.name, c.currentCSV);
  const holding = [...channels]
    .filter(([, head]) => channelMembers(head, byName).has(bundleCsv))
    .map(([name]) => name)
    .sort(compareUtf8);
  const only = pkg.channels.length === 1 ? (pkg.channels[0]?.name ?? '') : '';
  return {
    packageName: pkg.packageName,
    channels: holding,
    defaultChannel: pkg.defaultChannel !== '' ? pkg.defaultChannel : only,
  };
}
