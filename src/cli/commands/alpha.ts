import { Command } from 'commander';
import type { CliIO } from '../io.js';
import { notYet } from '../not-yet.js';

/** The `alpha` group: hidden from help unless HELP_ALPHA=true, as in opm, but always usable. */
export function registerAlpha(program: Command, io: CliIO): void {
  const alpha = new Command('alpha').description('Run an alpha subcommand');
  program.addCommand(alpha, { hidden: io.env.HELP_ALPHA !== 'true' });

  alpha
    .command('render-template')
    .argument('[type]')
    .argument('[file]')
    .description('Render a catalog template (basic, semver, substitutes) to a file-based catalog')
    .option('-o, --output <string>', 'Output format (json|yaml|mermaid)', 'json')
    .option('--migrate-level <string>', 'Name of the last migration to run (default: none)', '')
    .option(
      '--bundle-dirs <file>',
      'YAML or JSON map of bundle image references to bundle directories, rendered instead of pulled',
    )
    .action(() => notYet('opm alpha render-template'));

  const convert = alpha
    .command('convert-template')
    .description('Convert an existing FBC to a catalog template');
  for (const kind of ['basic', 'substitutes']) {
    convert
      .command(kind)
      .argument('[fbc-file]')
      .description(`Generate a ${kind} template from an existing FBC file (or - for stdin)`)
      .option('-o, --output <string>', 'Output format (json|yaml)', 'json')
      .action(() => notYet(`opm alpha convert-template ${kind}`));
  }

  const list = alpha.command('list').description('List contents of an index');
  list
    .command('packages')
    .argument('<indexRef>')
    .description('List packages in an index')
    .action(() => notYet('opm alpha list packages'));
  list
    .command('channels')
    .argument('<indexRef>')
    .argument('[packageName]')
    .description('List package channels in an index')
    .action(() => notYet('opm alpha list channels'));
  list
    .command('bundles')
    .argument('<indexRef>')
    .argument('[packageName]')
    .description('List package bundles in an index')
    .action(() => notYet('opm alpha list bundles'));

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
    .action(() => notYet('opm alpha render-graph'));
}
