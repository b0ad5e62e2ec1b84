import { Option, type Command } from 'commander';
import type { CliIO } from '../io.js';
import { notYet } from '../not-yet.js';

export function registerRender(program: Command, _io: CliIO): void {
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
    .option('--migrate-level <string>', 'Name of the last migration to run (default: none)', '')
    .option('--migrate', 'Perform all available schema migrations on the rendered FBC', false)
    .addOption(
      new Option(
        '--alpha-image-ref-template <string>',
        '(ALPHA: This flag will be removed or renamed in a future release, potentially without notice) When bundle image references are unavailable (e.g. rendering a bundle directory), use this template to build them. Fields: {{.Package}}, {{.Name}}, {{.Version}}',
      ).default(''),
    )
    .action(() => notYet('opm render'));
}
