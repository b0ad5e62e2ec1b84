/**
 * `render-graph -o svg`: the upgrade graph as one self-contained SVG document. Each package is a
 * block, each of its channels a lane; the legend, the marks and the validator's problems are in
 * the picture, and every node and edge carries a `<title>` that viewers show on hover.
 */
import { GRAPH_CSS } from './graph-style.js';
import { layoutGraph, textWidth, type ChannelLayout } from './layout.js';
import { laneBody, legend, markerDefs, pill } from './svg-parts.js';
import { esc, num, plural, wrap } from './svg-text.js';
import type { GraphChannel, GraphPackage, Problem, UpgradeGraph } from './upgrade-graph.js';

const MARGIN = 16;
const LANE_PAD = 14;
const LINE = 16;
const LANE_GAP = 12;
/** Width of one character of the 13px/16px header fonts, generous so text never overflows. */
const HEADER_CHAR = 8.2;
const PACKAGE_CHAR = 10;

interface Block {
  svg: string;
  width: number;
  height: number;
}

function problemLines(problems: readonly Problem[], x: number, y: number, width: number): Block {
  const chars = Math.max(60, Math.floor(width / 7));
  const lines = problems.flatMap((p) => wrap(`${p.severity === 'error' ? '✖' : '⚠'} ${p.message}`, chars));
  const svg = lines
    .map((l, i) => `<text class="problem-text" x="${num(x)}" y="${num(y + i * LINE + 12)}">${esc(l)}</text>`)
    .join('');
  const longest = lines.reduce((m, l) => Math.max(m, textWidth(l, 7)), 0);
  return { svg, width: longest, height: lines.length * LINE };
}

function lane(
  ch: GraphChannel,
  layout: ChannelLayout,
  prefix: string,
  x: number,
  y: number,
  minWidth: number,
): Block {
  const head: string[] = [];
  const titleY = y + LANE_PAD + 10;
  const title = `channel ${ch.name}`;
  head.push(`<text class="lane-title" x="${num(x + LANE_PAD)}" y="${num(titleY + 4)}">${esc(title)}</text>`);
  let px = x + LANE_PAD + textWidth(title, HEADER_CHAR) + 8;
  const pills: [string, string][] = [];
  if (ch.isDefault) pills.push(['default', 'DEFAULT']);
  if (ch.deprecation !== undefined) pills.push(['deprecated', 'DEPRECATED']);
  for (const [kind, label] of pills) {
    const p = pill(kind, label, px, titleY);
    head.push(p.svg);
    px += p.width + 6;
  }
  const count = plural(ch.nodes.filter((n) => n.listed).length, 'bundle');
  head.push(`<text class="note" x="${num(px + 2)}" y="${num(titleY + 4)}">${esc(count)}</text>`);
  px += textWidth(count, 7) + 2;
  let headerWidth = px - x;
  let cy = titleY + 12;
  if (ch.deprecation !== undefined) {
    const text = `deprecated: ${ch.deprecation}`;
    head.push(`<text class="note" x="${num(x + LANE_PAD)}" y="${num(cy + 12)}">${esc(text)}</text>`);
    headerWidth = Math.max(headerWidth, textWidth(text, 7) + 2 * LANE_PAD);
    cy += LINE;
  }
  const innerWidth = Math.max(layout.width, minWidth - 2 * LANE_PAD);
  const probs = problemLines(ch.problems, x + LANE_PAD, cy, Math.max(innerWidth, 600));
  head.push(probs.svg);
  headerWidth = Math.max(headerWidth, probs.width + 2 * LANE_PAD);
  cy += probs.height + 8;
  if (ch.nodes.length === 0) {
    head.push(`<text class="note" x="${num(x + LANE_PAD)}" y="${num(cy + 12)}">no entries</text>`);
    cy += LINE;
  }
  const width = Math.max(innerWidth + 2 * LANE_PAD, headerWidth);
  const height = cy - y + layout.height + LANE_PAD;
  const svg = [
    `<g class="channel" data-channel="${esc(ch.name)}">`,
    `<rect class="lane${ch.isDefault ? ' default' : ''}" x="${num(x)}" y="${num(y)}" width="${num(width)}" height="${num(height)}" rx="8"/>`,
    ...head,
    `<g transform="translate(${num(x + LANE_PAD)},${num(cy)})">`,
    laneBody(ch, layout, { prefix, focusable: false }),
    '</g></g>',
  ].join('\n');
  return { svg, width, height };
}

