import { escapeLine } from '../escape.js';
import type { Command } from 'commander';
import { loadCatalogDirOrThrow } from '../../declcfg/load.js';
import { listIndex, type ListKind } from '../../action/list.js';
import { renderGraph } from '../../action/render-graph.js';
import type { ImageSource } from '../../oci/image-source.js';
import { runOptions, type CliIO } from '../io.js';
import { writeAll } from '../output.js';
import { outputFormat } from '../global-options.js';
import { withImageSource } from '../registry.js';

export interface GraphFlags {
  minimumEdge: string;
  packageName: string;
  drawV0Semantics: boolean;
  output: string;
}

function catalogSources(imageSource: ImageSource, io: CliIO) {
  return {
    imageSource,
    cwd: io.cwd,
    ...runOptions(io),
    // Clean here, so that its warnings are written as these commands write them.
    loadCatalogDir: async (dir: string) => ({
      cfg: await loadCatalogDirOrThrow(dir, {
        ...runOptions(io),
        onWarning: (f) => io.stderr.write(`warning: ${escapeLine(f.message)}\n`),
      }),
      findings: [],
    }),
  };
}

/** `opm alpha list packages|channels|bundles REF [PACKAGE]`. */
export async function runAlphaList(
  io: CliIO,
  kind: ListKind,
  ref: string,
  pkg: string | undefined,
  cmd: Command,
): Promise<void> {
  await writeAll(
    io.stdout,
    await withImageSource(cmd, io, (src) => listIndex(kind, ref, pkg ?? '', catalogSources(src, io))),
  );
}

/** `opm alpha render-graph REF...`. */
export async function runRenderGraph(
  io: CliIO,
  refs: string[],
  flags: GraphFlags,
  cmd: Command,
): Promise<void> {
  const format = outputFormat(flags.output, ['mermaid', 'svg', 'html'] as const);
  const text = await withImageSource(cmd, io, (src, onProgress) =>
    renderGraph(refs, {
      ...catalogSources(src, io),
      onProgress,
      minEdgeName: flags.minimumEdge,
      packageName: flags.packageName,
      drawV0Semantics: flags.drawV0Semantics,
      format,
      warn: (l) => io.stderr.write(`${escapeLine(l)}\n`),
    }),
  );
  await writeAll(io.stdout, text);
}
