/**
 * Mermaid flowchart of a catalog's upgrade graph (opm's MermaidWriter, `alpha/declcfg/write.go`),
 * used by `alpha render-graph` and `alpha render-template -o mermaid`.
 *
 * One deliberate difference: `linkStyle` ids are counted in the order edges are written (packages
 * sorted, then channels by name), which is how Mermaid numbers links. opm counts them in
 * channel-name order across all packages, so with several packages its red "skipped" styling can land
 * on the wrong edges.
 */
import { OpmError } from '../errors.js';
import { expectConfig, expectOptions } from '../util/args.js';
import { goQuote } from '../go/fmt.js';
import { SemverError, compareSemver, parseRange, type SemVer, type SemverRange } from '../model/semver.js';
import { bundleVersion } from '../model/bundle-version.js';
import type { Channel, ChannelEntry, DeclarativeConfig } from '../declcfg/types.js';
import { compareUtf8 } from '../go/utf8.js';

export interface MermaidOptions {
  /** Bundle name whose version is the lower bound of the drawn edges ('' = none). */
  minEdgeName?: string;
  /** Draw only this package's channels ('' = all). */
  packageName?: string;
  /** Mark skipped bundles and their edges (opm's "v0 semantics"); default true. */
  drawV0Semantics?: boolean;
  /** Receives warnings (an unparsable skipRange). */
  warn?: (line: string) => void;
}

const ZERO: SemVer = { major: 0n, minor: 0n, patch: 0n, pre: [], build: [] };

const HEADER = [
  'graph LR',
  '  classDef deprecated fill:#E8960F',
  '  classDef skipped stroke:#FF0000,stroke-width:4px',
  '  classDef deprecatedskipped fill:#E8960F,stroke:#FF0000,stroke-width:4px',
];

type Decoration = 'deprecated' | 'deprecatedskipped' | 'skipped';

function tryRange(s: string): SemverRange | undefined {
  try {
    return parseRange(s);
  } catch (e) {
    if (e instanceof SemverError) return undefined;
    throw e;
  }
}

/** Versions of every bundle by name (the first bundle of a name wins). */
function versionMap(cfg: DeclarativeConfig): Map<string, SemVer> {
  const versions = new Map<string, SemVer>();
  for (const b of cfg.bundles) {
    const { version } = bundleVersion(b);
    if (!versions.has(b.name)) versions.set(b.name, version);
  }
  return versions;
}

/**
 * Keep only edges at or above the floor version: the floor entry loses its edges; other entries
 * keep a replaces or skip at or above the floor and a skipRange that includes it; an entry left
 * without edges stays only if it never had any and is itself at or above the floor. Returns
 * undefined when nothing is left to draw.
 */
export function filterChannel(
  c: Channel,
  versions: Map<string, SemVer>,
  opts: { minEdgeName: string; packageName: string; floor: SemVer; floorPackage: string },
): Channel | undefined {
  if (opts.minEdgeName === '' && opts.packageName === '') return c;
  if (opts.packageName !== '' && c.package !== opts.packageName) return undefined;
  if (opts.minEdgeName === '') return c;
  if (c.package !== opts.floorPackage) return undefined;
  const ver = (name: string): SemVer => versions.get(name) ?? ZERO;
  const atLeastFloor = (name: string): boolean => compareSemver(ver(name), opts.floor) >= 0;
  const out: ChannelEntry[] = [];
  for (const e of c.entries ?? []) {
    if (e.name === opts.minEdgeName) {
      out.push({ name: e.name });
      continue;
    }
    const kept: ChannelEntry = { name: e.name };
    if (e.replaces !== undefined && e.replaces !== '' && atLeastFloor(e.replaces)) kept.replaces = e.replaces;
    const skips = (e.skips ?? []).filter(atLeastFloor);
    if (skips.length > 0) kept.skips = skips;
    if (e.skipRange !== undefined && e.skipRange !== '') {
      const r = tryRange(e.skipRange);
      if (r !== undefined && r(opts.floor)) kept.skipRange = e.skipRange;
    }
    const hasEdges = kept.replaces !== undefined || kept.skips !== undefined || kept.skipRange !== undefined;
    const hadEdges =
      (e.replaces !== undefined && e.replaces !== '') ||
      (e.skips !== undefined && e.skips.length > 0) ||
      (e.skipRange !== undefined && e.skipRange !== '');
    if (hasEdges || (!hadEdges && atLeastFloor(e.name))) out.push(kept);
  }
  if (out.length === 0) return undefined;
  return { ...c, entries: out };
}

