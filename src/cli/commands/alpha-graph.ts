import type { Command } from 'commander';
import type { ListKind } from '../../action/list.js';
import type { CliIO } from '../io.js';
import type { GraphFlags } from './alpha-graph-run.js';

export function registerAlphaList(alpha: Command, io: CliIO): void {
  const list = alpha.command('list').description('List contents of an index');
  const table =
    (kind: ListKind) => async (ref: string, pkg: string | undefined, _flags: unknown, cmd: Command) => {
      const { runAlphaList } = await import('./alpha-graph-run.js');
      await runAlphaList(io, kind, ref, pkg, cmd);
    };
  list
    .command('packages')
    .argument('<indexRef>')
    .description('List packages in an index')
    .action(async (ref: string, _flags: unknown, cmd: Command) => {
      const { runAlphaList } = await import('./alpha-graph-run.js');
      await runAlphaList(io, 'packages', ref, undefined, cmd);
    });
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
    .option(
      '-o, --output <string>',
      'Output format: mermaid (text, as opm), svg (a picture) or html (a page to explore it) (mermaid|svg|html)',
      'mermaid',
    )
    .action(async (refs: string[], flags: GraphFlags, cmd: Command) => {
      const { runRenderGraph } = await import('./alpha-graph-run.js');
      await runRenderGraph(io, refs, flags, cmd);
    });
}
