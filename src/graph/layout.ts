/**
 * Places each channel's nodes and routes its edges with dagre's layered (Sugiyama) layout, left to
 * right in the direction of upgrades, or, for long lanes, chains and very large graphs, with a
 * layered layout of our own that takes time linear in the size of the lane (layoutLine). Channels
 * are laid out one at a time: each is a lane of its own.
 *
 * Node sizes come from the text they hold, measured as monospace characters, so no font metrics
 * (and no browser) are needed: the same graph gives the same coordinates everywhere.
 */
import dagre, { type EdgeLabel, type GraphLabel, type NodeLabel } from '@dagrejs/dagre';
import type { GraphChannel, GraphNode, UpgradeGraph } from './upgrade-graph.js';
import { rankNodes } from './rank-nodes.js';

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
  /**
   * A wrapped lane's edges (wrap.ts), each as the parts it is drawn in: routes of their own, an
   * arc's part one cubic Bézier as an arc is. Without it, each edge is its one route.
   */
  parts?: Point[][][];
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

/** What the layout did, for tests that hold its cost to the size of the graph. */
export interface LayoutStats {
  /** dagre runs, the nodes handed to them in all, and the most handed to one run. */
  dagreRuns: number;
  dagreNodes: number;
  largestDagre: number;
  /** Nodes placed without dagre, in time linear in the size of their part of the lane. */
  chainNodes: number;
}

export function newLayoutStats(): LayoutStats {
  return { dagreRuns: 0, dagreNodes: 0, largestDagre: 0, chainNodes: 0 };
}

/**
 * Lanes up to this many nodes are laid out by dagre as a whole, unless they are a plain chain.
 * dagre's cost grows faster than the graph (about 0.2 s at 200 nodes, 0.7 s at 400, and some 3 ms
 * however small the graph), and its recursion overflows the stack near 2,000 nodes.
 */
export const DAGRE_MAX_NODES = 150;
const RANKSEP = 44;
const NODESEP = 14;
/** Edges over more ranks than this are drawn straight by layoutLine, not given a row of their own. */
const TRACK_SPAN = 100;

type LayoutEdge = ReturnType<typeof layoutEdges>[number];

/** Node boxes (top-left corners) and edge routes, keyed as the layout edges are. */
interface Placement {
  boxes: Box[];
  routes: Map<string, Point[]>;
}

/** dagre over nodes of the given widths and edges between their indexes. */
function runDagre(widths: readonly number[], edges: readonly LayoutEdge[], stats?: LayoutStats): Placement {
  if (stats !== undefined) {
    stats.dagreRuns++;
    stats.dagreNodes += widths.length;
    stats.largestDagre = Math.max(stats.largestDagre, widths.length);
  }
  const g = new dagre.graphlib.Graph<GraphLabel, NodeLabel, EdgeLabel>({ multigraph: true });
  g.setGraph({ rankdir: 'LR', nodesep: NODESEP, ranksep: RANKSEP, edgesep: 8, marginx: 0, marginy: 0 });
  widths.forEach((width, i) => {
    g.setNode(String(i), { width, height: NODE_HEIGHT });
  });
  for (const e of edges) g.setEdge(String(e.from), String(e.to), { weight: e.weight, minlen: 1 }, e.key);
  dagre.layout(g);
  const boxes = widths.map((_, i) => {
    const l = g.node(String(i));
    return { x: (l.x ?? 0) - l.width / 2, y: (l.y ?? 0) - l.height / 2, width: l.width, height: l.height };
  });
  const routes = new Map<string, Point[]>();
  for (const e of edges) {
    const l: EdgeLabel = g.edge({ v: String(e.from), w: String(e.to), name: e.key });
    routes.set(
      e.key,
      (l.points ?? []).map((p: Point) => ({ x: p.x, y: p.y })),
    );
  }
  return { boxes, routes };
}

/**
 * Runs `place` on the part of a graph made of `members` (indexes, ascending) and `inner`, the edges
 * between them, renumbered from 0 (`local` is -1 everywhere, and is again when it returns).
 */
