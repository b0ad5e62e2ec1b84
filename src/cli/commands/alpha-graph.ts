import type { Command } from 'commander';
import { loadCatalogDirOrThrow } from '../../declcfg/load.js';
import { listIndex, type ListKind } from '../../action/list.js';
import { renderGraph } from '../../action/render-graph.js';
import type { ImageSource } from '../../oci/image-source.js';
import type { CliIO } from '../io.js';
import { writeAll } from '../output.js';
import { withImageSource } from '../registry.js';

function catalogSources(imageSource: ImageSource, io: CliIO) {
  return {
    imageSource,
    cwd: io.cwd,
    loadCatalogDir: (dir: string) =>
      loadCatalogDirOrThrow(dir, { onWarning: (f) => io.stderr.write(`warning: ${f.message}\n`) }),
  };
}

export function registerList(alpha: Command, io: CliIO): void {
  const list = alpha.command('list').description('List contents of an index');
  const table =
    (kind: ListKind) => async (ref: string, pkg: string | undefined, _flags: unknown, cmd: Command) =>
      writeAll(
        io.stdout,
        await withImageSource(cmd, io, (src) => listIndex(kind, ref, pkg ?? '', catalogSources(src, io))),
      );
  list
    .command('packages')
    .argument('<indexRef>')
    .description('List packages in an index')
    .action(async (ref: string, _flags: unknown, cmd: Command) =>
      writeAll(
        io.stdout,
        await withImageSource(cmd, io, (src) => listIndex('packages', ref, '', catalogSources(src, io))),
      ),
    );
  list
    .command('channels')
    .argument('<indexRef>')
    .argument('[packageName]')
    .description('List package channels in an index')
    .action(table('channels'));
  list
    .command('bundles')
    .argument('<indexRef>')
    .argument('[packageName]')
    .description('List package bundles in an index')
    .action(table('bundles'));
}

interface GraphFlags {
  minimumEdge: string;
  packageName: string;
  drawV0Semantics: boolean;
}

export function registerRenderGraph(alpha: Command, io: CliIO): void {
  alpha
    .command('render-graph')
    .argument('<index-image | fbc-dir...>')
    .description('Generate mermaid-formatted view of upgrade graph of operators in an index')
    .option(
      '--minimum-edge <string>',
      'the channel edge to be used as the lower bound of the set of edges composing the upgrade graph',
      '',
    )
    .option('-p, --package-name <string>', 'a specific package name to filter output', '')
    .option('--draw-v0-semantics', 'visually indicate skipped bundles and their edges', false)
    .action(async (refs: string[], flags: GraphFlags, cmd: Command) => {
      const text = await withImageSource(cmd, io, (src) =>
        renderGraph(refs, {
          ...catalogSources(src, io),
          minEdgeName: flags.minimumEdge,
          packageName: flags.packageName,
          drawV0Semantics: flags.drawV0Semantics,
          warn: (l) => io.stderr.write(`${l}\n`),
        }),
      );
      await writeAll(io.stdout, text);
    });
}
