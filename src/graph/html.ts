/**
 * `render-graph -o html`: one self-contained page (styles and script inline, nothing fetched) to
 * explore the upgrade graph: pick a package and a channel, hover or focus a bundle for its details,
 * select one (click, Enter or Space) to light its shortest upgrade path to the channel head.
 * Without script the page still shows every lane, as the SVG does.
 */
import { GRAPH_CSS } from './graph-style.js';
import { layoutGraph, type ChannelLayout } from './layout.js';
import { PAGE_CSS } from './page-style.js';
import { PAGE_SCRIPT } from './page-script.js';
import { laneBody, legend, markerDefs } from './svg-parts.js';
import { esc, plural } from './svg-text.js';
import { wrapLayout } from './wrap.js';
import type { GraphChannel, GraphPackage, Problem, UpgradeGraph } from './upgrade-graph.js';

/** What the script needs beyond the markup: per lane, node details and edges by index. */
interface LaneData {
  nodes: {
    name: string;
    version: string;
    head: boolean;
    listed: boolean;
    deprecation?: string;
    problems: Problem[];
    image?: string;
    replaces?: string;
    skips?: string[];
    skipRange?: string;
    properties?: string[];
  }[];
  /** [from, to, kind index into KINDS] */
  edges: [number, number, number][];
}

const KINDS = ['replaces', 'skips', 'skipRange'] as const;

function laneData(ch: GraphChannel): LaneData {
  return {
    nodes: ch.nodes.map((n) => ({
      name: n.name,
      version: n.version,
      head: n.head,
      listed: n.listed,
      ...(n.deprecation === undefined ? {} : { deprecation: n.deprecation }),
      problems: n.problems,
      ...(n.details === undefined
        ? {}
        : {
            image: n.details.image,
            replaces: n.details.replaces,
            skips: n.details.skips,
            skipRange: n.details.skipRange,
            properties: n.details.properties,
          }),
    })),
    edges: ch.edges.map((e) => [e.from, e.to, KINDS.indexOf(e.kind)]),
  };
}

function problemList(problems: readonly Problem[]): string {
  if (problems.length === 0) return '';
  const items = problems.map((p) => `<li class="${p.severity}">${esc(p.message)}</li>`).join('');
  return `<ul class="problems">${items}</ul>`;
}

/** The zoom buttons of a lane, shown only with the script (page-style.ts, page-script.ts). */
function zoomBar(channel: string): string {
  const buttons = [
    ['out', '\u2212', 'zoom out (-)'],
    ['in', '+', 'zoom in (+)'],
    ['fit', 'Fit', 'fit the whole channel (0)'],
    ['actual', '100%', 'actual size (1)'],
  ]
    .map(
      ([what, text, label]) =>
        `<button type="button" data-zoom="${what}" aria-label="${label}" title="${label}">${text}</button>`,
    )
    .join('');
  return `<div class="zoom-bar" role="toolbar" aria-label="${esc(`zoom of channel ${channel}`)}">${buttons}<span class="zoom-level">100%</span></div>`;
}

function laneSection(ch: GraphChannel, layout: ChannelLayout, pi: number, ci: number): string {
  const prefix = `p${pi}c${ci}`;
  const badges: string[] = [];
  if (ch.isDefault) badges.push('<span class="badge default">default</span>');
  if (ch.deprecation !== undefined) badges.push('<span class="badge deprecated">deprecated</span>');
  if (ch.problems.some((p) => p.severity === 'error'))
    badges.push('<span class="badge problem">problems</span>');
  const w = Math.ceil(layout.width) + 4;
  const h = Math.ceil(layout.height) + 4;
  return [
    `<section class="lane${ch.isDefault ? ' default' : ''}" id="${prefix}" data-channel="${esc(ch.name)}" data-lane="${pi}-${ci}">`,
    `<h3>channel <span class="mono">${esc(ch.name)}</span> ${badges.join(' ')} <span class="count">${plural(ch.nodes.filter((n) => n.listed).length, 'bundle')}</span></h3>`,
    ch.deprecation === undefined ? '' : `<p class="note">deprecated: ${esc(ch.deprecation)}</p>`,
    problemList(ch.problems),
    ch.nodes.length === 0
      ? '<p class="note">no entries</p>'
      : `${zoomBar(ch.name)}<div class="lane-window"><div class="scroll" style="--h: ${h}px"><svg class="opm-graph lane-svg" width="${w}" height="${h}" viewBox="-2 -2 ${w} ${h}" aria-label="${esc(`channel ${ch.name}`)}">${laneBody(ch, layout, { prefix, focusable: true })}</svg></div></div>`,
    '</section>',
  ].join('\n');
}