function packageBlock(p: GraphPackage, pi: number, layouts: ChannelLayout[], x: number, y: number): Block {
  const out: string[] = [`<g class="package" data-package="${esc(p.name)}">`];
  const title = `package ${p.name}`;
  out.push(`<text class="pkg-title" x="${num(x)}" y="${num(y + 16)}">${esc(title)}</text>`);
  let px = x + textWidth(title, PACKAGE_CHAR) + 8;
  if (p.deprecation !== undefined) {
    const dp = pill('deprecated', 'DEPRECATED', px, y + 11);
    out.push(dp.svg);
    px += dp.width + 6;
  }
  const note = `default channel: ${p.defaultChannel === '' ? '(none)' : p.defaultChannel} · ${plural(p.channels.length, 'channel')}`;
  out.push(`<text class="note" x="${num(px + 4)}" y="${num(y + 16)}">${esc(note)}</text>`);
  let width = px + 4 + textWidth(note, 7) - x;
  let cy = y + 26;
  if (p.deprecation !== undefined) {
    const text = `deprecated: ${p.deprecation}`;
    out.push(`<text class="note" x="${num(x)}" y="${num(cy + 12)}">${esc(text)}</text>`);
    width = Math.max(width, textWidth(text, 7));
    cy += LINE;
  }
  const probs = problemLines(p.problems, x, cy, 900);
  out.push(probs.svg);
  width = Math.max(width, probs.width);
  cy += probs.height + (probs.height > 0 ? 6 : 0);
  const laneMin = layouts.reduce((m, l) => Math.max(m, l.width + 2 * LANE_PAD), 0);
  p.channels.forEach((ch, ci) => {
    const layout = layouts[ci] ?? { nodes: [], edges: [], arcs: [], width: 0, height: 0 };
    const l = lane(ch, layout, `p${pi}c${ci}`, x, cy, laneMin);
    out.push(l.svg);
    width = Math.max(width, l.width);
    cy += l.height + LANE_GAP;
  });
  out.push('</g>');
  return { svg: out.join('\n'), width, height: cy - y };
}

/** The whole graph as an SVG document (UTF-8 text, ending in a newline). */
export function writeSvg(graph: UpgradeGraph, layouts: ChannelLayout[][] = layoutGraph(graph)): string {
  const names = graph.packages.map((p) => p.name);
  const heading = names.length === 1 ? `Upgrade graph of ${names[0] ?? ''}` : 'Upgrade graph';
  const body: string[] = [];
  let y = MARGIN;
  body.push(`<text class="title" x="${MARGIN}" y="${num(y + 18)}">${esc(heading)}</text>`);
  let width = textWidth(heading, 11);
  y += 30;
  const lg = legend(MARGIN, y);
  body.push(lg.svg);
  width = Math.max(width, lg.width);
  y += lg.height + 16;
  if (graph.packages.length === 0) {
    body.push(`<text class="note" x="${MARGIN}" y="${num(y + 12)}">nothing to draw</text>`);
    y += LINE;
  }
  graph.packages.forEach((p, pi) => {
    const b = packageBlock(p, pi, layouts[pi] ?? [], MARGIN, y);
    body.push(b.svg);
    width = Math.max(width, b.width);
    y += b.height + 8;
  });
  const w = Math.ceil(width + 2 * MARGIN);
  const h = Math.ceil(y + MARGIN);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" class="opm-graph" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" role="img" aria-labelledby="opm-graph-title">`,
    `<title id="opm-graph-title">${esc(heading)}: ${esc(names.join(', '))}</title>`,
    `<style>${GRAPH_CSS}</style>`,
    `<defs>${markerDefs()}</defs>`,
    `<rect class="background" width="${w}" height="${h}" style="fill: var(--bg)"/>`,
    ...body,
    '</svg>',
    '',
  ].join('\n');
}
