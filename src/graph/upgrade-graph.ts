/**
 * The upgrade graph as the picture writers (SVG, HTML) draw it: packages → channels → nodes and
 * edges, with channel heads, the default channel, deprecations and the problems `validate` finds.
 *
 * A bundle listed in several channels is one node per channel (as the Mermaid writer has it), so
 * each channel is a lane of its own. Edges point the way upgrades go: from the bundle replaced or
 * skipped to the bundle that replaces or skips it.
 */
import { OpmError } from '../errors.js';
import type { Finding } from '../findings.js';
import type { Bundle, Channel, ChannelEntry, DeclarativeConfig } from '../declcfg/types.js';
import { bundleVersion } from '../model/bundle-version.js';
import { convertToModel } from '../model/convert.js';
import { ChannelGraph, minimumEdge, narrowChannels, orZero, type EdgeKind } from '../model/channel-graph.js';
import { compareUtf8 } from '../go/utf8.js';
import { compareChannelNames } from './channel-order.js';
import { compareSemver, formatSemver, type SemVer } from '../model/semver.js';

export type { EdgeKind } from '../model/channel-graph.js';

export interface Problem {
  severity: 'error' | 'warning';
  message: string;
}

/** What a viewer shows about one channel entry. */
export interface NodeDetails {
  image: string;
  replaces: string;
  skips: string[];
  skipRange: string;
  /** Property types with their counts, e.g. `olm.gvk ×3`, in byte order of type. */
  properties: string[];
}

export interface GraphNode {
  name: string;
  /** The bundle's version ('' when it has none that parses). */
  version: string;
  /** False for a bundle that an edge names but the channel does not list. */
  listed: boolean;
  head: boolean;
  deprecation?: string;
  problems: Problem[];
  details?: NodeDetails;
}

export interface GraphEdge {
  /** Indexes into the channel's nodes. */
  from: number;
  to: number;
  kind: EdgeKind;
  /** The skipRange that drew a skipRange edge. */
  range?: string;
  problems: Problem[];
}

export interface GraphChannel {
  name: string;
  isDefault: boolean;
  deprecation?: string;
  /** Oldest version first; unlisted nodes last. */
  nodes: GraphNode[];
  edges: GraphEdge[];
  problems: Problem[];
}

export interface GraphPackage {
  name: string;
  defaultChannel: string;
  deprecation?: string;
  channels: GraphChannel[];
  problems: Problem[];
}

export interface UpgradeGraph {
  packages: GraphPackage[];
}

export interface GraphOptions {
  /** Bundle name whose version is the lower bound of the drawn edges ('' = none). */
  minEdgeName?: string;
  /** Draw only this package ('' = all). */
  packageName?: string;
}

function problemOf(f: Finding): Problem {
  return { severity: f.severity, message: f.message };
}

function propertySummary(b: Bundle): string[] {
  const counts = new Map<string, number>();
  for (const p of b.properties ?? []) counts.set(p.type, (counts.get(p.type) ?? 0) + 1);
  return [...counts.keys()]
    .sort(compareUtf8)
    .map((t) => ((counts.get(t) ?? 0) > 1 ? `${t} ×${counts.get(t) ?? 0}` : t));
}

interface BundleInfo {
  version?: SemVer;
  versionError?: string;
  blob: Bundle;
}

/** The catalog narrowed to one package, so that the checks run only over what is drawn. */
function onlyPackage(cfg: DeclarativeConfig, pkg: string): DeclarativeConfig {
  if (pkg === '') return cfg;
  return {
    packages: cfg.packages.filter((p) => p.name === pkg),
    channels: cfg.channels.filter((c) => c.package === pkg),
    bundles: cfg.bundles.filter((b) => b.package === pkg),
    deprecations: cfg.deprecations.filter((d) => d.package === pkg),
    others: [],
  };
}

/** Deprecation messages of one package, by what they deprecate. */
interface Deprecations {
  pkg?: string;
  channels: Map<string, string>;
  bundles: Map<string, string>;
}

