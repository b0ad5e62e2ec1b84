import { Option, type Command } from 'commander';
import { migrateLevelOption } from '../migrate-level-option.js';
import type { SemverCompat } from '../../template/semver-template.js';
import type { CliIO } from '../io.js';
import type { RenderTemplateFlags } from './alpha-render-template-run.js';

/**
 * The template module's SEMVER_COMPAT_LEVELS and DEFAULT_SEMVER_COMPAT, spelled here so that building
 * the command tree does not load the template code (and the yaml library); a test keeps them equal.
 */
export const SEMVER_COMPAT_CHOICES: readonly SemverCompat[] = ['current', 'v1.46'];
export const DEFAULT_COMPAT_CHOICE: SemverCompat = 'current';

export function registerRenderTemplate(alpha: Command, io: CliIO): void {
  alpha
    .command('render-template')
    .argument('[type]', 'basic, semver or substitutes; detected from the template when omitted')
    .argument('[file]', "template file; '-' or none reads standard input")
    .description(
      'Render a catalog template (basic, semver, substitutes) to a file-based catalog; the type is detected from its schema when not given',
    )
    .option('-o, --output <string>', 'Output format (json|yaml|mermaid)', 'json')
    .addOption(migrateLevelOption())
    .option(
      '--bundle-dirs <file>',
      'YAML or JSON map of bundle image references to bundle directories (relative to the file), rendered instead of pulled',
    )
    .addOption(
      new Option(
        '--semver-compat <level>',
        'semver template rules: current (opm 1.73: edges across sibling channels, package description and icon from the CSV) or v1.46 (opm 1.46, for pipelines that pin that release: each channel linked on its own)',
      )
        .choices([...SEMVER_COMPAT_CHOICES])
        .default(DEFAULT_COMPAT_CHOICE),
    )
    .action(
      async (
        type: string | undefined,
        file: string | undefined,
        flags: RenderTemplateFlags,
        cmd: Command,
      ) => {
        const { runRenderTemplate } = await import('./alpha-render-template-run.js');
        await runRenderTemplate(io, type, file, flags, cmd);
      },
    );
}
