/**
 * Mermaid flowchart of a catalog's upgrade graph (opm's MermaidWriter, `alpha/declcfg/write.go`),
 * used by `alpha render-graph` and `alpha render-template -o mermaid`.
 *
 * One deliberate difference: `linkStyle` ids are counted in the order edges are written (packages
 * sorted, then channels by name), which is how Mermaid numbers links. opm counts them in
 * channel-name order across all packages, so with several packages its red "skipped" styling can land
 * on the wrong edges.
 */
import { expectConfig, expectOptions } from '../util/args.js';
import { goQuote } from '../go/fmt.js';
import { compareSemver, type SemVer } from '../model/semver.js';
import { bundleVersion } from '../model/bundle-version.js';
import { ChannelGraph, minimumEdge, narrowChannels, orZero } from '../model/channel-graph.js';
import type { DeclarativeConfig } from '../declcfg/types.js';
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

const HEADER = [
  'graph LR',
  '  classDef deprecated fill:#E8960F',
  '  classDef skipped stroke:#FF0000,stroke-width:4px',
  '  classDef deprecatedskipped fill:#E8960F,stroke:#FF0000,stroke-width:4px',
];

type Decoration = 'deprecated' | 'deprecatedskipped' | 'skipped';

/** Versions of every bundle by name (the first bundle of a name wins). */
function versionMap(cfg: DeclarativeConfig): Map<string, SemVer> {
  const versions = new Map<string, SemVer>();
  for (const b of cfg.bundles) {
    const { version } = bundleVersion(b);
    if (!versions.has(b.name)) versions.set(b.name, version);
  }
  return versions;
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

  const min = minimumEdge(minEdgeName, channels, versions);

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
  const byPackage = narrowChannels(channels, versions, packageName, min);

  const out: string[] = [...HEADER];
  const decorated = new Map<Decoration, string[]>();
  const deprecatedChannelIds: string[] = [];
  const skippedLinkIds: number[] = [];
  let linkId = 0;

  const ver = orZero((name) => versions.get(name));

  for (const pkg of [...byPackage.keys()].sort(compareUtf8)) {
    out.push(`  %% package ${goQuote(pkg)}`, `  subgraph ${goQuote(pkg)}`);
    for (const c of byPackage.get(pkg) ?? []) {
      const chanId = `${pkg}-${c.name}`;
      if (deprecatedChannels.has(c.name)) deprecatedChannelIds.push(chanId);
      out.push(`    %% channel ${goQuote(c.name)}`, `    subgraph ${chanId}[${goQuote(c.name)}]`);
      const graph = ChannelGraph.fromEntries(c.entries ?? [], ver);
      const ordered = graph.entries
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
        for (const s of e.skips) {
          out.push(`      ${chanId}-${s}[${goQuote(s)}]-- skip --> ${node}`);
          if (v0) {
            if (skipped.has(s)) skippedLinkIds.push(linkId);
            skipped.add(s);
          }
          linkId++;
        }
        const rangeError = graph.skipRangeError(e);
        if (rangeError !== undefined) {
          warn(
            `warning: ignoring invalid SkipRange for package/edge ${goQuote(c.package)}/${goQuote(e.name)}: ${rangeError}`,
          );
        }
        const label = goQuote(`skipRange(${e.skipRange})`);
        for (const other of graph.skipRangeCovers(e)) {
          out.push(`      ${chanId}-${other.name}[${goQuote(other.name)}]-- ${label} --> ${node}`);
          if (v0 && skipped.has(e.name)) skippedLinkIds.push(linkId);
          linkId++;
        }
        if (e.replaces !== '') {
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