function deprecationsOf(cfg: DeclarativeConfig): Map<string, Deprecations> {
  const out = new Map<string, Deprecations>();
  for (const d of cfg.deprecations) {
    let dep = out.get(d.package);
    if (dep === undefined) out.set(d.package, (dep = { channels: new Map(), bundles: new Map() }));
    for (const e of d.entries ?? []) {
      const name = e.reference.name ?? '';
      if (e.reference.schema === 'olm.package') dep.pkg = e.message;
      else if (e.reference.schema === 'olm.channel') dep.channels.set(name, e.message);
      else if (e.reference.schema === 'olm.bundle') dep.bundles.set(name, e.message);
    }
  }
  return out;
}

/** Which nodes and edges of a channel a finding is about, from the validator's own chain analysis. */
interface ChainMarks {
  heads: Set<string>;
  /** Nodes to mark with the channel's graph findings. */
  marked: Set<string>;
  /** Replaces edges (`from -> to` by name) on a cycle. */
  cycleEdges: Set<string>;
}

const GRAPH_RULES = new Set([
  'channel.multiple-heads',
  'channel.cycle',
  'channel.stranded',
  'channel.no-head',
]);

function buildChannel(
  c: Channel,
  infos: Map<string, BundleInfo>,
  dep: Deprecations | undefined,
  isDefault: boolean,
  marks: ChainMarks | undefined,
  findings: Finding[],
): GraphChannel {
  const entries = c.entries ?? [];
  const ver = orZero((name) => infos.get(name)?.version);
  const listed = new Map<string, ChannelEntry>();
  for (const e of entries) if (!listed.has(e.name)) listed.set(e.name, e);

  const sorted = [...listed.keys()].sort((a, b) => compareSemver(ver(a), ver(b)) || compareUtf8(a, b));
  const unlisted = new Set<string>();
  for (const e of entries) {
    for (const n of [e.replaces ?? '', ...(e.skips ?? [])]) if (n !== '' && !listed.has(n)) unlisted.add(n);
  }
  const names = [...sorted, ...[...unlisted].sort(compareUtf8)];
  const index = new Map(names.map((n, i) => [n, i]));

  const graphProblems = findings.filter((f) => f.bundle === undefined && GRAPH_RULES.has(f.rule));
  const nodes: GraphNode[] = names.map((name) => {
    const info = infos.get(name);
    const entry = listed.get(name);
    const node: GraphNode = {
      name,
      version: info?.version === undefined ? '' : formatSemver(info.version),
      listed: entry !== undefined,
      head: marks?.heads.has(name) ?? false,
      problems: [],
    };
    const deprecation = dep?.bundles.get(name);
    if (deprecation !== undefined) node.deprecation = deprecation;
    if (info?.versionError !== undefined)
      node.problems.push({ severity: 'error', message: info.versionError });
    if (marks?.marked.has(name)) node.problems.push(...graphProblems.map(problemOf));
    for (const f of findings) if (f.bundle === name) node.problems.push(problemOf(f));
    if (entry !== undefined) {
      node.details = {
        image: info?.blob.image ?? '',
        replaces: entry.replaces ?? '',
        skips: [...(entry.skips ?? [])],
        skipRange: entry.skipRange ?? '',
        properties: info === undefined ? [] : propertySummary(info.blob),
      };
    }
    return node;
  });

  const edges: GraphEdge[] = [];
  const add = (from: string, to: string, kind: EdgeKind, range?: string): void => {
    const f = index.get(from);
    const t = index.get(to);
    if (f === undefined || t === undefined) return;
    const edge: GraphEdge = { from: f, to: t, kind, problems: [] };
    if (range !== undefined) edge.range = range;
    if (kind === 'replaces' && marks?.cycleEdges.has(`${to} -> ${from}`)) {
      edge.problems.push(...findings.filter((x) => x.rule === 'channel.cycle').map(problemOf));
    }
    edges.push(edge);
  };
  // Into each node: its replaces, its skips, then what its skipRange covers, oldest first.
  const graph = ChannelGraph.fromEntries(entries, ver);
  const position = (n: string): number => index.get(n) ?? 0;
  for (const name of sorted) {
    const e = graph.entry(name);
    if (e === undefined) continue;
    const into = graph.edgesInto(e);
    const covered = into.filter((x) => x.kind === 'skipRange');
    covered.sort((a, b) => position(a.from) - position(b.from));
    for (const x of into) if (x.kind !== 'skipRange') add(x.from, x.to, x.kind);
    for (const x of covered) add(x.from, x.to, 'skipRange', e.skipRange);
  }

  const ch: GraphChannel = {
    name: c.name,
    isDefault,
    nodes,
    edges,
    problems: findings.filter((f) => f.bundle === undefined).map(problemOf),
  };
  const deprecation = dep?.channels.get(c.name);
  if (deprecation !== undefined) ch.deprecation = deprecation;
  return ch;
}

