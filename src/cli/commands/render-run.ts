import { escapeLine } from '../escape.js';
import type { Command } from 'commander';
import { UsageError, formatPosition } from '../../errors.js';
import { ALL_MIGRATIONS } from '../../migrations/levels.js';
import type { DroppedBlob } from '../../declcfg/write.js';
import type { Location } from '../../declcfg/types.js';
import { underCatalog } from '../../findings.js';
import { isFileUnder } from '../../util/file-under.js';
import path from 'node:path';
import { runOptions, type CliIO } from '../io.js';
import { outputFormat } from '../global-options.js';
import { withImageSource } from '../registry.js';
import { writeChunks } from '../output.js';
import { sqliteDeprecationNotice } from '../sqlite-notice.js';

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
  const { renderOutput } = await import('../../action/render/render-output.js');
  const chunks = await withImageSource(cmd, io, (imageSource, onProgress) =>
    renderOutput(
      {
        refs,
        onProgress,
        migrateLevel,
        imageRefTemplate: flags.alphaImageRefTemplate,
        imageSource,
        cwd: io.cwd,
        ...runOptions(io),
        onWarning: warn,
        onSqliteNotice: () => void io.stderr.write(sqliteDeprecationNotice(io.stderrIsTTY)),
        // Output only: large local catalogs keep their payloads on disk until written.
        deferPayloads: true,
      },
      format,
      { onDropped: (b: DroppedBlob) => warn(droppedMessage(b, underLocalRef(io, refs))) },
    ),
  );
  await writeChunks(io.stdout, chunks);
}

/**
 * A catalog file's position under the ref it came from, as typed: the first local directory ref
 * holding a file of that name (positions carry only the path inside the catalog).
 */
function underLocalRef(io: CliIO, refs: readonly string[]): (loc: Location) => Location {
  const dirs = refs.map((ref) => ({ ref, isFile: isFileUnder(path.resolve(io.cwd, ref)) }));
  return (loc) => {
    const d = dirs.find((x) => x.isFile(loc.file));
    return d === undefined ? loc : { ...loc, file: underCatalog(d.ref, loc.file) };
  };
}

/** opm leaves blobs without a package name out of its output without a word; we say so. */
function droppedMessage(b: DroppedBlob, place: (loc: Location) => Location): string {
  const where = formatPosition(b.loc === undefined ? undefined : place(b.loc));
  const what = b.name === '' ? b.schema : `${b.schema} "${b.name}"`;
  return `${where}${what} has no package name and is left out of the output, as opm does`;
}
