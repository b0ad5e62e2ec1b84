import { Option, type Command } from 'commander';
import { migrateLevelOption } from '../migrate-level-option.js';
import type { CliIO } from '../io.js';
import type { RenderFlags } from './render-run.js';

const ALPHA_PREFIX =
  '(ALPHA: This flag will be removed or renamed in a future release, potentially without notice) ';

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
    .addOption(migrateLevelOption())
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
      const { runRender } = await import('./render-run.js');
      await runRender(io, refs, flags, cmd);
    });
}
