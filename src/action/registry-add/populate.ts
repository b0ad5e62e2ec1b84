/**
 * `registry add` over the tables in memory: the checks made before anything changes, the bundles
 * added in the chosen mode, and the check that each added bundle is reachable from the head of
 * each of its channels. Each of opm's transactions is all or nothing here too: a failing step
 * leaves the tables as they were before it.
 */
import { BuildIdCompare } from './build-id-compare.js';
import type { BundleRecord } from './bundle-record.js';
import {
  addOperatorBundle,
  addPackageChannels,
  clearNonHeadBundles,
  rmPackage,
  type PackageManifest,
} from './loader.js';
import { AddError, findBy } from './add-error.js';
import type { SqlValue } from '../../sqlite/file.js';
import type { RowStore } from '../../sqlite/write/row-store.js';
import {
  addBundleToGraph,
  addPackageChannelsFromGraph,
  packageGraph,
  type BundleKey,
} from './semver-graph.js';
import { compareUtf8 } from '../../go/utf8.js';
import { overwrittenHeads, removeOverwrittenChannelHead, replacedBy } from './overwrite.js';
import { formatSemver, parseSemver, type SemVer } from '../../model/semver.js';

export type AddMode = 'replaces' | 'semver' | 'semver-skippatch';

/** Errors gathered as Kubernetes' aggregate prints them: one alone, several in brackets, repeats once. */
export function aggregate(msgs: string[]): string | undefined {
  const distinct = [...new Set(msgs)];
  if (distinct.length === 0) return undefined;
  if (msgs.length === 1) return msgs[0];
  return `[${distinct.join(', ')}]`;
}

/** Run `step` as a transaction: when it throws or reports errors, the tables are put back. */
function tx(t: RowStore, step: () => string[]): string[] {
  const restore = t.snapshot();
  let errs: string[];
  try {
    errs = step();
  } catch (err) {
    if (!(err instanceof AddError)) throw err;
    errs = [err.message];
  }
  if (errs.length > 0) restore();
  return errs;
}

const ALREADY_ADDED = 'Bundle already added that provides package and csv';

const str = (v: SqlValue | undefined): string => (typeof v === 'string' ? v : '');

const NOT_A_HEAD = 'Cannot overwrite a bundle that is not at the head of a channel using --overwrite-latest';
const ONE_PER_PACKAGE =
  'Cannot overwrite more than one bundle at a time for a given package using --overwrite-latest';

function globalSanityCheck(t: RowStore, bundles: BundleRecord[], overwrite: boolean): string[] {
  const errs: string[] = [];
  const overwriting = new Set<string>();
  const images = new Set(bundles.map((b) => b.image));
  const ce = t.getter('channel_entry');
  const ob = t.getter('operatorbundle');
  const channel = t.getter('channel');
  for (const b of bundles) {
    const entries = t.rows('channel_entry').filter((e) => ce(e, 'package_name') === b.packageName);
    const entryNames = new Set(entries.map((e) => ce(e, 'operatorbundle_name')));
    const paths = new Set<string | null>();
    for (const r of t.rows('operatorbundle')) {
      const path = ob(r, 'bundlepath');
      if (entryNames.has(ob(r, 'name'))) paths.add(typeof path === 'string' ? path : null);
    }
    // opm gives up checking altogether on an index with an empty bundle path.
    if (paths.has('')) return [];
    for (const p of paths) {
      if (p !== null && images.has(p)) errs.push(`Bundle ${b.image} already exists`);
    }
    const channels = new Set(
      t
        .rows('channel')
        .filter((c) => channel(c, 'package_name') === b.packageName)
        .map((c) => str(channel(c, 'name'))),
    );
    const known = findBy(t, 'operatorbundle', 'name', b.name) !== undefined;
    let validOverwrite = false;
    for (const ch of channels) {
      const present =
        known && entries.some((e) => ce(e, 'channel_name') === ch && ce(e, 'operatorbundle_name') === b.name);
      if (!present) continue;
      if (!overwrite) {
        errs.push(ALREADY_ADDED);
        break;
      }
      validOverwrite = replacedBy(t, b.name, b.packageName, ch) === undefined;
      if (!validOverwrite) {
        errs.push(NOT_A_HEAD);
        break;
      }
    }
    if (validOverwrite) {
      // opm stops checking the other bundles here.
      if (overwriting.has(b.packageName)) {
        errs.push(ONE_PER_PACKAGE);
        break;
      }
      overwriting.add(b.packageName);
    }
  }
  const edge = validateEdgeBundlePackage(t, bundles);
  if (edge !== undefined) errs.push(edge);
  return errs;
}