/** Render the channels of `cfg` as a Mermaid flowchart. */
export function writeMermaid(cfg: DeclarativeConfig, options: MermaidOptions = {}): string {
  expectConfig(cfg, 'writeMermaid(cfg)');
  expectOptions(options, 'writeMermaid(cfg, options)');
  const minEdgeName = options.minEdgeName ?? '';
  const packageName = options.packageName ?? '';
  const v0 = options.drawV0Semantics ?? true;
  const warn = options.warn ?? (() => undefined);

  const channels = [...cfg.channels].sort((a, b) => compareUtf8(a.name, b.name));
  const versions = versionMap(cfg);

  let floor = ZERO;
  let floorPackage = '';
  if (minEdgeName !== '') {
    const v = versions.get(minEdgeName);
    if (v === undefined) {
      throw new OpmError(`unknown minimum edge name: ${goQuote(minEdgeName)}`);
    }
    floor = v;
    const owner = channels.find((c) => (c.entries ?? []).some((e) => e.name === minEdgeName));
    floorPackage = owner?.package ?? '';
  }

  const deprecatedPackages: string[] = [];
  const deprecatedChannels = new Set<string>();
  const deprecatedBundles = new Set<string>();
  for (const d of cfg.deprecations) {
    for (const e of d.entries ?? []) {
      if (e.reference.schema === 'olm.package') deprecatedPackages.push(d.package);
      else if (e.reference.schema === 'olm.channel') deprecatedChannels.add(e.reference.name ?? '');
      else if (e.reference.schema === 'olm.bundle') deprecatedBundles.add(e.reference.name ?? '');
    }
  }

  // Group the surviving channels by package; packages are written in sorted order, and edges
  // are numbered in that same written order.
  const byPackage = new Map<string, Channel[]>();
  for (const c of channels) {
    const f = filterChannel(c, versions, { minEdgeName, packageName, floor, floorPackage });
    if (f === undefined) continue;
    const list = byPackage.get(f.package);
    if (list === undefined) byPackage.set(f.package, [f]);
    else list.push(f);
  }

  const out: string[] = [...HEADER];
  const decorated = new Map<Decoration, string[]>();
  const deprecatedChannelIds: string[] = [];
  const skippedLinkIds: number[] = [];
  let linkId = 0;

  const ver = (name: string): SemVer => versions.get(name) ?? ZERO;

  for (const pkg of [...byPackage.keys()].sort(compareUtf8)) {
    out.push(`  %% package ${goQuote(pkg)}`, `  subgraph ${goQuote(pkg)}`);
    for (const c of byPackage.get(pkg) ?? []) {
      const chanId = `${pkg}-${c.name}`;
      if (deprecatedChannels.has(c.name)) deprecatedChannelIds.push(chanId);
      out.push(`    %% channel ${goQuote(c.name)}`, `    subgraph ${chanId}[${goQuote(c.name)}]`);
      const entries = c.entries ?? [];
      const ordered = entries
        .map((e, i) => ({ e, i }))
        .sort((a, b) => compareSemver(ver(b.e.name), ver(a.e.name)) || a.i - b.i)
        .map((x) => x.e);
      const skipped = new Set<string>();
      for (const e of ordered) {
        const nodeId = `${chanId}-${e.name}`;
        const node = `${nodeId}[${goQuote(e.name)}]`;
        const isSkipped = v0 && skipped.has(e.name);
        const isDeprecated = deprecatedBundles.has(e.name);
        const decoration: Decoration | undefined =
          isSkipped && isDeprecated
            ? 'deprecatedskipped'
            : isSkipped
              ? 'skipped'
              : isDeprecated
                ? 'deprecated'
                : undefined;
        if (decoration !== undefined) {
          const ids = decorated.get(decoration);
          if (ids === undefined) decorated.set(decoration, [nodeId]);
          else ids.push(nodeId);
        }
        out.push(`      ${node}`);
        for (const s of e.skips ?? []) {
          out.push(`      ${chanId}-${s}[${goQuote(s)}]-- skip --> ${node}`);
          if (v0) {
            if (skipped.has(s)) skippedLinkIds.push(linkId);
            skipped.add(s);
          }
          linkId++;
        }
        if (e.skipRange !== undefined && e.skipRange !== '') {
          let range: SemverRange | undefined;
          try {
            range = parseRange(e.skipRange);
          } catch (err) {
            if (!(err instanceof SemverError)) throw err;
            warn(
              `warning: ignoring invalid SkipRange for package/edge ${goQuote(c.package)}/${goQuote(e.name)}: ${err.message}`,
            );
          }
          if (range !== undefined) {
            const label = goQuote(`skipRange(${e.skipRange})`);
            for (const other of entries) {
              if (!range(ver(other.name))) continue;
              out.push(`      ${chanId}-${other.name}[${goQuote(other.name)}]-- ${label} --> ${node}`);
              if (v0 && skipped.has(e.name)) skippedLinkIds.push(linkId);
              linkId++;
            }
          }
        }
        if (e.replaces !== undefined && e.replaces !== '') {
          out.push(`      ${chanId}-${e.replaces}[${goQuote(e.replaces)}]-- replace --> ${node}`);
          if (v0 && skipped.has(e.name)) skippedLinkIds.push(linkId);
          linkId++;
        }
      }
      out.push('    end');
    }
    out.push('  end');
  }

  const lastDeprecatedPackage = deprecatedPackages[deprecatedPackages.length - 1];
  if (lastDeprecatedPackage !== undefined) out.push(`style ${lastDeprecatedPackage} fill:#989695`);
  for (const id of deprecatedChannelIds) out.push(`style ${id} fill:#DCD0FF`);
  for (const key of ['deprecated', 'deprecatedskipped', 'skipped'] as const) {
    const ids = decorated.get(key);
    if (ids === undefined || ids.length === 0) continue;
    out.push(`class ${[...ids].sort(compareUtf8).join(',')} ${key}`);
  }
  if (skippedLinkIds.length > 0) {
    out.push(`linkStyle ${skippedLinkIds.join(',')} stroke:#FF0000,stroke-width:3px,stroke-dasharray:5;`);
  }
  return out.join('\n') + '\n';
}
