import { escapeLine } from '../escape.js';
import type { Command } from 'commander';
import { migrate } from '../../action/migrate.js';
import { runOptions, type CliIO } from '../io.js';
import { outputFormat } from '../global-options.js';
import { withImageSource } from '../registry.js';
import { sqliteDeprecationNotice } from '../sqlite-notice.js';

export interface MigrateFlags {
  output: string;
  migrateLevel: string;
}

/** `opm migrate REF DIR`. */
export async function runMigrate(
  io: CliIO,
  ref: string,
  outputDir: string,
  flags: MigrateFlags,
  cmd: Command,
): Promise<void> {
  const format = outputFormat(flags.output, ['json', 'yaml'] as const);
  // Unlike opm, the registry flags apply to migrate as to render.
  await withImageSource(cmd, io, (imageSource, onProgress) =>
    migrate({
      onProgress,
      ref,
      outputDir,
      format,
      migrateLevel: flags.migrateLevel,
      imageSource,
      cwd: io.cwd,
      ...runOptions(io),
      onWarning: (m) => io.stderr.write(`warning: ${escapeLine(m)}\n`),
      onSqliteNotice: () => void io.stderr.write(sqliteDeprecationNotice(io.stderrIsTTY)),
    }),
  );
}