function validateEdgeBundlePackage(t: RowStore, bundles: BundleRecord[]): string | undefined {
  const expected = new Map<string, string>();
  for (const b of bundles) {
    for (const name of [...b.skips, b.replaces, b.name]) {
      if (name === '') continue;
      const pkg = expected.get(name);
      if (pkg !== undefined && pkg !== b.packageName) {
        const pkgs = [pkg, b.packageName].sort(compareUtf8);
        return `bundle ${name} must belong to exactly one package, found on: [${pkgs.join(' ')}]`;
      }
      expected.set(name, b.packageName);
    }
  }
  if (expected.size === 0) return undefined;
  const pkgName = t.col('package', 'name');
  const packages = new Set(t.rows('package').map((p) => p[pkgName]));
  const ce = t.getter('channel_entry');
  for (const e of t.rows('channel_entry')) {
    const pkg = ce(e, 'package_name');
    if (!packages.has(pkg)) continue;
    const bundle = str(ce(e, 'operatorbundle_name'));
    const want = expected.get(bundle);
    if (want !== undefined && want !== pkg)
      return `bundle ${bundle} belongs to package ${str(pkg)} on index, cannot be added as an edge for package ${want}`;
  }
  return undefined;
}

interface Versioned {
  name: string;
  version: string;
  channels: string[];
  defaultChannel: string;
}

/** The bundles of `pkg` already in its channels, as opm lists them for the replaces mode. */
function existingBundles(t: RowStore, pkg: string): Versioned[] {
  const ce = t.getter('channel_entry');
  const ob = t.getter('operatorbundle');
  const inPkg = new Set(
    t
      .rows('channel_entry')
      .filter((e) => ce(e, 'package_name') === pkg)
      .map((e) => str(ce(e, 'operatorbundle_name'))),
  );
  const defaultChannel = str(findBy(t, 'package', 'name', pkg)?.[t.col('package', 'default_channel')]);
  const seen = new Set<string>();
  const out: Versioned[] = [];
  for (const r of t.rows('operatorbundle')) {
    const name = str(ob(r, 'name'));
    if (!inPkg.has(name) || seen.has(name)) continue;
    seen.add(name);
    const channels = [
      ...new Set(
        t
          .rows('channel_entry')
          .filter((e) => ce(e, 'operatorbundle_name') === name)
          .map((e) => str(ce(e, 'channel_name'))),
      ),
    ];
    out.push({ name, version: str(ob(r, 'version')), channels, defaultChannel });
  }
  return out;
}

interface Head {
  name: string;
  version: SemVer;
  count: number;
}