function placePart(
  members: readonly number[],
  widths: readonly number[],
  inner: readonly LayoutEdge[],
  local: Int32Array,
  place: (widths: number[], edges: LayoutEdge[]) => Placement,
): Placement {
  members.forEach((v, i) => (local[v] = i));
  const renumbered = inner.map((e) => ({ ...e, from: local[e.from] ?? 0, to: local[e.to] ?? 0 }));
  const placed = place(
    members.map((v) => widths[v] ?? 0),
    renumbered,
  );
  for (const v of members) local[v] = -1;
  return placed;
}

/** The smallest box around a placement's nodes and routes. */
function bounds(p: Placement): { minX: number; minY: number; maxX: number; maxY: number } {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const b of p.boxes) {
    minX = Math.min(minX, b.x);
    minY = Math.min(minY, b.y);
    maxX = Math.max(maxX, b.x + b.width);
    maxY = Math.max(maxY, b.y + b.height);
  }
  for (const pts of p.routes.values())
    for (const q of pts) {
      minX = Math.min(minX, q.x);
      minY = Math.min(minY, q.y);
      maxX = Math.max(maxX, q.x);
      maxY = Math.max(maxY, q.y);
    }
  return { minX, minY, maxX, maxY };
}

/** A straight route between two placed nodes, border to border, bent nowhere (as dagre routes a chain edge). */
function straightRoute(from: Box, to: Box): Point[] {
  const forward = from.x + from.width / 2 <= to.x + to.width / 2;
  const a = { x: forward ? from.x + from.width : from.x, y: from.y + from.height / 2 };
  const b = { x: forward ? to.x : to.x + to.width, y: to.y + to.height / 2 };
  return [a, { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 }, b];
}

/** A loop on the right side of a node, for a bundle that replaces or skips itself. */
function selfLoop(b: Box): Point[] {
  const r = b.x + b.width;
  const cy = b.y + b.height / 2;
  return [
    { x: r, y: cy - 8 },
    { x: r + 20, y: cy - 16 },
    { x: r + 20, y: cy + 16 },
    { x: r, y: cy + 8 },
  ];
}

/**
 * A connected graph laid out in time linear in its size, as a lane of a channel is: a column per
 * rank (rankNodes), and along the top row the lane's line, the path a reader follows first: from
 * the first rank, each step takes the heaviest edge (replaces before skips before skipRange), then
 * the one whose successors reach furthest, then the longest. The other nodes of a rank go under its
 * line node in the order of the channel (oldest first). Edges between next ranks, or along a row
 * that is free over the ranks between, are drawn straight from border to border; longer ones run
 * along a row of their own under the bundles they pass. On a chain this is exactly dagre's
 * picture; where a bundle is skipped, it hangs under the line as dagre hangs it.
 */
