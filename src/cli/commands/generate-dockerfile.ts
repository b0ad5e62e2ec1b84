import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { notYet } from '../not-yet.js';

function addDockerfileCommand(parent: Command, name: string): void {
  parent
    .command(name)
    .argument('<fbcRootDir>')
    .description('Generate a Dockerfile for a declarative config index')
    .option(
      '-i, --base-image <string>',
      'Image base to use to build catalog.',
      'quay.io/operator-framework/opm:latest',
    )
    .option(
      '-b, --builder-image <string>',
      'Image to use as a build stage.',
      'quay.io/operator-framework/opm:latest',
    )
    .option('--binary-image <string>', 'Image in which to build catalog (deprecated: use --base-image)')
    .option(
      '-l, --extra-labels <key=value...>',
      "Extra labels to include in the generated Dockerfile. Labels should be of the form 'key=value'.",
    )
    .option('--skip-validate', 'Do not validate the catalog before writing the Dockerfile', false)
    .action(() => notYet('opm generate dockerfile'));
}

export function registerGenerate(program: Command, io: CliIO): void {
  const generate = program
    .command('generate')
    .description('Generate various artifacts for declarative config indexes');
  addDockerfileCommand(generate, 'dockerfile');
  // The design's spelling, accepted as well.
  addDockerfileCommand(program, 'generate-dockerfile');
  void io;
}
