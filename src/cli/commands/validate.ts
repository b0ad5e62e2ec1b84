import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import type { ValidateFlags } from './validate-run.js';

export function registerValidate(program: Command, io: CliIO): void {
  program
    .command('validate')
    .argument('<directory>')
    .description('Validate the declarative index config')
    .option(
      '-o, --output <string>',
      'Output format (json|yaml|github); default: human-readable findings on stderr',
    )
    .option('--warnings', 'also show warnings (problems opm tolerates) in the human-readable output', false)
    .action(async (directory: string, opts: ValidateFlags) => {
      // The validator (ajv and the schemas) loads only when validate runs.
      const { runValidate } = await import('./validate-run.js');
      await runValidate(io, directory, opts);
    });
}
