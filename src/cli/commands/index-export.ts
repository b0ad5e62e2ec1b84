import { Option, type Command } from 'commander';
import type { CliIO } from '../io.js';
import { collectSlice } from './registry.js';
import type { IndexExportFlags } from './index-export-run.js';

const EXPORT_LONG = `Export an operator from an index image into the appregistry format.

This command will take an index image (specified by the --index option), parse
it for the given operator(s) (set by the --package option) and export the
operator metadata into an appregistry compliant format (a package.yaml file).

Note: the appregistry format is being deprecated in favor of the new index
image and image bundle format.`;

/** `opm index export`: an index image's packages as opm's package-manifest tree. */
export function registerIndexExport(index: Command, io: CliIO): void {
  index
    .command('export')
    .description('Export an operator from an index into the appregistry format')
    .summary('Export an operator from an index into the appregistry format')
    .addHelpText('before', `${EXPORT_LONG}\n`)
    .addOption(new Option('--debug', 'enable debug logging').default(false).hideHelp())
    .requiredOption('-i, --index <string>', 'index to get package from')
    .option('-p, --package <strings>', 'comma separated list of packages to export', collectSlice)
    .addOption(
      new Option('-o, --xpackage <strings>', 'deprecated, please use --package option instead')
        .argParser(collectSlice)
        .hideHelp(),
    )
    .option(
      '-f, --download-folder <string>',
      'directory where downloaded operator bundle(s) will be stored',
      'downloaded',
    )
    .option(
      '-c, --container-tool <string>',
      'tool to interact with container images (save, build, etc.). One of: [none, docker, podman] (opm-ts pulls itself whichever is named)',
      'none',
    )
    .action(async (flags: IndexExportFlags, cmd: Command) => {
      const { runIndexExport } = await import('./index-export-run.js');
      await runIndexExport(io, flags, cmd);
    });
}
