import type { Command } from 'commander';
import { migrate } from '../../action/migrate.js';
import { migrationLevelHelp } from '../../action/migrations.js';
import { createImageSource } from '../../oci/registry-client.js';
import { registryOptionsFromEnv } from '../../oci/options.js';
import type { CliIO } from '../io.js';
import { outputFormat, registryFlags } from '../global-options.js';
import { lazyImageSource } from './render.js';

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
        const regFlags = registryFlags(cmd);
        await migrate({
          ref,
          outputDir,
          format,
          migrateLevel: flags.migrateLevel,
          imageSource: lazyImageSource(() => createImageSource(registryOptionsFromEnv(regFlags, io.env))),
          cwd: io.cwd,
          onWarning: (m) => io.stderr.write(`warning: ${m}\n`),
        });
      },
    );
}
