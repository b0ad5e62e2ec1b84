import { escapeLine } from '../escape.js';
import { Option, type Command } from 'commander';
import { UsageError, formatPosition } from '../../errors.js';
import { ALL_MIGRATIONS, migrationLevelHelp } from '../../action/migration-levels.js';
import type { DroppedBlob } from '../../declcfg/write.js';
import { runOptions, type CliIO } from '../io.js';
import { outputFormat } from '../global-options.js';
import { withImageSource } from '../registry.js';
import { writeChunks } from '../output.js';

const ALPHA_PREFIX =
  '(ALPHA: This flag will be removed or renamed in a future release, potentially without notice) ';

interface RenderFlags {
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

export function registerRender(program: Command, io: CliIO): void {
  program
    .command('render')
    .argument('<index-image | bundle-image | bundle-directory | fbc-directory...>')
    .description(
      'Generate a stream of file-based catalog objects from catalog images, bundle images, bundle directories and FBC directories',
    )
    .option(
      '-o, --output <string>',
      'Output format of the streamed file-based catalog objects (json|yaml)',
      'json',
    )
    .option('--migrate-level <string>', migrationLevelHelp(), '')
    .option('--migrate', 'Perform all available schema migrations on the rendered FBC', false)
    .addOption(
      new Option(
        '--alpha-image-ref-template <string>',
        `${ALPHA_PREFIX}When bundle image references are unavailable (e.g. rendering a bundle directory), use this template to build them. Fields: {{.Package}}, {{.Name}}, {{.Version}}`,
      )
        .default('')
        .hideHelp(io.env.HELP_ALPHA !== 'true'),
    )
    .action(async (refs: string[], flags: RenderFlags, cmd: Command) => {
      const format = outputFormat(flags.output, ['json', 'yaml'] as const);
      const migrateLevel = migrateLevelFromFlags(flags);
      const warn = (m: string): void => void io.stderr.write(`warning: ${escapeLine(m)}\n`);
      // Loaded when the command runs, so that other commands do not pay for them at start-up.
      const { renderOutput } = await import('../../action/render-output.js');
      const chunks = await withImageSource(cmd, io, (imageSource) =>
        renderOutput(
          {
            refs,
            migrateLevel,
            imageRefTemplate: flags.alphaImageRefTemplate,
            imageSource,
            cwd: io.cwd,
            ...runOptions(io),
            onWarning: warn,
            // Output only: large local catalogs keep their payloads on disk until written.
            deferPayloads: true,
          },
          format,
          { onDropped: (b: DroppedBlob) => warn(droppedMessage(b)) },
        ),
      );
      await writeChunks(io.stdout, chunks);
    });
}

/** opm leaves blobs without a package name out of its output without a word; we say so. */
function droppedMessage(b: DroppedBlob): string {
  const where = formatPosition(b.loc);
  const what = b.name === '' ? b.schema : `${b.schema} "${b.name}"`;
  return `${where}${what} has no package name and is left out of the output, as opm does`;
}
