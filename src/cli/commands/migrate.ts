import type { Command } from 'commander';
import { migrate } from '../../action/migrate.js';
import { migrationLevelHelp } from '../../action/migrations.js';
import type { CliIO } from '../io.js';
import { outputFormat } from '../global-options.js';
import { withImageSource } from '../registry.js';

export function registerMigrate(program: Command, io: CliIO): void {
  program
    .command('migrate')
    .argument('<catalogRef>')
    .argument('<outputDir>')
    .description(
      'Migrate a catalog image or directory to a file-based catalog directory, one folder per package',
    )
    .option('-o, --output <string>', 'Output format (json|yaml)', 'json')
    .option('--migrate-level <string>', migrationLevelHelp(), '')
    .action(
      async (
        ref: string,
        outputDir: string,
        flags: { output: string; migrateLevel: string },
        cmd: Command,
      ) => {
        const format = outputFormat(flags.output, ['json', 'yaml'] as const);
        // Unlike opm, the registry flags apply to migrate as to render.
        await withImageSource(cmd, io, (imageSource) =>
          migrate({
            ref,
            outputDir,
            format,
            migrateLevel: flags.migrateLevel,
            imageSource,
            cwd: io.cwd,
            onWarning: (m) => io.stderr.write(`warning: ${m}\n`),
          }),
        );
      },
    );
}
