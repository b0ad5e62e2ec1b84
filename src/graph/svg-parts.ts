/**
 * SVG fragments of the upgrade graph that the SVG file and the HTML page share: arrowheads, the
 * legend, and one channel's nodes and edges in the lane's own coordinates.
 */
import { nodeSubtitle, textWidth, type ChannelLayout, type Point } from './layout.js';
import { esc, num, plural } from './svg-text.js';
import type { EdgeKind, GraphChannel, GraphEdge, GraphNode } from './upgrade-graph.js';

const ARROWS = ['replaces', 'skips', 'skipRange', 'problem', 'path'] as const;
export type ArrowKind = (typeof ARROWS)[number];

function arrowId(kind: ArrowKind): string {
  return `opm-arrow-${kind}`;
}

/** Arrowhead markers, one per edge look (a marker cannot take its colour from the line everywhere). */
export function markerDefs(): string {
  return ARROWS.map(
    (k) =>
      `<marker id="${arrowId(k)}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse" markerUnits="userSpaceOnUse"><path class="arrow ${k}" d="M0,1 L10,5 L0,9 z"/></marker>`,
  ).join('');
}

/** d3's basis spline through the route points: smooth, and it passes through both ends. */
function curvePath(points: readonly Point[]): string {
  const first = points[0];
  if (first === undefined) return '';
  if (points.length < 3)
    return points.map((p, i) => `${i === 0 ? 'M' : 'L'}${num(p.x)},${num(p.y)}`).join(' ');
  const out: string[] = [`M${num(first.x)},${num(first.y)}`];
  let x0 = first.x;
  let y0 = first.y;
  let x1 = first.x;
  let y1 = first.y;
  const bezier = (x: number, y: number): void => {
    out.push(
      `C${num((2 * x0 + x1) / 3)},${num((2 * y0 + y1) / 3)} ${num((x0 + 2 * x1) / 3)},${num((y0 + 2 * y1) / 3)} ${num((x0 + 4 * x1 + x) / 6)},${num((y0 + 4 * y1 + y) / 6)}`,
    );
  };
  points.forEach((p, i) => {
    if (i === 2) out.push(`L${num((5 * x0 + x1) / 6)},${num((5 * y0 + y1) / 6)}`);
    if (i >= 2) bezier(p.x, p.y);
    x0 = x1;
    y0 = y1;
    x1 = p.x;
    y1 = p.y;
  });
  bezier(x1, y1);
  out.push(`L${num(x1)},${num(y1)}`);
  return out.join(' ');
}

/** One cubic Bézier through the four points of an arc. */
function arcPath(points: readonly Point[]): string {
  const [a, b, c, d] = points;
  if (a === undefined || b === undefined || c === undefined || d === undefined) return curvePath(points);
  return `M${num(a.x)},${num(a.y)} C${num(b.x)},${num(b.y)} ${num(c.x)},${num(c.y)} ${num(d.x)},${num(d.y)}`;
}

function edgeTitle(ch: GraphChannel, e: GraphEdge): string {
  const from = ch.nodes[e.from]?.name ?? '';
  const to = ch.nodes[e.to]?.name ?? '';
  const what =
    e.kind === 'replaces'
      ? `${to} replaces ${from}`
      : e.kind === 'skips'
        ? `${to} skips ${from}`
        : `${to} skips ${from} by skipRange ${e.range ?? ''}`;
  return [what, ...e.problems.map((p) => `${p.severity}: ${p.message}`)].join('\n');
}

function nodeTitle(n: GraphNode): string {
  const lines = [n.name];
  if (n.version !== '') lines.push(`version ${n.version}`);
  if (n.head) lines.push('channel head');
  if (!n.listed) lines.push('not an entry of this channel');
  if (n.details !== undefined) {
    if (n.details.image !== '') lines.push(`image ${n.details.image}`);
    if (n.details.replaces !== '') lines.push(`replaces ${n.details.replaces}`);
    if (n.details.skips.length > 0) lines.push(`skips ${n.details.skips.join(', ')}`);
    if (n.details.skipRange !== '') lines.push(`skipRange ${n.details.skipRange}`);
  }
  if (n.deprecation !== undefined) lines.push(`deprecated: ${n.deprecation}`);
  for (const p of n.problems) lines.push(`${p.severity}: ${p.message}`);
  return lines.join('\n');
}

/** A rounded label (HEAD, DEFAULT, …) whose left edge is at x, centred on the line at y. */
export function pill(kind: string, label: string, x: number, y: number): { svg: string; width: number } {
  const width = Math.ceil(textWidth(label, 7) + 10);
  return {
    svg:
      `<rect class="pill ${kind}" x="${num(x)}" y="${num(y - 7)}" width="${width}" height="14" rx="7"/>` +
      `<text class="pill-text" x="${num(x + width / 2)}" y="${num(y + 3.5)}" text-anchor="middle">${esc(label)}</text>`,
    width,
  };
}

function nodeClasses(n: GraphNode): string {
  const c = ['node'];
  if (n.head) c.push('head');
  if (n.deprecation !== undefined) c.push('deprecated');
  if (!n.listed) c.push('unlisted');
  if (n.problems.some((p) => p.severity === 'error')) c.push('problem');
  return c.join(' ');
}

function edgeLook(e: GraphEdge): { classes: string; arrow: ArrowKind } {
  const problem = e.problems.length > 0;
  return { classes: `edge ${e.kind}${problem ? ' problem' : ''}`, arrow: problem ? 'problem' : e.kind };
}