function layoutLine(widths: readonly number[], edges: readonly LayoutEdge[], stats?: LayoutStats): Placement {
  const n = widths.length;
  if (stats !== undefined) stats.chainNodes += n;
  const { rank, tail, head } = rankNodes(n, edges);
  let maxRank = 0;
  for (const r of rank) maxRank = Math.max(maxRank, r);
  // Nodes by rank (a counting sort), and each node's edges as they point after rankNodes.
  const first = new Int32Array(maxRank + 2);
  for (const r of rank) first[r + 1] = (first[r + 1] ?? 0) + 1;
  for (let r = 0; r <= maxRank; r++) first[r + 1] = (first[r + 1] ?? 0) + (first[r] ?? 0);
  const byRank = new Int32Array(n);
  const fill = first.slice(0, maxRank + 1);
  for (let v = 0; v < n; v++) {
    const r = rank[v] ?? 0;
    byRank[fill[r] ?? 0] = v;
    fill[r] = (fill[r] ?? 0) + 1;
  }
  const outs: number[][] = Array.from({ length: n }, () => []);
  for (let i = 0; i < edges.length; i++) if (tail[i] !== head[i]) outs[tail[i] ?? 0]?.push(i);
  // far[v]: the furthest rank reached from v.
  const far = Int32Array.from(rank);
  for (let k = n - 1; k >= 0; k--) {
    const v = byRank[k] ?? 0;
    for (const i of outs[v] ?? []) far[v] = Math.max(far[v] ?? 0, far[head[i] ?? 0] ?? 0);
  }
  const row = new Int32Array(n).fill(-1);
  let v = -1;
  for (let k = 0; k < n && rank[byRank[k] ?? 0] === 0; k++) {
    const u = byRank[k] ?? 0;
    if (v < 0 || (far[u] ?? 0) > (far[v] ?? 0)) v = u;
  }
  while (v >= 0) {
    row[v] = 0;
    let best = -1;
    for (const i of outs[v] ?? []) {
      if (best < 0) {
        best = i;
        continue;
      }
      const w = head[i] ?? 0;
      const bw = head[best] ?? 0;
      const di =
        (edges[i]?.weight ?? 0) - (edges[best]?.weight ?? 0) ||
        (far[w] ?? 0) - (far[bw] ?? 0) ||
        (rank[w] ?? 0) - (rank[bw] ?? 0) ||
        bw - w;
      if (di > 0) best = i;
    }
    v = best < 0 ? -1 : (head[best] ?? 0);
  }
  const widest = new Float64Array(maxRank + 1);
  for (let u = 0; u < n; u++) widest[rank[u] ?? 0] = Math.max(widest[rank[u] ?? 0] ?? 0, widths[u] ?? 0);
  const xs = new Float64Array(maxRank + 1);
  for (let r = 1; r <= maxRank; r++) xs[r] = (xs[r - 1] ?? 0) + (widest[r - 1] ?? 0) + RANKSEP;
  const boxes: Box[] = new Array<Box>(n);
  for (let r = 0; r <= maxRank; r++) {
    let next = 1;
    for (let k = first[r] ?? 0; k < (first[r + 1] ?? 0); k++) {
      const u = byRank[k] ?? 0;
      if (row[u] !== 0) row[u] = next++;
      const width = widths[u] ?? 0;
      boxes[u] = {
        x: (xs[r] ?? 0) + ((widest[r] ?? 0) - width) / 2,
        y: (row[u] ?? 0) * (NODE_HEIGHT + NODESEP),
        width,
        height: NODE_HEIGHT,
      };
    }
  }
  // The lowest row taken at each rank, and whether the line passes through it.
  const lowest = new Int32Array(maxRank + 1);
  const onLine = new Uint8Array(maxRank + 1);
  for (let u = 0; u < n; u++) {
    const r = rank[u] ?? 0;
    lowest[r] = Math.max(lowest[r] ?? 0, row[u] ?? 0);
    if (row[u] === 0) onLine[r] = 1;
  }
  const free = (r: number, k: number): boolean => (k === 0 ? onLine[r] === 0 : k > (lowest[r] ?? 0));
  const routes = new Map<string, Point[]>();
  const tracked: { edge: LayoutEdge; lo: number; hi: number; floor: number }[] = [];
  for (const e of edges) {
    const from = boxes[e.from];
    const to = boxes[e.to];
    if (from === undefined || to === undefined) continue;
    if (e.from === e.to) {
      routes.set(e.key, selfLoop(from));
      continue;
    }
    const [rf, rt] = [rank[e.from] ?? 0, rank[e.to] ?? 0];
    const [lo, hi] = rf < rt ? [rf, rt] : [rt, rf];
    // Straight when nothing is in the way: next ranks, or a row free over every rank between.
    // skipRange's own edges are drawn as arcs, and edges over more than TRACK_SPAN ranks straight.
    let straight = rf < rt && (hi - lo === 1 || e.key.startsWith('range') || hi - lo > TRACK_SPAN);
    if (!straight && rf < rt && row[e.from] === row[e.to]) {
      straight = true;
      for (let r = lo + 1; r < hi && straight; r++) straight = free(r, row[e.from] ?? 0);
    }
    if (straight) {
      routes.set(e.key, straightRoute(from, to));
      continue;
    }
    // Otherwise it runs along a row of its own under the ranks it passes, as dagre routes a long
    // edge through a column of dummy nodes; an edge turned round by a cycle goes under, too.
    let floor = 1;
    for (let r = lo + 1; r < hi; r++) floor = Math.max(floor, (lowest[r] ?? 0) + 1);
    tracked.push({ edge: e, lo, hi, floor });
  }
  // Rows for the long edges, leftmost first: each takes the first row at or under its floor that
  // no other long edge holds over the same ranks.
  tracked.sort((a, b) => a.lo - b.lo || a.hi - b.hi);
  const heldUntil: number[] = [];
  for (const { edge: e, lo, hi, floor } of tracked) {
    let k = floor;
    while ((heldUntil[k] ?? -1) >= lo) k++;
    heldUntil[k] = hi - 1;
    const y = k * (NODE_HEIGHT + NODESEP) + NODE_HEIGHT / 2;
    const [left, right] = (rank[e.from] ?? 0) < (rank[e.to] ?? 0) ? [e.from, e.to] : [e.to, e.from];
    const a = boxes[left];
    const b = boxes[right];
    if (a === undefined || b === undefined) continue;
    const pts: Point[] = [
      { x: a.x + a.width, y: a.y + a.height / 2 },
      { x: (xs[lo + 1] ?? 0) - RANKSEP / 2, y },
    ];
    for (let r = lo + 1; r < hi; r++) pts.push({ x: (xs[r] ?? 0) + (widest[r] ?? 0) / 2, y });
    pts.push({ x: (xs[hi] ?? 0) - RANKSEP / 2, y }, { x: b.x, y: b.y + b.height / 2 });
    routes.set(e.key, left === e.from ? pts : pts.reverse());
  }
  return { boxes, routes };
}

