import type { Command } from 'commander';
import type { CliIO } from '../io.js';

/** pflag's string slice: each value split at commas, repeats of the flag appended. */
const slice = (value: string, previous: string[] | undefined): string[] => [
  ...(previous ?? []),
  ...(value === '' ? [] : value.split(',')),
];

/** --debug and -d, which every verb here has; `database` is -d's default. */
function databaseOptions(cmd: Command, database: string): Command {
  return cmd
    .option('--debug', 'enable debug logging', false)
    .option('-d, --database <string>', 'relative path to database file', database);
}

/**
 * `opm registry rm`, `prune` and `prune-stranded`: index databases edited as opm v1.73 edits
 * them, written whole and atomically.
 */
export function registerRegistryEdit(registry: Command, io: CliIO): void {
  databaseOptions(registry.command('rm'), 'bundles.db')
    .description('remove operator from operator registry DB')
    .requiredOption('-o, --packages <strings>', 'comma separated list of package names to be deleted', slice)
    .option('--permissive', 'allow registry load errors', false)
    .action(async (flags: { database: string; packages: string[]; permissive: boolean }) => {
      const { runRegistryRm } = await import('./registry-edit-run.js');
      runRegistryRm(io, flags);
    });
  databaseOptions(registry.command('prune'), 'bundles.db')
    .description('prune an operator registry DB of all but specified packages')
    .requiredOption('-p, --packages <strings>', 'comma separated list of package names to be kept', slice)
    .option('--permissive', 'allow registry load errors', false)
    .action(async (flags: { database: string; packages: string[]; permissive: boolean }) => {
      const { runRegistryPrune } = await import('./registry-edit-run.js');
      runRegistryPrune(io, flags);
    });
  databaseOptions(registry.command('prune-stranded'), 'bundles.db')
    .description('prune an operator registry DB of stranded bundles')
    .action(async (flags: { database: string }) => {
      const { runRegistryPruneStranded } = await import('./registry-edit-run.js');
      runRegistryPruneStranded(io, flags);
    });
  databaseOptions(registry.command('deprecatetruncate'), 'index.db')
    .description('deprecate operator bundle from registry DB')
    .option('-b, --bundle-images <strings>', 'comma separated list of links to bundle image', slice, [])
    .option('--permissive', 'allow registry load errors', false)
    .option(
      '--allow-package-removal',
      'removes the entire package if the heads of all channels in the package are deprecated',
      false,
    )
    .action(
      async (flags: {
        database: string;
        bundleImages: string[];
        permissive: boolean;
        allowPackageRemoval: boolean;
      }) => {
        const { runRegistryDeprecateTruncate } = await import('./registry-edit-run.js');
        runRegistryDeprecateTruncate(io, flags);
      },
    );
}
