import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { notYet } from '../not-yet.js';

export function registerMigrate(program: Command, _io: CliIO): void {
  program
    .command('migrate')
    .argument('<catalogRef>')
    .argument('<outputDir>')
    .description(
      'Migrate a catalog image or directory to a file-based catalog directory, one folder per package',
    )
    .option('-o, --output <string>', 'Output format (json|yaml)', 'json')
    .option('--migrate-level <string>', 'Name of the last migration to run (default: none)', '')
    .action(() => notYet('opm migrate'));
}