/** Channel heads and the default channel of a package by version (opm's SemverPackageManifest). */
export function semverPackageManifest(pkg: string, bundles: Versioned[]): PackageManifest {
  const heads = new Map<string, Head>();
  let defaultChannel = '';
  let max: Head = { name: '', version: parseSemver('0.0.0'), count: 0 };
  for (const b of bundles) {
    const raw = b.version === '' ? '0.0.0-z' : b.version;
    let version: SemVer;
    try {
      version = parseSemver(raw);
    } catch (err) {
      throw new AddError(`error parsing bundle ${b.name} version ${raw}: ${(err as Error).message}`);
    }
    const current: Head = { name: b.name, version, count: 1 };
    for (const ch of b.channels) {
      const head = heads.get(ch);
      if (head === undefined) {
        heads.set(ch, { ...current });
        continue;
      }
      const c = BuildIdCompare(current.version, head.version);
      if (c < 0) continue;
      if (c === 0) current.count += head.count;
      heads.set(ch, { ...current });
    }
    const c = BuildIdCompare(current.version, max.version);
    if (c < 0) continue;
    if (c === 0) current.count += max.count;
    max = current;
    if (b.defaultChannel !== '') defaultChannel = b.defaultChannel;
  }
  if (max.count > 1)
    throw new AddError(`more than one bundle with maximum version ${formatSemver(max.version)}`);
  const m: PackageManifest = { packageName: pkg, defaultChannel, channels: [] };
  let found = heads.size === 1 && defaultChannel === '';
  for (const [ch, head] of heads) {
    if (head.count > 1) throw new AddError(`more than one potential channel head for ${ch}`);
    if (heads.size === 1) m.defaultChannel = ch;
    found ||= ch === defaultChannel;
    m.channels.push({ name: ch, head: head.name });
  }
  if (!found) throw new AddError(`unable to determine default channel among channel heads`);
  return m;
}

function loadReplaces(t: RowStore, bundles: BundleRecord[], alpha: boolean): string[] {
  const errs: string[] = [];
  const packages = new Map<string, BundleRecord[]>();
  for (const b of bundles) {
    const e = tx(t, () => {
      addOperatorBundle(t, b, alpha);
      return [];
    });
    if (e.length > 0) {
      errs.push(...e);
      continue;
    }
    packages.set(b.packageName, [...(packages.get(b.packageName) ?? []), b]);
  }
  for (const [pkg, added] of packages) {
    let manifest: PackageManifest;
    try {
      manifest = semverPackageManifest(pkg, [
        ...existingBundles(t, pkg),
        ...added.map((b) => ({
          name: b.name,
          version: b.version,
          channels: b.channels,
          defaultChannel: b.defaultChannel,
        })),
      ]);
    } catch (err) {
      if (!(err instanceof AddError)) throw err;
      errs.push(err.message);
      continue;
    }
    errs.push(
      ...tx(t, () => {
        rmPackage(t, pkg);
        return addPackageChannels(t, manifest);
      }),
    );
  }
  return errs;
}

function loadSemver(t: RowStore, bundles: BundleRecord[], skippatch: boolean, alpha: boolean): string[] {
  for (const b of bundles) {
    const g = packageGraph(t, b.packageName) ?? {
      name: b.packageName,
      defaultChannel: '',
      channels: new Map(),
    };
    addBundleToGraph(b, g, skippatch);
    const wrap = (e: string[]): string[] => e.map((m) => `error loading bundle ${b.name} into db: ${m}`);
    const e1 = tx(t, () => {
      addOperatorBundle(t, b, alpha);
      return [];
    });
    if (e1.length > 0) return wrap(e1);
    const e2 = tx(t, () => addPackageChannelsFromGraph(t, g));
    if (e2.length > 0) return [`error loading bundle ${b.name} into db: ${aggregate(e2) ?? ''}`];
  }
  clearNonHeadBundles(t);
  return [];
}

