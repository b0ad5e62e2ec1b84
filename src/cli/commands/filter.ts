import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import type { FilterFlags } from './filter-run.js';

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** `opm filter` (also `opm alpha filter`): an extension, opm has no such command. */
export function registerFilter(parent: Command, io: CliIO): void {
  parent
    .command('filter')
    .argument('<ref>', 'catalog image, FBC directory or bundle directory, as render takes')
    .description(
      'Write a smaller catalog that still validates: only the selected packages, channels and version ranges',
    )
    .option('--package <name>', 'keep this package, all its channels (repeatable)', collect, [])
    .option(
      '--config <file>',
      'YAML or JSON selection: packages with channels and minVersion/maxVersion, as oc-mirror writes under mirror.operators[].packages',
    )
    .option(
      '--heads-only',
      "keep only each kept channel's head (the default channel when none is named)",
      false,
    )
    .option('-o, --output <string>', 'Output format (json|yaml)', 'json')
    .option(
      '--output-dir <dir>',
      'write one folder per package into this new or empty directory instead of stdout',
    )
    .option('--verbose', 'explain on stderr every edit made so that the result validates', false)
    .action(async (ref: string, flags: FilterFlags, cmd: Command) => {
      const { runFilter } = await import('./filter-run.js');
      await runFilter(io, ref, flags, cmd);
    });
}
