import { Option, type Command } from 'commander';
import type { CliIO } from '../io.js';
import type { ServeFlags } from './serve-run.js';

/** `opm serve <source_path>`: the catalog server of catalog images. */
export function registerServe(program: Command, io: CliIO): void {
  program
    .command('serve')
    .argument('<source_path>')
    .description(
      "serve declarative configs: the gRPC catalog server (api.Registry, health, reflection) that OLM, grpcurl and grpc_health_probe talk to; with --http-addr also OLM v1's catalog API over HTTP. <source_path> may also be a catalog image or SQLite index image reference with its registry (quay.io/org/index:tag), pulled and served without a container engine",
    )
    .option('-p, --port <string>', 'port number to serve on', '50051')
    .option('--cache-dir <string>', 'if set, sync and persist server cache directory', '')
    .option('--cache-only', 'sync the serve cache and exit without serving', false)
    .option(
      '--cache-enforce-integrity',
      'exit with error if cache is not present or has been invalidated. (default: true when --cache-dir is set and --cache-only is false, false otherwise; when not given, a missing or stale cache is rebuilt, or the catalog served from its files, with a warning instead of the error)',
    )
    .addOption(new Option('--no-cache-enforce-integrity').hideHelp())
    .option(
      '-t, --termination-log <string>',
      'path to a container termination log file',
      '/dev/termination-log',
    )
    .option('--debug', 'enable debug logging', false)
    .option(
      '--pprof-addr <string>',
      'address of startup profiling endpoint (addr:port format); accepted, not served by opm-ts',
      'localhost:6060',
    )
    .option(
      '--http-addr <string>',
      "also serve OLM v1's catalog API (catalogd's /catalogs/<name>/api/v1/all and /metas) on this address (host:port or :port); off when empty",
      '',
    )
    .option(
      '--catalog-name <string>',
      'the <name> in the catalog API paths (default: the base name of <source_path>)',
    )
    .option('--pprof-capture-profiles', 'capture pprof CPU profiles; accepted, not done by opm-ts', false)
    .action(async (dir: string, flags: ServeFlags, cmd: Command) => {
      const { runServe } = await import('./serve-run.js');
      // `opm --debug serve` and `opm serve --debug` both turn debug on: the root has a --debug too.
      const debug = flags.debug || cmd.optsWithGlobals<{ debug?: boolean }>().debug === true;
      await runServe(io, dir, { ...flags, debug }, cmd);
    });
}
