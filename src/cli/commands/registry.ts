import { Option, type Command } from 'commander';
import type { CliIO } from '../io.js';
import { notProvided } from './not-provided.js';
import type { RegistryServeFlags } from './registry-run.js';
import type { RegistryAddFlags } from './registry-add-run.js';
import { registerRegistryEdit } from './registry-edit.js';

/** A comma-separated string-slice flag (pflag's StringSlice), repeatable. */
export function collectSlice(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), ...value.split(',')];
}

/** The hidden flags `registry add` and `index add` share with opm (overwrite.ts, substitutes-for.ts). */
export function addHiddenOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option(
        '--overwrite-latest',
        'overwrite the latest bundles (channel heads) with those of the same csv name given by --bundles',
      )
        .default(false)
        .hideHelp(),
    )
    .addOption(
      new Option('--enable-alpha', 'enable unsupported alpha features of the OPM CLI')
        .default(false)
        .hideHelp(),
    );
}

/**
 * `opm registry`: SQLite registry databases. `serve` (the entrypoint of SQLite index images), `add` and
 * the verbs that remove from a database (registry-edit.ts) are provided; `mirror`, which opm v1.73
 * does not register either, answers in one line why it is not there.
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
  addHiddenOptions(registry.command('add'))
    .description('add operator bundle to operator registry DB')
    .option('--debug', 'enable debug logging', false)
    .option('-d, --database <string>', 'relative path to database file', 'bundles.db')
    .option('-b, --bundle-images <strings>', 'comma separated list of links to bundle image', collectSlice)
    .option('--permissive', 'allow registry load errors', false)
    .option('--skip-tls', 'use Plain HTTP for container image registries while pulling bundles', false)
    .option(
      '--skip-tls-verify',
      'skip TLS certificate verification for container image registries while pulling bundles',
      false,
    )
    .option('--use-http', 'use plain HTTP for container image registries while pulling bundles', false)
    .option(
      '--ca-file <string>',
      'the root certificates to use when --container-tool=none; see docker/podman docs for certificate loading instructions',
      '',
    )
    .option(
      '--mode <string>',
      'graph update mode that defines how channel graphs are updated. One of: [replaces, semver, semver-skippatch]',
      'replaces',
    )
    .option(
      '-c, --container-tool <string>',
      'tool to interact with container images (save, build, etc.). One of: [none, docker, podman] (opm-ts pulls itself whichever is named)',
      'none',
    )
    .action(
      async (flags: Omit<RegistryAddFlags, 'bundleImages'> & { bundleImages?: string[] }, cmd: Command) => {
        const { runRegistryAdd } = await import('./registry-add-run.js');
        await runRegistryAdd(io, { ...flags, bundleImages: flags.bundleImages ?? [] }, cmd);
      },
    );
  registerRegistryEdit(registry, io);
  // opm v1.73 keeps `registry mirror`'s code but registers no such command: `opm registry mirror
  // …` prints `opm registry`'s help and exits 0, which tells a script that the mirror was made.
  notProvided(
    registry,
    'mirror',
    'mirror an index image (opm v1.73 has no such command)',
    'opm v1.73 has no `registry mirror` either (it prints `opm registry --help` and exits 0); copy the index image with `skopeo copy --all docker://SRC docker://DEST` or `oc image mirror SRC DEST`, and list the images it needs with `opm list images <index image>`',
  );
}