/** Each added bundle must be reachable from the head of each of its channels. */
function checkForBundles(t: RowStore, bundles: BundleRecord[]): string[] {
  const errs: string[] = [];
  for (const b of bundles) {
    let g;
    try {
      g = packageGraph(t, b.packageName);
    } catch (err) {
      if (!(err instanceof AddError)) throw err;
      errs.push(`unable to verify added bundles for package ${b.packageName}: ${err.message}`);
      continue;
    }
    if (g === undefined) {
      errs.push(`unable to verify added bundles for package ${b.packageName}: Package not in database`);
      continue;
    }
    for (const channel of b.channels) {
      const cg = g.channels.get(channel);
      const head: BundleKey = cg?.head ?? { csvName: '', version: '', bundlePath: '' };
      let found = false;
      const queue: BundleKey[] = [head];
      const keyText = (k: BundleKey): string => `${k.csvName}\u0000${k.version}\u0000${k.bundlePath}`;
      for (let i = 0; i < queue.length && i < 100_000; i++) {
        const k = queue[i] as BundleKey;
        if (k.bundlePath === b.image) {
          found = true;
          break;
        }
        for (const r of cg?.nodes.get(keyText(k))?.replaces.values() ?? []) queue.push(r);
      }
      if (found) continue;
      const headSkips = [...(cg?.nodes.get(keyText(head))?.replaces.values() ?? [])].map((k) => k.csvName);
      errs.push(
        `add prunes bundle ${b.name} (${b.image}) from package ${b.packageName}, channel ${channel}: this may be ` +
          `due to incorrect channel head (${head.csvName}, skips/replaces [${headSkips.join(' ')}]). ` +
          `Be aware that the head of the channel ${channel} where you are trying to add the ${b.name} is ${head.csvName}. ` +
          'Upgrade graphs follows the Semantic Versioning 2.0.0 (https://semver.org/) which means that ' +
          'is not possible add new versions lower then the head of the channel',
      );
    }
  }
  return errs;
}

/**
 * Add `bundles` to the tables as `registry add` does; returns opm's error text when it fails
 * (the tables then hold what opm would have committed before failing).
 */
export interface PopulateFlags {
  /** `--overwrite-latest`: replace the channel heads of the same CSV names. */
  overwriteLatest?: boolean;
  /** `--enable-alpha`: take bundles with `olm.substitutesFor` (substitutes-for.ts). */
  enableAlpha?: boolean;
}

export function populate(
  t: RowStore,
  bundles: BundleRecord[],
  mode: AddMode,
  flags: PopulateFlags = {},
): string | undefined {
  const overwriteLatest = flags.overwriteLatest === true;
  const alpha = flags.enableAlpha === true;
  let overwritten = new Map<string, string[]>();
  try {
    if (overwriteLatest) overwritten = overwrittenHeads(t, bundles);
  } catch (err) {
    if (!(err instanceof AddError)) throw err;
    return err.message;
  }
  const sanity = globalSanityCheck(t, bundles, overwritten.size > 0);
  if (sanity.length > 0) return aggregate(sanity);
  // Only the replaces mode removes the old heads (the semver modes then meet them as duplicates).
  if (mode === 'replaces') {
    for (const [pkg, names] of overwritten) {
      const name = names[0];
      if (name === undefined) continue;
      const e = tx(t, () => {
        removeOverwrittenChannelHead(t, pkg, name);
        return [];
      });
      if (e.length > 0) return e[0];
    }
  }
  return load(t, bundles, mode, alpha);
}

/**
 * opm's exit code for an add that failed with `message`: its checks' first "already there" error
 * decides (2: the bundle image, 3: the package and CSV), else 1.
 */
export function addExitCode(message: string): number {
  const list = message.startsWith('[') ? message.slice(1, -1).split(', ') : [message];
  for (const m of list) {
    if (/^Bundle .* already exists$/.test(m)) return 2;
    if (m === ALREADY_ADDED) return 3;
  }
  return 1;
}

function load(t: RowStore, bundles: BundleRecord[], mode: AddMode, alpha: boolean): string | undefined {
  let errs: string[];
  try {
    errs =
      mode === 'replaces'
        ? loadReplaces(t, bundles, alpha)
        : loadSemver(t, bundles, mode === 'semver-skippatch', alpha);
  } catch (err) {
    if (!(err instanceof AddError)) throw err;
    errs = [err.message];
  }
  if (errs.length > 0) return aggregate(errs);
  return aggregate(checkForBundles(t, bundles));
}
