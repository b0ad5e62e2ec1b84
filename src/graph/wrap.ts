/**
 * A long lane of the HTML page wrapped onto rows, as text wraps: the lane is cut between columns of
 * bundles into pieces of about the same width, and the pieces are stacked top to bottom, oldest
 * first, so that a whole channel fits a screen of about the page's shape and reads left to right,
 * row after row, to its head at the bottom right. Nothing is laid out again: nodes move with their
 * piece, and an edge that crosses a cut is drawn in parts, leaving its row at the right edge and
 * coming into the next row at the left edge. An edge over more than one cut keeps only its first
 * and last parts (where it leaves and where it arrives), so the picture grows with the edges, not
 * with edges times rows. The SVG document keeps its lanes in one row.
 */
import type { Box, ChannelLayout, Point } from './layout.js';

/** Lanes wider than this are wrapped; narrower ones are a screen or two wide already. */
export const WRAP_MIN_WIDTH = 2_400;
/** Width to height of the wrapped lane: about the shape of the page's window onto a lane. */
const ASPECT = 2.5;
/** Room between two rows. */
const ROW_GAP = 36;

/** Cut positions (between columns of nodes) that split [minX, maxX] into about `rows` pieces. */
function cuts(nodes: readonly Box[], width: number, rows: number): number[] {
  // Free x ranges: gaps between the merged x extents of the nodes.
  const spans = nodes.map((b) => [b.x, b.x + b.width] as const).sort((a, b) => a[0] - b[0]);
  const gaps: number[] = [];
  let end = -Infinity;
  for (const [from, to] of spans) {
    if (from > end && end > -Infinity) gaps.push((from + end) / 2);
    end = Math.max(end, to);
  }
  const target = width / rows;
  const out: number[] = [];
  let k = 0;
  for (let r = 1; r < rows; r++) {
    const want = r * target;
    // The last gap at or before the wanted place, or else the first after it.
    while (k + 1 < gaps.length && (gaps[k + 1] ?? Infinity) <= want) k++;
    const g = gaps[k];
    if (g === undefined) break;
    if (out.length === 0 || g > (out[out.length - 1] ?? -Infinity)) out.push(g);
    else if (k + 1 < gaps.length) out.push(gaps[++k] ?? g);
  }
  return out;
}

/** Which piece x falls in, given the cuts in ascending order (binary search). */
function pieceOf(x: number, at: readonly number[]): number {
  let lo = 0;
  let hi = at.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (x < (at[mid] ?? Infinity)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

const lerp = (p: Point, q: Point, t: number): Point => ({
  x: p.x + (q.x - p.x) * t,
  y: p.y + (q.y - p.y) * t,
});

/** A cubic Bézier split at t (de Casteljau): the two halves, four points each. */
function splitBezier(c: readonly Point[], t: number): [Point[], Point[]] {
  const [p0, p1, p2, p3] = c as [Point, Point, Point, Point];
  const a = lerp(p0, p1, t);
  const b = lerp(p1, p2, t);
  const d = lerp(p2, p3, t);
  const e = lerp(a, b, t);
  const f = lerp(b, d, t);
  const m = lerp(e, f, t);
  return [
    [p0, a, e, m],
    [m, f, d, p3],
  ];
}

/** Where a Bézier whose x runs one way from end to end reaches x (bisection). */
function bezierAtX(c: readonly Point[], x: number): number {
  const [p0, p1, p2, p3] = c as [Point, Point, Point, Point];
  const xAt = (t: number): number => {
    const u = 1 - t;
    return u * u * u * p0.x + 3 * u * u * t * p1.x + 3 * u * t * t * p2.x + t * t * t * p3.x;
  };
  const rising = p3.x >= p0.x;
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 40; i++) {
    const mid = (lo + hi) / 2;
    if (xAt(mid) < x === rising) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** A route cut where it crosses the cuts: its parts, each with the piece it lies in. */
function splitRoute(
  route: readonly Point[],
  arc: boolean,
  at: readonly number[],
): { piece: number; pts: Point[] }[] {
  const first = route[0];
  const last = route[route.length - 1];
  if (first === undefined || last === undefined) return [];
  if (arc && route.length === 4) {
    const from = pieceOf(first.x, at);
    const to = pieceOf(last.x, at);
    if (from === to) return [{ piece: from, pts: [...route] }];
    const parts: { piece: number; pts: Point[] }[] = [];
    let rest: Point[] = [...route];
    const step = to > from ? 1 : -1;
    for (let p = from; p !== to; p += step) {
      const cut = at[step > 0 ? p : p - 1] ?? 0;
      const [head, tail] = splitBezier(rest, bezierAtX(rest, cut));
      parts.push({ piece: p, pts: head });
      rest = tail;
    }
    parts.push({ piece: to, pts: rest });
    return parts;
  }
  const parts: { piece: number; pts: Point[] }[] = [{ piece: pieceOf(first.x, at), pts: [first] }];
  for (let i = 1; i < route.length; i++) {
    const p = route[i - 1] as Point;
    const q = route[i] as Point;
    const target = pieceOf(q.x, at);
    let cur = parts[parts.length - 1] as { piece: number; pts: Point[] };
    while (cur.piece !== target) {
      const step = target > cur.piece ? 1 : -1;
      const cut = at[step > 0 ? cur.piece : cur.piece - 1] ?? 0;
      const m = lerp(p, q, q.x === p.x ? 0 : (cut - p.x) / (q.x - p.x));
      cur.pts.push(m);
      cur = { piece: cur.piece + step, pts: [m] };
      parts.push(cur);
    }
    cur.pts.push(q);
  }
  return parts;
}

/**
 * The lane wrapped onto rows when it is wider than WRAP_MIN_WIDTH (else the same layout). Rows are
 * as tall as the lane was, so arcs over a row stay in it.
 */
export function wrapLayout(layout: ChannelLayout): ChannelLayout {
  if (layout.width <= WRAP_MIN_WIDTH) return layout;
  const rowHeight = layout.height + ROW_GAP;
  const rows = Math.max(1, Math.round(Math.sqrt(layout.width / (ASPECT * rowHeight))));
  const at = cuts(layout.nodes, layout.width, rows);
  if (at.length === 0) return layout;
  const starts = [0, ...at];
  const move = (p: Point, piece: number): Point => ({
    x: p.x - (starts[piece] ?? 0),
    y: p.y + piece * rowHeight,
  });
  const nodes = layout.nodes.map((b) => {
    const piece = pieceOf(b.x + b.width / 2, at);
    const m = move(b, piece);
    return { ...b, x: m.x, y: m.y };
  });
  const edges: Point[][] = [];
  const parts: Point[][][] = [];
  layout.edges.forEach((route, i) => {
    let split = splitRoute(route, layout.arcs[i] === true, at);
    if (split.length > 2) split = [split[0], split[split.length - 1]] as typeof split;
    const moved = split.map((s) => s.pts.map((p) => move(p, s.piece)));
    parts.push(moved);
    edges.push(moved.flat());
  });
  let width = 0;
  for (let k = 0; k < starts.length; k++) {
    const end = k + 1 < starts.length ? (starts[k + 1] ?? 0) : layout.width;
    width = Math.max(width, end - (starts[k] ?? 0));
  }
  return {
    nodes,
    edges,
    arcs: layout.arcs,
    parts,
    width,
    height: starts.length * rowHeight - ROW_GAP,
  };
}
