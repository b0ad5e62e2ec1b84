/** The drawn forms of the upgrade graph (`render-graph -o svg|html`): build, lay out, write. */
import type { DeclarativeConfig } from '../declcfg/types.js';
import { writeHtml } from './html.js';
import { layoutGraph } from './layout.js';
import { writeSvg } from './svg.js';
import { buildUpgradeGraph, type GraphOptions } from './upgrade-graph.js';

export function drawGraph(
  cfg: DeclarativeConfig,
  format: 'svg' | 'html',
  options: GraphOptions = {},
): string {
  const graph = buildUpgradeGraph(cfg, options);
  const layouts = layoutGraph(graph);
  return format === 'svg' ? writeSvg(graph, layouts) : writeHtml(graph, layouts);
}
