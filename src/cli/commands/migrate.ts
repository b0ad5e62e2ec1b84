import type { Command } from 'commander';
import { migrateLevelOption } from '../migrate-level-option.js';
import type { CliIO } from '../io.js';
import type { MigrateFlags } from './migrate-run.js';

export function registerMigrate(program: Command, io: CliIO): void {
  program
    .command('migrate')
    .argument('<catalogRef>')
    .argument('<outputDir>')
    .description(
      'Migrate a catalog image or directory to a file-based catalog directory, one folder per package',
    )
    .option('-o, --output <string>', 'Output format (json|yaml)', 'json')
    .addOption(migrateLevelOption())
    .action(async (ref: string, outputDir: string, flags: MigrateFlags, cmd: Command) => {
      const { runMigrate } = await import('./migrate-run.js');
      await runMigrate(io, ref, outputDir, flags, cmd);
    });
}
