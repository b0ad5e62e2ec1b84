/**
 * What a drawn upgrade graph must contain, worked out from the catalog on its own: the nodes and
 * edges of every channel, with skipRange matched by node-semver (not by the project's semver code),
 * so the writers are checked against an independent reading of the catalog.
 */
import semver from 'semver';
import type { DeclarativeConfig } from '../../src/declcfg/types.js';

export interface ExpectedChannel {
  package: string;
  channel: string;
  /** Every bundle the channel lists. */
  entries: string[];
  /** Listed bundles and the bundles their replaces/skips name. */
  nodes: string[];
  /** `kind from -> to`, one per edge, sorted. */
  edges: string[];
}

function versionOf(cfg: DeclarativeConfig): Map<string, string> {
  const out = new Map<string, string>();
  for (const b of cfg.bundles) {
    const p = (b.properties ?? []).find((x) => x.type === 'olm.package');
    const v = (p?.value as { version?: unknown } | undefined)?.version;
    if (typeof v === 'string' && !out.has(`${b.package}/${b.name}`)) out.set(`${b.package}/${b.name}`, v);
  }
  return out;
}

export function expectedChannels(cfg: DeclarativeConfig, onlyPackage = ''): ExpectedChannel[] {
  const versions = versionOf(cfg);
  const out: ExpectedChannel[] = [];
  for (const c of cfg.channels) {
    if (onlyPackage !== '' && c.package !== onlyPackage) continue;
    const entries = [...new Set((c.entries ?? []).map((e) => e.name))];
    const nodes = new Set(entries);
    const edges: string[] = [];
    for (const name of entries) {
      const e = (c.entries ?? []).find((x) => x.name === name);
      if (e === undefined) continue;
      if (e.replaces) {
        nodes.add(e.replaces);
        edges.push(`replaces ${e.replaces} -> ${name}`);
      }
      for (const s of e.skips ?? []) {
        nodes.add(s);
        edges.push(`skips ${s} -> ${name}`);
      }
      if (e.skipRange && semver.validRange(e.skipRange) !== null) {
        for (const other of entries) {
          const v = versions.get(`${c.package}/${other}`);
          if (other === name || v === undefined) continue;
          if (semver.satisfies(v, e.skipRange, { includePrerelease: true })) {
            edges.push(`skipRange ${other} -> ${name}`);
          }
        }
      }
    }
    out.push({ package: c.package, channel: c.name, entries, nodes: [...nodes].sort(), edges: edges.sort() });
  }
  return out;
}
