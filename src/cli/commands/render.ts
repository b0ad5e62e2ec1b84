import { Option, type Command } from 'commander';
import { UsageError } from '../../errors.js';
import { render } from '../../action/render.js';
import { ALL_MIGRATIONS, migrationLevelHelp } from '../../action/migrations.js';
import { writeJson, writeYaml } from '../../declcfg/write.js';
import type { ImageSource } from '../../oci/image-source.js';
import { createImageSource } from '../../oci/registry-client.js';
import { registryOptionsFromEnv } from '../../oci/options.js';
import type { CliIO } from '../io.js';
import { outputFormat, registryFlags } from '../global-options.js';
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
export function migrateLevelFromFlags(flags: { migrate?: boolean; migrateLevel: string }): string {
  if (flags.migrate === true && flags.migrateLevel !== '') {
    throw new UsageError(
      'if any flags in the group [migrate migrate-level] are set none of the others can be; [migrate migrate-level] were all set',
    );
  }
  return flags.migrate === true ? ALL_MIGRATIONS : flags.migrateLevel;
}

/**
 * An image source that creates the registry client on the first pull, so rendering directories
 * never touches registry configuration.
 */
export function lazyImageSource(create: () => ImageSource): ImageSource {
  let source: ImageSource | undefined;
  return {
    pull(ref: string) {
      source ??= create();
      return source.pull(ref);
    },
  };
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
      const regFlags = registryFlags(cmd);
      const cfg = await render({
        refs,
        migrateLevel,
        imageRefTemplate: flags.alphaImageRefTemplate,
        imageSource: lazyImageSource(() => createImageSource(registryOptionsFromEnv(regFlags, io.env))),
        cwd: io.cwd,
        onWarning: (m) => io.stderr.write(`warning: ${m}\n`),
      });
      await writeChunks(io.stdout, format === 'json' ? writeJson(cfg) : writeYaml(cfg));
    });
}