function packageSection(p: GraphPackage, pi: number, layouts: ChannelLayout[]): string {
  const badges: string[] = [];
  if (p.deprecation !== undefined) badges.push('<span class="badge deprecated">deprecated</span>');
  return [
    `<section class="package" data-package="${esc(p.name)}" data-index="${pi}">`,
    `<h2>package <span class="mono">${esc(p.name)}</span> ${badges.join(' ')}</h2>`,
    `<p class="note">default channel: <span class="mono">${esc(p.defaultChannel === '' ? '(none)' : p.defaultChannel)}</span> · ${plural(p.channels.length, 'channel')}</p>`,
    p.deprecation === undefined ? '' : `<p class="note">deprecated: ${esc(p.deprecation)}</p>`,
    problemList(p.problems),
    ...p.channels.map((ch, ci) =>
      laneSection(
        ch,
        wrapLayout(layouts[ci] ?? { nodes: [], edges: [], arcs: [], width: 0, height: 0 }),
        pi,
        ci,
      ),
    ),
    '</section>',
  ].join('\n');
}

/** JSON inside a script element: `<` is escaped so no `</script>` or comment can end it early. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** The whole page (UTF-8 text, ending in a newline). */
export function writeHtml(graph: UpgradeGraph, layouts: ChannelLayout[][] = layoutGraph(graph)): string {
  const names = graph.packages.map((p) => p.name);
  const title = names.length === 1 ? `Upgrade graph of ${names[0] ?? ''}` : 'Upgrade graph';
  const lg = legend(0, 0);
  const data = graph.packages.map((p) => ({
    name: p.name,
    channels: p.channels.map((c) => ({ name: c.name, default: c.isDefault, ...laneData(c) })),
  }));
  const packageOptions = graph.packages
    .map((p, i) => `<option value="${i}">${esc(p.name)}</option>`)
    .join('');
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    `<title>${esc(title)}</title>`,
    `<style>${GRAPH_CSS}${PAGE_CSS}</style>`,
    // Before anything is drawn: the lanes are styled as windows from the start (page-style.ts).
    "<script>document.documentElement.classList.add('js');</script>",
    '</head>',
    '<body>',
    `<svg class="opm-graph defs" width="0" height="0" aria-hidden="true"><defs>${markerDefs()}</defs></svg>`,
    '<header class="controls">',
    `<h1>${esc(title)}</h1>`,
    '<div class="pickers">',
    `<label>Package <select id="pick-package">${packageOptions}</select></label>`,
    '<label>Channel <select id="pick-channel"><option value="">all channels</option></select></label>',
    '<button type="button" id="clear-selection" disabled>Clear selection</button>',
    '</div>',
    `<svg class="opm-graph legend-svg" width="${lg.width}" height="${lg.height}" viewBox="0 0 ${lg.width} ${lg.height}" role="img" aria-label="legend">${lg.svg}</svg>`,
    '<p class="hint">Hover or focus (Tab) a bundle to see its details; click it or press Enter to light its upgrade path to the channel head; Escape clears. In a lane: drag or press the arrow keys to move, Ctrl+wheel or + and - to zoom, 0 to fit the whole channel, 1 for actual size, Home and End for its oldest bundles and its head; click or drag in the overview in the corner of a long lane to go there.</p>',
    '</header>',
    '<div class="layout">',
    '<main id="graph">',
    graph.packages.length === 0 ? '<p class="note">nothing to draw</p>' : '',
    ...graph.packages.map((p, pi) => packageSection(p, pi, layouts[pi] ?? [])),
    '</main>',
    '<aside id="details" aria-live="polite"><p class="note">No bundle selected.</p></aside>',
    '</div>',
    `<script type="application/json" id="graph-data">${scriptJson(data)}</script>`,
    `<script>${PAGE_SCRIPT}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