/** Whether a graph is one path (a chain of replaces and nothing else), which layoutLine draws as dagre does. */
function isPath(n: number, edges: readonly LayoutEdge[]): boolean {
  if (edges.length !== n - 1) return false;
  const next = new Int32Array(n).fill(-1);
  const into = new Uint8Array(n);
  for (const e of edges) {
    if (e.from === e.to || next[e.from] !== -1 || into[e.to] !== 0) return false;
    next[e.from] = e.to;
    into[e.to] = 1;
  }
  let v = into.indexOf(0);
  let seen = 0;
  while (v >= 0 && seen <= n) {
    seen++;
    v = next[v] ?? -1;
  }
  return seen === n;
}

/**
 * A lane too large for dagre at once, or a chain: each connected part is laid out on its own (by
 * dagre when it is small and not a chain, by layoutLine when it is not), and the parts are stacked
 * top to bottom, the first bundle's first.
 */
function layoutLarge(
  widths: readonly number[],
  edges: readonly LayoutEdge[],
  stats: LayoutStats | undefined,
  dagreMaxNodes: number,
): Placement {
  const n = widths.length;
  const parent = Int32Array.from({ length: n }, (_, i) => i);
  const find = (v: number): number => {
    let r = v;
    while ((parent[r] ?? r) !== r) r = parent[r] ?? r;
    while ((parent[v] ?? v) !== r) {
      const up = parent[v] ?? v;
      parent[v] = r;
      v = up;
    }
    return r;
  };
  for (const e of edges) {
    const a = find(e.from);
    const b = find(e.to);
    if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
  }
  const parts = new Map<number, { nodes: number[]; edges: LayoutEdge[] }>();
  for (let v = 0; v < n; v++) {
    const r = find(v);
    const part = parts.get(r);
    if (part === undefined) parts.set(r, { nodes: [v], edges: [] });
    else part.nodes.push(v);
  }
  for (const e of edges) parts.get(find(e.from))?.edges.push(e);
  const boxes: Box[] = new Array<Box>(n);
  const routes = new Map<string, Point[]>();
  const local = new Int32Array(n).fill(-1);
  let top = 0;
  // Map order is insertion order: parts come by their first node.
  for (const { nodes: list, edges: inner } of parts.values()) {
    const placed = placePart(list, widths, inner, local, (w, e) =>
      w.length <= dagreMaxNodes && !isPath(w.length, e) ? runDagre(w, e, stats) : layoutLine(w, e, stats),
    );
    const box = bounds(placed);
    const dx = -box.minX;
    const dy = top - box.minY;
    list.forEach((v, i) => {
      const p = placed.boxes[i];
      if (p !== undefined) boxes[v] = { ...p, x: p.x + dx, y: p.y + dy };
    });
    for (const [key, pts] of placed.routes)
      routes.set(
        key,
        pts.map((q) => ({ x: q.x + dx, y: q.y + dy })),
      );
    top += box.maxY - box.minY + NODESEP;
  }
  return { boxes, routes };
}

