import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { addHiddenOptions, collectSlice } from './registry.js';
import type { IndexAddFlags } from './index-add-run.js';
import { registerIndexExport } from './index-export.js';
import {
  imageBuildOptions,
  NONE_NOTE,
  permissive,
  pullBuildToolOptions,
  registerIndexEdit,
} from './index-edit.js';

const ADD_LONG = `Add operator bundles to an index.

This command will add the given set of bundle images (specified by the
--bundles option) to an index image (provided by the --from-index option).

If multiple bundles are given with '--mode=replaces' (the default), bundles
are added to the index by order of ascending (semver) version unless the
update graph specified by replaces requires a different input order; e.g.
1.0.0 replaces 1.0.1 would result in [1.0.1, 1.0.0] instead of the [1.0.0,
1.0.1] normally expected of semver. However, for most cases (e.g. 1.0.1
replaces 1.0.0) the bundle with the highest version is used to set the default
channel of the related package.

Caveat: in replaces mode, the head of a channel is always the bundle with the
highest semver. Any bundles upgrading from this channel-head will be pruned.
An upgrade graph that looks like:
0.1.1 -> 0.1.2 -> 0.1.2-1
will be pruned on add to:
0.1.1 -> 0.1.2`;

/**
 * `opm index`: SQLite index images. `add`, `rm`, `prune`, `prune-stranded` and
 * `deprecatetruncate` are provided (with an engine-less build for `--container-tool none`), and
 * `export`, which writes an index image's packages as opm's package-manifest tree.
 */
export function registerIndex(program: Command, io: CliIO): void {
  const index = program
    .command('index')
    .description('generate operator index container images (SQLite-based; deprecated in opm)');
  permissive(addHiddenOptions(pullBuildToolOptions(imageBuildOptions(index.command('add')))))
    .description('Add operator bundles to an index.')
    .summary('Add operator bundles to an index.')
    .addHelpText('before', `${ADD_LONG}\n`)
    .option('-f, --from-index <string>', 'previous index to add to', '')
    .option('-b, --bundles <strings>', 'comma separated list of bundles to add', collectSlice)
    .option(
      '-c, --container-tool <string>',
      `tool to interact with container images (save, build, etc.). One of: [docker, podman] ${NONE_NOTE}`,
      '',
    )
    .option(
      '--mode <string>',
      'graph update mode that defines how channel graphs are updated. One of: [replaces, semver, semver-skippatch]',
      'replaces',
    )
    .action(async (flags: Omit<IndexAddFlags, 'bundles'> & { bundles?: string[] }, cmd: Command) => {
      const { runIndexAdd } = await import('./index-add-run.js');
      await runIndexAdd(io, { ...flags, bundles: flags.bundles ?? [] }, cmd);
    });
  registerIndexEdit(index, io, () => registerIndexExport(index, io));
}
