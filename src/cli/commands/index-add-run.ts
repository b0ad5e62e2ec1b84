import type { Command } from 'commander';
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
        overwriteLatest: flags.overwriteLatest,
        enableAlpha: flags.enableAlpha,
        imageSource,
        buildDir,
      }).catch(withAddExitCode);
      warnPermissive(io, fields, result.permissiveError);
    },
  );
}
