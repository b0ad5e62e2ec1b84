import { escapeLine } from '../escape.js';
import type { Command } from 'commander';
import { UsageError, formatPosition } from '../../errors.js';
import { ALL_MIGRATIONS } from '../../action/migration-levels.js';
import type { DroppedBlob } from '../../declcfg/write.js';
import type { CliIO } from '../io.js';
import { outputFormat } from '../global-options.js';
import { withImageSource } from '../registry.js';
import { writeChunks } from '../output.js';

export interface RenderFlags {
  output: string;
  migrateLevel: string;
  migrate: boolean;
  alphaImageRefTemplate: string;
}

/** `--migrate` and `--migrate-level` are exclusive; `--migrate` means every migration. */
function migrateLevelFromFlags(flags: { migrate?: boolean; migrateLevel: string }): string {
  if (flags.migrate === true && flags.migrateLevel !== '') {
    throw new UsageError(
      'if any flags in the group [migrate migrate-level] are set none of the others can be; [migrate migrate-level] were all set',
    );
  }
  return flags.migrate === true ? ALL_MIGRATIONS : flags.migrateLevel;
}

/** `opm render`: renders the refs and writes the catalog to stdout. */
export async function runRender(io: CliIO, refs: string[], flags: RenderFlags, cmd: Command): Promise<void> {
  const format = outputFormat(flags.output, ['json', 'yaml'] as const);
  const migrateLevel = migrateLevelFromFlags(flags);
  const warn = (m: string): void => void io.stderr.write(`warning: ${escapeLine(m)}\n`);
  // Loaded when the command runs, so that other commands do not pay for them at start-up.
  const { renderOutput } = await import('../../action/render-output.js');
  const chunks = await withImageSource(cmd, io, (imageSource, onProgress) =>
    renderOutput(
      {
        refs,
        onProgress,
        migrateLevel,
        imageRefTemplate: flags.alphaImageRefTemplate,
        imageSource,
        cwd: io.cwd,
        onWarning: warn,
        // Output only: large local catalogs keep their payloads on disk until written.
        deferPayloads: true,
      },
      format,
      { onDropped: (b: DroppedBlob) => warn(droppedMessage(b)) },
    ),
  );
  await writeChunks(io.stdout, chunks);
}

/** opm leaves blobs without a package name out of its output without a word; we say so. */
function droppedMessage(b: DroppedBlob): string {
  const where = formatPosition(b.loc);
  const what = b.name === '' ? b.schema : `${b.schema} "${b.name}"`;
  return `${where}${what} has no package name and is left out of the output, as opm does`;
}
