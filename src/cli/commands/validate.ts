import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { notYet } from '../not-yet.js';

export function registerValidate(program: Command, _io: CliIO): void {
  program
    .command('validate')
    .argument('<directory>')
    .description('Validate the declarative index config')
    .option(
      '-o, --output <string>',
      'Output format (json|yaml|github); default: human-readable findings on stderr',
    )
    .action(() => notYet('opm validate'));
}
