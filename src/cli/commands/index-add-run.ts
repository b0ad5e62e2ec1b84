import type { Command } from 'commander';
import { OpmError } from '../../errors.js';
import type { CliIO } from '../io.js';
import { buildIndex, type IndexBuildFlags } from './index-build.js';
import { warnPermissive, withAddExitCode } from './registry-add-run.js';

/** The flags of `opm index add`. */
export interface IndexAddFlags extends IndexBuildFlags {
  debug: boolean;
  bundles: string[];
  permissive: boolean;
  mode: string;
  overwriteLatest: boolean;
  enableAlpha: boolean;
}

/** `opm index add`. */
export async function runIndexAdd(io: CliIO, flags: IndexAddFlags, cmd: Command): Promise<void> {
  const { parseMode } = await import('../../action/registry-add/registry-add.js');
  const { indexAddDatabase } = await import('../../action/index-add.js');
  const mode = parseMode(flags.mode);
  if (flags.overwriteLatest)
    throw new OpmError('index add --overwrite-latest is not provided by opm-ts', {
      hint: 'remove the old head with `opm index rm` of opm v1.73, or keep the catalog as a File-Based Catalog',
    });
  const fields = { bundles: `[${flags.bundles.join(' ')}]` };
  await buildIndex(
    io,
    cmd,
    'add',
    flags,
    { message: 'building the index', fields },
    async (imageSource, buildDir) => {
      const result = await indexAddDatabase({
        bundles: flags.bundles,
        fromIndex: flags.fromIndex,
        mode,
        permissive: flags.permissive,
        imageSource,
        buildDir,
      }).catch(withAddExitCode);
      warnPermissive(io, fields, result.permissiveError);
    },
  );
}