export interface LaneIds {
  /** Prefix of element ids in this lane, unique in the document. */
  prefix: string;
  /** Whether nodes take keyboard focus (the HTML page). */
  focusable: boolean;
}

/** One channel's edges (under) and nodes (over), in the lane's coordinates. */
export function laneBody(ch: GraphChannel, layout: ChannelLayout, ids: LaneIds): string {
  const out: string[] = ['<g class="edges">'];
  ch.edges.forEach((e, i) => {
    const route = layout.edges[i] ?? [];
    const draw = layout.arcs[i] === true ? arcPath : curvePath;
    const parts = layout.parts?.[i];
    const d = parts === undefined ? draw(route) : parts.map(draw).join(' ');
    const look = edgeLook(e);
    const from = ch.nodes[e.from]?.name ?? '';
    const to = ch.nodes[e.to]?.name ?? '';
    out.push(
      `<path class="${look.classes}" id="${ids.prefix}e${i}" data-kind="${e.kind}" data-from="${esc(from)}" data-to="${esc(to)}" d="${d}" marker-end="url(#${arrowId(look.arrow)})"><title>${esc(edgeTitle(ch, e))}</title></path>`,
    );
  });
  out.push('</g><g class="nodes">');
  ch.nodes.forEach((n, i) => {
    const box = layout.nodes[i];
    if (box === undefined) return;
    const focus = ids.focusable
      ? ` tabindex="0" role="button" aria-label="${esc(`${n.name}${n.version === '' ? '' : `, version ${n.version}`}${n.head ? ', channel head' : ''}${n.deprecation === undefined ? '' : ', deprecated'}${n.problems.length > 0 ? `, ${plural(n.problems.length, 'problem')}` : ''}`)}"`
      : '';
    const parts = [
      `<g class="${nodeClasses(n)}" id="${ids.prefix}n${i}" data-bundle="${esc(n.name)}" data-index="${i}" transform="translate(${num(box.x)},${num(box.y)})"${focus}>`,
      `<title>${esc(nodeTitle(n))}</title>`,
      `<rect class="box" width="${num(box.width)}" height="${num(box.height)}" rx="6"/>`,
      `<text class="name" x="12" y="17">${esc(n.name)}</text>`,
      `<text class="version" x="12" y="32">${esc(nodeSubtitle(n))}</text>`,
    ];
    const error = n.problems.some((p) => p.severity === 'error');
    if (n.head) {
      const p = pill(error ? 'problem' : 'head', 'HEAD', 0, 28);
      parts.push(`<g transform="translate(${num(box.width - p.width - 8)},0)">${p.svg}</g>`);
    } else if (error) {
      const p = pill('problem', '!', 0, 28);
      parts.push(`<g transform="translate(${num(box.width - p.width - 8)},0)">${p.svg}</g>`);
    }
    parts.push('</g>');
    out.push(parts.join(''));
  });
  out.push('</g>');
  return out.join('\n');
}

const LEGEND_EDGES: [EdgeKind | 'problem', string][] = [
  ['replaces', 'replaces'],
  ['skips', 'skips'],
  ['skipRange', 'skipRange'],
  ['problem', 'problem'],
];

/** The key to the picture: the edge kinds and the node marks. Returns its markup and size. */
export function legend(x: number, y: number): { svg: string; width: number; height: number } {
  const out: string[] = [`<g class="legend" transform="translate(${num(x)},${num(y)})">`];
  let cx = 12;
  const mid = 22;
  for (const [kind, label] of LEGEND_EDGES) {
    const cls = kind === 'problem' ? 'edge replaces problem' : `edge ${kind}`;
    // skipRange is shown as the arc it is drawn as.
    const d =
      kind === 'skipRange'
        ? `M${cx},${mid + 6} C${cx + 8},${mid - 10} ${cx + 36},${mid - 10} ${cx + 44},${mid + 6}`
        : `M${cx},${mid} L${cx + 44},${mid}`;
    out.push(
      `<path class="${cls}" d="${d}" marker-end="url(#${arrowId(kind)})"/>`,
      `<text class="note" x="${cx + 52}" y="${mid + 4}">${label}</text>`,
    );
    cx += 52 + Math.ceil(textWidth(label, 6.6)) + 22;
  }
  const marks: [string, string][] = [
    ['node head', 'channel head'],
    ['node deprecated', 'deprecated'],
    ['node problem', 'problem'],
    ['node unlisted', 'not in channel'],
  ];
  for (const [cls, label] of marks) {
    out.push(
      `<g class="${cls}" transform="translate(${cx},${mid - 9})"><rect class="box" width="26" height="18" rx="4"/></g>`,
      `<text class="note" x="${cx + 32}" y="${mid + 4}">${label}</text>`,
    );
    cx += 32 + Math.ceil(textWidth(label, 6.6)) + 22;
  }
  const dp = pill('default', 'DEFAULT', cx, mid);
  out.push(dp.svg, `<text class="note" x="${cx + dp.width + 6}" y="${mid + 4}">default channel</text>`);
  cx += dp.width + 6 + Math.ceil(textWidth('default channel', 6.6)) + 12;
  const width = cx;
  const height = 44;
  out.splice(1, 0, `<rect class="legend-box" width="${width}" height="${height}" rx="6"/>`);
  out.push('</g>');
  return { svg: out.join(''), width, height };
}
