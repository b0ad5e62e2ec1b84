/**
 * Places each channel's nodes and routes its edges with dagre's layered (Sugiyama) layout, left to
 * right in the direction of upgrades. Channels are laid out one at a time: each is a lane of its
 * own, and a lane's picture does not depend on the others.
 *
 * Node sizes come from the text they hold, measured as monospace characters, so no font metrics
 * (and no browser) are needed: the same graph gives the same coordinates everywhere.
 */
import dagre, { type EdgeLabel, type GraphLabel, type NodeLabel } from '@dagrejs/dagre';
import type { GraphChannel, GraphNode, UpgradeGraph } from './upgrade-graph.js';

export interface Point {
  x: number;
  y: number;
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface ChannelLayout {
  /** Top-left corner of each node, in the order of the channel's nodes. */
  nodes: Box[];
  /**
   * Each edge's route, start and end on the node borders: points for a smooth curve through them,
   * or, for an arc, the four points of one cubic Bézier (start, two control points, end).
   */
  edges: Point[][];
  /** Which edges are arcs. */
  arcs: boolean[];
  width: number;
  height: number;
}

/** Width of one character of a bundle name in the picture's 12 px monospace text. */
const CHAR_WIDTH = 7.4;
export const NODE_HEIGHT = 40;
const NODE_PAD_X = 12;

export function textWidth(text: string, charWidth = CHAR_WIDTH): number {
  return [...text].length * charWidth;
}

/** The second line of a node: its version, and whether the channel lists it. */
export function nodeSubtitle(n: GraphNode): string {
  if (n.listed) return n.version === '' ? 'no version' : n.version;
  return n.version === '' ? 'not in channel' : `${n.version} · not in channel`;
}

/** Wide enough for the name, and for the subtitle with a HEAD mark beside it. */
export function nodeWidth(n: GraphNode): number {
  return Math.ceil(Math.max(textWidth(n.name), textWidth(nodeSubtitle(n), 6.8) + 48, 60) + 2 * NODE_PAD_X);
}

/**
 * The edges dagre places: replaces and skips as they are, and for skipRange only the edge from the
 * nearest older bundle of each range. A skipRange covers every older bundle of a channel in the
 * common case, which is n² edges: laid out, they push the nodes apart into a tangle, and cost most
 * of the time. The one kept still puts each bundle after the ones its range covers.
 */
export function layoutEdges(ch: GraphChannel): { from: number; to: number; weight: number; key: string }[] {
  const out: { from: number; to: number; weight: number; key: string }[] = [];
  const nearest = new Map<number, number>();
  ch.edges.forEach((e, i) => {
    if (e.kind === 'skipRange') {
      if (e.from < e.to && (nearest.get(e.to) ?? -1) < e.from) nearest.set(e.to, e.from);
      return;
    }
    // Replaces edges weigh most: the replaces chain is the backbone of a channel and should run straight.
    out.push({ from: e.from, to: e.to, weight: e.kind === 'replaces' ? 4 : 2, key: String(i) });
  });
  for (const [to, from] of [...nearest].sort((a, b) => a[0] - b[0])) {
    out.push({ from, to, weight: 1, key: `range${to}` });
  }
  return out;
}

/** A skipRange edge as an arc over the lane, from the top of the older bundle to the top of the newer. */
function arc(from: Box, to: Box): Point[] {
  const sx = from.x + from.width / 2;
  const tx = to.x + to.width / 2;
  const top = Math.min(from.y, to.y) - Math.min(18 + 0.2 * Math.abs(tx - sx), 110);
  return [
    { x: sx, y: from.y },
    { x: sx + (tx - sx) * 0.15, y: top },
    { x: tx - (tx - sx) * 0.15, y: top },
    { x: tx, y: to.y },
  ];
}

/** The graph as dagre takes it: nodes by index, edges keyed by index so parallel edges stay apart. */
export function layoutChannel(ch: GraphChannel): ChannelLayout {
  if (ch.nodes.length === 0) return { nodes: [], edges: [], arcs: [], width: 0, height: 0 };
  const g = new dagre.graphlib.Graph<GraphLabel, NodeLabel, EdgeLabel>({ multigraph: true });
  g.setGraph({ rankdir: 'LR', nodesep: 14, ranksep: 44, edgesep: 8, marginx: 0, marginy: 0 });
  ch.nodes.forEach((n, i) => {
    g.setNode(String(i), { width: nodeWidth(n), height: NODE_HEIGHT });
  });
  for (const e of layoutEdges(ch))
    g.setEdge(String(e.from), String(e.to), { weight: e.weight, minlen: 1 }, e.key);
  dagre.layout(g);
  const nodes = ch.nodes.map((_, i) => {
    const l = g.node(String(i));
    return { x: (l.x ?? 0) - l.width / 2, y: (l.y ?? 0) - l.height / 2, width: l.width, height: l.height };
  });
  const arcs = ch.edges.map((e) => e.kind === 'skipRange');
  const edges = ch.edges.map((e, i) => {
    const from = nodes[e.from];
    const to = nodes[e.to];
    if (e.kind === 'skipRange' && from !== undefined && to !== undefined) return arc(from, to);
    const l: EdgeLabel = g.edge({ v: String(e.from), w: String(e.to), name: String(i) });
    return (l.points ?? []).map((p: Point) => ({ x: p.x, y: p.y }));
  });
  return normalize(nodes, edges, arcs);
}

/** Moves a layout so that its top-left corner is at 0,0, and measures it. */
export function normalize(
  nodes: Box[],
  edges: Point[][],
  arcs: boolean[] = edges.map(() => false),
): ChannelLayout {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  const see = (x: number, y: number): void => {
    minX = Math.min(minX, x);
    minY = Math.min(minY, y);
    maxX = Math.max(maxX, x);
    maxY = Math.max(maxY, y);
  };
  for (const b of nodes) {
    see(b.x, b.y);
    see(b.x + b.width, b.y + b.height);
  }
  edges.forEach((pts, i) => {
    const [a, b, c, d] = pts;
    if (arcs[i] === true && a !== undefined && b !== undefined && c !== undefined && d !== undefined) {
      // An arc's control points lie above the curve; its highest point is near the middle.
      see(a.x, a.y);
      see(d.x, d.y);
      see((a.x + 3 * b.x + 3 * c.x + d.x) / 8, (a.y + 3 * b.y + 3 * c.y + d.y) / 8 - 4);
    } else for (const p of pts) see(p.x, p.y);
  });
  return {
    nodes: nodes.map((b) => ({ ...b, x: b.x - minX, y: b.y - minY })),
    edges: edges.map((pts) => pts.map((p) => ({ x: p.x - minX, y: p.y - minY }))),
    arcs,
    width: maxX - minX,
    height: maxY - minY,
  };
}

/** Layouts of every channel of every package, in the graph's order. */
export function layoutGraph(graph: UpgradeGraph): ChannelLayout[][] {
  return graph.packages.map((p) => p.channels.map(layoutChannel));
}
