import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { notProvided } from './not-provided.js';
import type { RegistryServeFlags } from './registry-run.js';
import { registerRegistryEdit } from './registry-edit.js';

/**
 * `opm registry`: SQLite registry databases. `serve` (the entrypoint of SQLite index images) and
 * the verbs that remove from a database (registry-edit.ts) are provided; `add`, `deprecatetruncate`
 * and `mirror` answer that opm-ts does not provide them.
 */
export function registerRegistry(program: Command, io: CliIO): void {
  const registry = program
    .command('registry')
    .description('interact with operator-registry database (deprecated in opm)');
  registry
    .command('serve')
    .description(
      'serve a SQLite registry database over gRPC (api.Registry, health, reflection), as the entrypoint of SQLite index images does: `registry serve --database /database/index.db`',
    )
    .option('-d, --database <string>', 'relative path to sqlite db', 'bundles.db')
    .option('-p, --port <string>', 'port number to serve on', '50051')
    .option(
      '-t, --termination-log <string>',
      'path to a container termination log file',
      '/dev/termination-log',
    )
    .option('--debug', 'enable debug logging', false)
    .option(
      '--skip-migrate',
      'do not attempt to migrate to the latest db revision when starting (opm-ts never writes to the database)',
      false,
    )
    .option('--timeout-seconds <string>', 'Timeout in seconds. This flag will be removed later.', 'infinite')
    .action(async (flags: RegistryServeFlags, cmd: Command) => {
      const { runRegistryServe } = await import('./registry-run.js');
      const debug = flags.debug || cmd.optsWithGlobals<{ debug?: boolean }>().debug === true;
      await runRegistryServe(io, { ...flags, debug });
    });
  const writes = 'write SQLite registry databases (deprecated in opm)';
  const instead =
    'build catalogs as File-Based Catalogs: `opm migrate <database or index image> <dir>` converts one, then `opm validate` and `opm generate dockerfile`';
  registerRegistryEdit(registry, io);
  for (const verb of ['add', 'mirror']) {
    notProvided(registry, verb, writes, instead);
  }
}
