import { Option, type Command } from 'commander';
import { OpmError } from '../../errors.js';
import { migrationLevelHelp } from '../../action/migrations.js';
import { renderTemplate } from '../../action/render-template.js';
import { writeJson, writeYaml } from '../../declcfg/write.js';
import { writeMermaid } from '../../declcfg/write-mermaid.js';
import { readBundleDirMap } from '../../template/bundle-dirs.js';
import { templateArgs } from '../../template/detect.js';
import { DEFAULT_SEMVER_COMPAT, SEMVER_COMPAT_LEVELS, type SemverCompat } from '../../template/semver.js';
import { outputFormat } from '../global-options.js';
import type { CliIO } from '../io.js';
import { writeAll } from '../output.js';
import { readInputFile } from './alpha-input.js';
import { withImageSource } from '../registry.js';

interface Flags {
  output: string;
  migrateLevel: string;
  bundleDirs?: string;
  semverCompat: string;
}

export function registerRenderTemplate(alpha: Command, io: CliIO): void {
  alpha
    .command('render-template')
    .argument('[type]', 'basic, semver or substitutes; detected from the template when omitted')
    .argument('[file]', "template file; '-' or none reads standard input")
    .description(
      'Render a catalog template (basic, semver, substitutes) to a file-based catalog; the type is detected from its schema when not given',
    )
    .option('-o, --output <string>', 'Output format (json|yaml|mermaid)', 'json')
    .option('--migrate-level <string>', migrationLevelHelp(), '')
    .option(
      '--bundle-dirs <file>',
      'YAML or JSON map of bundle image references to bundle directories (relative to the file), rendered instead of pulled',
    )
    .addOption(
      new Option(
        '--semver-compat <level>',
        'semver template rules: v1.46 (opm 1.46, which the operator pipelines use and which built the published catalogs) or current (opm 1.73: edges across sibling channels, package description and icon from the CSV)',
      )
        .choices([...SEMVER_COMPAT_LEVELS])
        .default(DEFAULT_SEMVER_COMPAT),
    )
    .action(async (type: string | undefined, file: string | undefined, flags: Flags, cmd: Command) => {
      const args = [type, file].filter((a): a is string => a !== undefined);
      const format = outputFormat(flags.output, ['json', 'yaml', 'mermaid'] as const);
      const target = templateArgs(args);
      const bundleDirs =
        flags.bundleDirs === undefined ? undefined : await readBundleDirMap(flags.bundleDirs, io.cwd);
      const input = await readInputFile(
        io,
        target.file,
        (name, reason) => `unable to open "${name}": ${reason}`,
      );
      const { config } = await withImageSource(cmd, io, (imageSource) =>
        renderTemplate({
          text: input.text,
          label: input.label,
          ...(target.type === undefined ? {} : { type: target.type }),
          migrateLevel: flags.migrateLevel,
          ...(bundleDirs === undefined ? {} : { bundleDirs }),
          imageSource,
          semverCompat: compatLevel(flags.semverCompat),
          onWarning: (m) => io.stderr.write(`warning: ${m}\n`),
        }),
      );
      // The whole output is built before anything is written: a failure leaves stdout empty.
      let text: string;
      try {
        text =
          format === 'mermaid'
            ? writeMermaid(config, { drawV0Semantics: true, warn: (l) => io.stderr.write(`${l}\n`) })
            : [...(format === 'json' ? writeJson(config) : writeYaml(config))].join('');
      } catch (e) {
        if (e instanceof OpmError)
          throw new OpmError(`writing output: ${e.message}`, { code: e.code, cause: e });
        throw e;
      }
      await writeAll(io.stdout, text);
    });
}

function compatLevel(s: string): SemverCompat {
  return SEMVER_COMPAT_LEVELS.find((l) => l === s) ?? DEFAULT_SEMVER_COMPAT;
}
