/**
 * The look of the upgrade graph, shared by the SVG file and the HTML page: colours as CSS variables,
 * with a dark set for `prefers-color-scheme: dark` and plain black on white for print.
 * Edge kinds differ by colour and by line (solid, dashed, arcs over the lane), so they stay apart in
 * grey print too.
 */

export const GRAPH_CSS = `
.opm-graph, :root {
  --bg: #ffffff; --fg: #1e293b; --muted: #64748b; --lane: #f8fafc; --lane-line: #e2e8f0;
  --node: #ffffff; --node-line: #64748b; --head: #047857; --default: #047857;
  --deprecated: #fef3c7; --deprecated-line: #b45309; --deprecated-fg: #92400e;
  --problem: #dc2626; --problem-bg: #fee2e2;
  --replaces: #334155; --skips: #2563eb; --skipRange: #9333ea; --path: #ea580c;
}
@media (prefers-color-scheme: dark) {
  .opm-graph, :root {
    --bg: #0f172a; --fg: #e2e8f0; --muted: #94a3b8; --lane: #1e293b; --lane-line: #334155;
    --node: #0f172a; --node-line: #94a3b8; --head: #34d399; --default: #34d399;
    --deprecated: #451a03; --deprecated-line: #f59e0b; --deprecated-fg: #fcd34d;
    --problem: #f87171; --problem-bg: #450a0a;
    --replaces: #cbd5e1; --skips: #60a5fa; --skipRange: #c084fc; --path: #fb923c;
  }
}
@media print {
  .opm-graph, :root {
    --bg: #ffffff; --fg: #000000; --muted: #333333; --lane: #ffffff; --lane-line: #999999;
    --node: #ffffff; --node-line: #333333;
  }
}
.opm-graph { background: var(--bg); }
.opm-graph text { font-family: ui-sans-serif, system-ui, "DejaVu Sans", Arial, sans-serif; fill: var(--fg); }
.opm-graph .mono, .opm-graph .node .name { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
.opm-graph .title { font-size: 18px; font-weight: 600; }
.opm-graph .pkg-title { font-size: 16px; font-weight: 600; }
.opm-graph .lane-title { font-size: 13px; font-weight: 600; }
.opm-graph .note { font-size: 12px; fill: var(--muted); }
.opm-graph .problem-text { font-size: 12px; fill: var(--problem); }
.opm-graph .lane { fill: var(--lane); stroke: var(--lane-line); }
.opm-graph .lane.default { stroke: var(--default); stroke-width: 1.5; }
.opm-graph .pill { stroke: none; }
.opm-graph .pill.default { fill: var(--default); }
.opm-graph .pill.deprecated { fill: var(--deprecated-line); }
.opm-graph .pill.head { fill: var(--head); }
.opm-graph .pill.problem { fill: var(--problem); }
.opm-graph text.pill-text { fill: var(--bg); font-size: 10px; font-weight: 700; }
.opm-graph .node rect.box { fill: var(--node); stroke: var(--node-line); stroke-width: 1.2; }
.opm-graph .node .name { font-size: 12px; }
.opm-graph .node .version { font-size: 11px; fill: var(--muted); }
.opm-graph .node.head rect.box { stroke: var(--head); stroke-width: 2.5; }
.opm-graph .node.deprecated rect.box { fill: var(--deprecated); stroke: var(--deprecated-line); }
.opm-graph .node.deprecated .name { text-decoration: line-through; fill: var(--deprecated-fg); }
.opm-graph .node.unlisted rect.box { fill: none; stroke-dasharray: 4 3; }
.opm-graph .node.unlisted .name { fill: var(--muted); }
.opm-graph .node.problem rect.box { fill: var(--problem-bg); stroke: var(--problem); stroke-width: 2.5; }
.opm-graph .edge { fill: none; stroke-width: 1.6; }
.opm-graph .edge.replaces { stroke: var(--replaces); }
.opm-graph .edge.skips { stroke: var(--skips); stroke-dasharray: 7 4; }
/* skipRange edges are arcs over the lane, solid: a range makes many of them, and dashing each costs
   the browser most of a large page's first paint. Their shape and colour tell them apart. */
.opm-graph .edge.skipRange { stroke: var(--skipRange); stroke-width: 1.2; opacity: 0.55; }
.opm-graph .edge.problem { stroke: var(--problem); stroke-width: 3; opacity: 1; }
.opm-graph .arrow.replaces { fill: var(--replaces); }
.opm-graph .arrow.skips { fill: var(--skips); }
.opm-graph .arrow.skipRange { fill: var(--skipRange); }
.opm-graph .arrow.problem { fill: var(--problem); }
.opm-graph .arrow.path { fill: var(--path); }
.opm-graph .legend-box { fill: var(--lane); stroke: var(--lane-line); }
`;
