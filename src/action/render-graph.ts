/**
 * `opm alpha render-graph` (`cmd/opm/alpha/render-graph/cmd.go`): the upgrade graph of catalogs
 * (FBC directories or catalog images only) as a Mermaid flowchart, as opm writes it, or drawn: an
 * SVG picture or an HTML page (our extension).
 */
import { writeMermaid, type MermaidOptions } from '../graph/mermaid.js';
import { REF_CATALOGS, render, type RenderOptions } from './render/render.js';
import { phase } from '../util/progress.js';

export type GraphFormat = 'mermaid' | 'svg' | 'html';

export type RenderGraphOptions = Omit<RenderOptions, 'refs' | 'allow' | 'migrateLevel'> &
  MermaidOptions & { format?: GraphFormat };

export async function renderGraph(refs: readonly string[], opts: RenderGraphOptions): Promise<string> {
  const { minEdgeName, packageName, drawV0Semantics, warn, format, ...renderOpts } = opts;
  const cfg = await render({ ...renderOpts, refs, allow: REF_CATALOGS });
  // The same filters apply to the Mermaid text and to the pictures.
  const shared = {
    ...(minEdgeName === undefined ? {} : { minEdgeName }),
    ...(packageName === undefined ? {} : { packageName }),
  };
  if (format === 'svg' || format === 'html') {
    // Loaded only for pictures: the layout library is not needed for Mermaid text.
    const { drawGraph } = await import('../graph/draw.js');
    return phase(renderOpts.onProgress, 'drawing the upgrade graph', () =>
      Promise.resolve(drawGraph(cfg, format, shared)),
    );
  }
  return phase(renderOpts.onProgress, 'writing the upgrade graph', () =>
    Promise.resolve(
      writeMermaid(cfg, {
        ...shared,
        drawV0Semantics: drawV0Semantics ?? false,
        ...(warn === undefined ? {} : { warn }),
      }),
    ),
  );
}