/**
 * One channel's picture. Up to DAGRE_MAX_NODES nodes, dagre lays out the whole lane, as it always
 * has; a larger lane, or a plain chain of any length (drawn by layoutLine exactly as dagre draws
 * it, in a fraction of the time), is laid out part by part (layoutLarge), in time and memory that
 * grow with its size. Tests and benchmarks may force one `engine` to compare the two.
 */
export function layoutChannel(
  ch: GraphChannel,
  stats?: LayoutStats,
  engine: 'auto' | 'dagre' | 'line' = 'auto',
): ChannelLayout {
  if (ch.nodes.length === 0) return { nodes: [], edges: [], arcs: [], width: 0, height: 0 };
  const widths = ch.nodes.map(nodeWidth);
  const layoutEdgeList = layoutEdges(ch);
  const whole =
    engine === 'dagre' ||
    (engine === 'auto' && ch.nodes.length <= DAGRE_MAX_NODES && !isPath(widths.length, layoutEdgeList));
  const placed = whole
    ? runDagre(widths, layoutEdgeList, stats)
    : layoutLarge(widths, layoutEdgeList, stats, engine === 'line' ? 0 : DAGRE_MAX_NODES);
  const nodes = placed.boxes;
  const arcs = ch.edges.map((e) => e.kind === 'skipRange');
  const edges = ch.edges.map((e, i) => {
    const from = nodes[e.from];
    const to = nodes[e.to];
    if (e.kind === 'skipRange' && from !== undefined && to !== undefined) return arc(from, to);
    return placed.routes.get(String(i)) ?? [];
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

/**
 * Bundles, in all, that dagre may lay out in one graph. dagre costs about a millisecond a bundle
 * even in small lanes (3 ms at 10 bundles, 120 ms at 100), so a catalog of 100,000 bundles in lanes
 * of a hundred would take minutes: past this many, every lane of the graph takes the linear layout
 * (layoutLine), and the whole catalog draws in seconds. Under it, each lane's picture depends on
 * that lane alone.
 */
export const DAGRE_BUDGET_NODES = 5_000;

/** Whether `auto` gives the lane to dagre whole. */
function dagreLane(ch: GraphChannel): boolean {
  return (
    ch.nodes.length > 0 && ch.nodes.length <= DAGRE_MAX_NODES && !isPath(ch.nodes.length, layoutEdges(ch))
  );
}

/** Layouts of every channel of every package, in the graph's order. */
export function layoutGraph(graph: UpgradeGraph, stats?: LayoutStats): ChannelLayout[][] {
  let dagreNodes = 0;
  for (const p of graph.packages) for (const c of p.channels) if (dagreLane(c)) dagreNodes += c.nodes.length;
  const engine = dagreNodes > DAGRE_BUDGET_NODES ? 'line' : 'auto';
  return graph.packages.map((p) => p.channels.map((c) => layoutChannel(c, stats, engine)));
}