/** Build the graph of `cfg` (narrowed by `-p` and `--minimum-edge` as the Mermaid writer narrows it). */
export function buildUpgradeGraph(cfg: DeclarativeConfig, options: GraphOptions = {}): UpgradeGraph {
  const packageName = options.packageName ?? '';
  const minEdgeName = options.minEdgeName ?? '';
  const scoped = onlyPackage(cfg, packageName);

  const infos = new Map<string, Map<string, BundleInfo>>();
  const semvers = new Map<string, SemVer>();
  for (const b of scoped.bundles) {
    let m = infos.get(b.package);
    if (m === undefined) infos.set(b.package, (m = new Map()));
    if (m.has(b.name)) continue;
    try {
      const { version } = bundleVersion(b);
      m.set(b.name, { version, blob: b });
      if (!semvers.has(b.name)) semvers.set(b.name, version);
    } catch (e) {
      if (!(e instanceof OpmError)) throw e;
      m.set(b.name, { versionError: e.message, blob: b });
    }
  }

  // Channels by name with their numbers read as numbers (stable-3.6 before stable-3.10).
  const channels = [...scoped.channels].sort((a, b) => compareChannelNames(a.name, b.name));
  const min = minimumEdge(minEdgeName, channels, semvers);

  // The validator's findings and chain analysis, over the whole (unfiltered) package, so that a
  // narrowed view shows the problems the catalog really has.
  const { model, findings } = convertToModel(scoped);
  const deprecations = deprecationsOf(scoped);

  const byPackage = narrowChannels(channels, semvers, packageName, min);
  // Packages without any channel left are still listed when nothing narrows the view.
  if (minEdgeName === '')
    for (const p of scoped.packages) if (!byPackage.has(p.name)) byPackage.set(p.name, []);

  const packages: GraphPackage[] = [];
  for (const pkg of [...byPackage.keys()].sort(compareUtf8)) {
    const mp = model.get(pkg);
    const pkgFindings = findings.filter((f) => f.package === pkg);
    const dep = deprecations.get(pkg);
    const defaultChannel = mp?.defaultChannelName ?? '';
    const graphChannels = (byPackage.get(pkg) ?? []).map((c) => {
      const mc = mp?.channels.get(c.name);
      let marks: ChainMarks | undefined;
      if (mc !== undefined) {
        const a = ChannelGraph.fromModel(mc).chain();
        const marked = new Set<string>(a.stranded);
        if (a.heads.length > 1) for (const h of a.heads) marked.add(h);
        const cycleEdges = new Set<string>();
        if (a.cycle !== undefined) {
          for (const n of a.cycle) marked.add(n);
          for (let i = 0; i + 1 < a.cycle.length; i++)
            cycleEdges.add(`${a.cycle[i] ?? ''} -> ${a.cycle[i + 1] ?? ''}`);
        }
        marks = { heads: new Set(a.heads), marked, cycleEdges };
      }
      return buildChannel(
        c,
        infos.get(pkg) ?? new Map(),
        dep,
        c.name === defaultChannel,
        marks,
        pkgFindings.filter((f) => f.channel === c.name),
      );
    });
    const gp: GraphPackage = {
      name: pkg,
      defaultChannel,
      channels: graphChannels,
      problems: pkgFindings.filter((f) => f.channel === undefined && f.bundle === undefined).map(problemOf),
    };
    // Bundle findings without a channel (duplicate versions, deprecations) go on every node of it.
    for (const f of pkgFindings) {
      if (f.channel !== undefined || f.bundle === undefined) continue;
      for (const ch of graphChannels)
        for (const n of ch.nodes) if (n.name === f.bundle) n.problems.push(problemOf(f));
    }
    if (dep?.pkg !== undefined) gp.deprecation = dep.pkg;
    packages.push(gp);
  }
  return { packages };
}
