/** Styles of the HTML page around the graph: controls, lanes, the details panel, print. */

export const PAGE_CSS = `
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 14px/1.45 ui-sans-serif, system-ui, "DejaVu Sans", Arial, sans-serif; }
.mono { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
.defs { position: absolute; width: 0; height: 0; overflow: hidden; }
header.controls { position: sticky; top: 0; z-index: 2; background: var(--bg); border-bottom: 1px solid var(--lane-line); padding: 10px 16px; }
header h1 { font-size: 18px; margin: 0 0 6px; }
.pickers { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; margin-bottom: 6px; }
.pickers select, .pickers button { font: inherit; color: var(--fg); background: var(--lane); border: 1px solid var(--node-line); border-radius: 6px; padding: 3px 8px; }
.pickers button:disabled { opacity: 0.5; }
.hint { margin: 4px 0 0; color: var(--muted); font-size: 12px; }
.legend-svg { display: block; max-width: 100%; height: auto; }
.layout { display: flex; align-items: flex-start; gap: 16px; padding: 12px 16px; }
main { flex: 1 1 auto; min-width: 0; }
aside#details { flex: 0 0 340px; position: sticky; top: 150px; max-height: calc(100vh - 170px); overflow: auto; border: 1px solid var(--lane-line); border-radius: 8px; padding: 10px 12px; background: var(--lane); font-size: 13px; }
aside#details h2 { font-size: 14px; margin: 0 0 6px; word-break: break-all; }
aside#details dl { margin: 0; display: grid; grid-template-columns: max-content 1fr; gap: 2px 10px; }
aside#details dt { color: var(--muted); }
aside#details dd { margin: 0; word-break: break-all; }
ol.path-list { margin: 4px 0 0; padding-left: 26px; font-size: 12px; }
.path-text { margin: 10px 0 0; }
h2 { font-size: 16px; margin: 8px 0 2px; }
h3 { font-size: 14px; margin: 0 0 6px; }
.note { color: var(--muted); margin: 2px 0 8px; font-size: 13px; }
.count { color: var(--muted); font-weight: normal; font-size: 12px; }
.badge { display: inline-block; font-size: 11px; font-weight: 700; text-transform: uppercase; border-radius: 8px; padding: 0 7px; color: var(--bg); vertical-align: 1px; }
.badge.default { background: var(--default); }
.badge.deprecated { background: var(--deprecated-line); }
.badge.problem { background: var(--problem); }
ul.problems { margin: 0 0 8px; padding-left: 20px; }
ul.problems li.error { color: var(--problem); }
ul.problems li.warning { color: var(--deprecated-line); }
section.package { margin-bottom: 20px; }
section.lane { background: var(--lane); border: 1px solid var(--lane-line); border-radius: 8px; padding: 10px 12px; margin: 10px 0; }
section.lane.default { border-color: var(--default); }
.scroll { overflow-x: auto; }
.lane-window { position: relative; }
/* With the script (the 'js' class, set in the page's head), a lane is a window of its own height,
   set here rather than by the script so that the browser lays the lane out once: --h is the lane's
   height, the window is half as tall again (room to zoom in), at least 120 px and at most 60% of the
   screen (240 px on a short one). Its edge is an outline: a border would narrow it. */
.js .scroll { overflow: hidden; height: clamp(120px, calc(var(--h) * 1.5 + 16px), max(240px, 60vh)); cursor: grab; touch-action: none; outline: 1px solid var(--lane-line); outline-offset: -1px; background: var(--bg); user-select: none; }
.js .scroll:focus { outline: 1px solid var(--lane-line); }
.js .scroll:focus-visible { outline: 2px solid var(--path); outline-offset: -2px; }
.js .scroll .lane-svg { transform-origin: 0 0; }
.zoom-bar { display: none; }
.js .zoom-bar { display: flex; gap: 4px; align-items: center; margin: 0 0 6px; }
.zoom-bar button { font: inherit; font-size: 13px; min-width: 30px; color: var(--fg); background: var(--bg); border: 1px solid var(--node-line); border-radius: 6px; padding: 1px 8px; cursor: pointer; }
.zoom-bar button:focus-visible { outline: 2px solid var(--path); outline-offset: 1px; }
.zoom-level { color: var(--muted); font-size: 12px; margin-left: 6px; min-width: 4em; }
svg.overview { position: absolute; top: 9px; right: 9px; display: block; padding: 4px; border: 1px solid var(--node-line); border-radius: 4px; background: var(--lane); opacity: 0.92; box-shadow: 0 1px 4px rgba(0, 0, 0, 0.25); cursor: crosshair; touch-action: none; }
.overview-node { stroke: none; }
.overview-node.plain { fill: var(--node-line); opacity: 0.55; }
.overview-node.head { fill: var(--head); }
.overview-node.problem { fill: var(--problem); }
.overview-view { fill: var(--path); fill-opacity: 0.15; stroke: var(--path); stroke-width: 2; }
.lane-svg { display: block; background: transparent; }
.lane-svg .node { cursor: pointer; }
.lane-svg .node:focus { outline: none; }
.lane-svg .node:focus rect.box, .lane-svg .node:hover rect.box { stroke: var(--path); stroke-width: 3; }
.lane-svg .node.selected rect.box { stroke: var(--path); stroke-width: 3.5; }
.lane-svg.has-path .node:not(.on-path) { opacity: 0.35; }
.lane-svg.has-path .edge:not(.on-path) { opacity: 0.15; }
.lane-svg .edge.near { stroke-width: 3; opacity: 1; }
.lane-svg .edge.on-path { stroke: var(--path); stroke-width: 3.5; opacity: 1; stroke-dasharray: none; }
.lane-svg .node.on-path rect.box { stroke: var(--path); stroke-width: 2.5; }
[hidden] { display: none !important; }
@media (max-width: 900px) { .layout { flex-direction: column; align-items: stretch; } aside#details { position: static; flex-basis: auto; width: 100%; max-height: none; } }
@media print {
  header.controls { position: static; border: none; }
  .pickers, .hint, aside#details, .zoom-bar, svg.overview { display: none; }
  .layout { display: block; padding: 0; }
  .scroll, .js .scroll { overflow: visible; height: auto; outline: none; }
  section.lane { break-inside: avoid; }
  .lane-svg { max-width: 100%; height: auto; }
}
`;
