import { Option, type Command } from 'commander';
import type { CliIO } from '../io.js';
import { collectSlice } from './registry.js';
import type { IndexEditFlags } from './index-edit-run.js';

const DEPRECATE_LONG = `Deprecate and truncate operator bundles from an index.

Deprecated bundles will no longer be installable. Bundles that are replaced by
deprecated bundles will be removed entirely from the index.

For example:

  Given the update graph in quay.io/my/index:v1
  1.4.0 -- replaces -> 1.3.0 -- replaces -> 1.2.0 -- replaces -> 1.1.0

  Applying the command:
  opm index deprecatetruncate --bundles "quay.io/my/bundle:1.3.0" \\
    --from-index "quay.io/my/index:v1" --tag "quay.io/my/index:v2"

  Produces the following update graph in quay.io/my/index:v2
  1.4.0 -- replaces -> 1.3.0 [deprecated]

Deprecating a bundle that removes the default channel is not allowed unless
the head(s) of all channels are being deprecated (the package is subsequently
removed from the index). This behavior can be enabled via the
allow-package-removal flag. Changing the default channel prior to deprecation
is possible by publishing a new bundle to the index.`;

export const NONE_NOTE = '(opm-ts: none builds the image itself, see --push and --oci-layout)';

/** The flags of every `opm index` verb that makes an image, `index add` among them. */
export function imageBuildOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--debug', 'enable debug logging').default(false).hideHelp())
    .option('--generate', 'if enabled, just creates the dockerfile and saves it to local disk', false)
    .option(
      '-d, --out-dockerfile <string>',
      'if generating the dockerfile, this flag is used to (optionally) specify a dockerfile name',
      '',
    )
    .option('-i, --binary-image <opm>', 'container image for on-image `opm` command', '')
    .option('-t, --tag <string>', 'custom tag for container image being built', '')
    .option('--push', 'opm-ts, with --container-tool none: push the built image to --tag', false)
    .option(
      '--oci-layout <dir>',
      'opm-ts, with --container-tool none: write the built image as an OCI image layout',
    );
}

/** -u and -p, of the verbs that have them beside -c. */
export function pullBuildToolOptions(cmd: Command): Command {
  return cmd
    .option(
      '-u, --build-tool <string>',
      'tool to build container images. One of: [docker, podman]. Defaults to podman. Overrides part of container-tool.',
      '',
    )
    .option(
      '-p, --pull-tool <string>',
      'tool to pull container images. One of: [none, docker, podman]. Defaults to none. Overrides part of container-tool.',
      '',
    );
}

/** The image flags every verb shares with `index add`; `tools` says whether -u and -p are there. */
function imageOptions(cmd: Command, fromIndexHelp: string, tools: boolean): Command {
  imageBuildOptions(cmd).requiredOption('-f, --from-index <string>', fromIndexHelp);
  if (!tools)
    return cmd.option(
      '-c, --container-tool <string>',
      `tool to interact with container images (save, build, etc.). One of: [docker, podman] ${NONE_NOTE}`,
      'podman',
    );
  return pullBuildToolOptions(
    cmd.option(
      '-c, --container-tool <string>',
      `tool to interact with container images (save, build, etc.). One of: [none, docker, podman] ${NONE_NOTE}`,
      '',
    ),
  );
}

export const permissive = (cmd: Command): Command =>
  cmd.option('--permissive', 'allow registry load errors', false);

/**
 * `opm index rm|prune|prune-stranded|deprecatetruncate`: the registry verbs' edits on a copy of
 * `--from-index`'s database, made into an image as `index add` makes one.
 */
export function registerIndexEdit(index: Command, io: CliIO, between?: () => void): void {
  const run =
    (verb: 'rm' | 'prune' | 'prune-stranded' | 'deprecatetruncate') =>
    async (
      flags: Omit<IndexEditFlags, 'buildTool' | 'pullTool'> & { buildTool?: string; pullTool?: string },
      cmd: Command,
    ): Promise<void> => {
      const { runIndexEdit, editOf } = await import('./index-edit-run.js');
      const full = { ...flags, buildTool: flags.buildTool ?? '', pullTool: flags.pullTool ?? '' };
      await runIndexEdit(io, editOf(verb, full), full, cmd);
    };
  // In the alphabetical order cobra lists them in (help, completion).
  permissive(imageOptions(index.command('deprecatetruncate'), 'previous index to add to', true))
    .description('Deprecate and truncate operator bundles from an index.')
    .summary('Deprecate and truncate operator bundles from an index.')
    .addHelpText('before', `${DEPRECATE_LONG}\n`)
    .requiredOption('-b, --bundles <strings>', 'comma separated list of bundles to add', collectSlice)
    .option(
      '--allow-package-removal',
      'removes the entire package if the heads of all channels in the package are deprecated',
      false,
    )
    .action(run('deprecatetruncate'));
  // Another verb in its alphabetical place (`export`).
  between?.();
  permissive(imageOptions(index.command('prune'), 'index to prune', false))
    .description('prune an index of all but specified packages')
    .requiredOption('-p, --packages <strings>', 'comma separated list of packages to keep', collectSlice)
    .action(run('prune'));
  imageOptions(index.command('prune-stranded'), 'index to prune', false)
    .description(
      'prune an index of stranded bundles - bundles that are not associated with a particular package',
    )
    .action(run('prune-stranded'));
  permissive(imageOptions(index.command('rm'), 'previous index to delete from', true))
    .description('delete an entire operator from an index')
    .requiredOption('-o, --operators <strings>', 'comma separated list of operators to delete', collectSlice)
    .action(run('rm'));
}
