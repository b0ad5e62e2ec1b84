/**
 * `opm alpha render-graph` (`cmd/opm/alpha/render-graph/cmd.go`): the upgrade graph of catalogs
 * (FBC directories or catalog images only) as a Mermaid flowchart.
 */
import { writeMermaid, type MermaidOptions } from '../graph/mermaid.js';
import { REF_CATALOGS, render, type RenderOptions } from './render.js';

export type RenderGraphOptions = Omit<RenderOptions, 'refs' | 'allow' | 'migrateLevel'> & MermaidOptions;

export async function renderGraph(refs: readonly string[], opts: RenderGraphOptions): Promise<string> {
  const { minEdgeName, packageName, drawV0Semantics, warn, ...renderOpts } = opts;
  const cfg = await render({ ...renderOpts, refs, allow: REF_CATALOGS });
  return writeMermaid(cfg, {
    ...(minEdgeName === undefined ? {} : { minEdgeName }),
    ...(packageName === undefined ? {} : { packageName }),
    drawV0Semantics: drawV0Semantics ?? false,
    ...(warn === undefined ? {} : { warn }),
  });
}
