import type { Command } from 'commander';
import { DEFAULT_OPM_IMAGE } from '../../action/generate-dockerfile/dockerfile-defaults.js';
import type { CliIO } from '../io.js';
import type { DockerfileFlags } from './generate-dockerfile-run.js';

const collect = (value: string, previous: string[]): string[] => [...previous, value];

function addDockerfileCommand(parent: Command, name: string, io: CliIO): void {
  parent
    .command(name)
    .argument('<fbcRootDir>')
    .description(
      'Generate a Dockerfile for a declarative config index, written beside the directory as <fbcRootDir>.Dockerfile',
    )
    .option('-i, --base-image <string>', 'Image base to use to build catalog.', DEFAULT_OPM_IMAGE)
    .option('-b, --builder-image <string>', 'Image to use as a build stage.', DEFAULT_OPM_IMAGE)
    .option('--binary-image <string>', 'Image in which to build catalog. (deprecated: use --base-image)')
    .option(
      '-l, --extra-labels <key=value>',
      "Extra labels to include in the generated Dockerfile. Labels should be of the form 'key=value'.",
      collect,
      [],
    )
    .option('--skip-validate', 'Write the Dockerfile without validating the catalog first', false)
    .action(async (dir: string, flags: DockerfileFlags, cmd: Command) => {
      const { runGenerateDockerfile } = await import('./generate-dockerfile-run.js');
      await runGenerateDockerfile(io, dir, flags, cmd);
    });
}

export function registerGenerate(program: Command, io: CliIO): void {
  const generate = program
    .command('generate')
    .description('Generate various artifacts for declarative config indexes');
  addDockerfileCommand(generate, 'dockerfile', io);
  // The design's spelling, accepted as well.
  addDockerfileCommand(program, 'generate-dockerfile', io);
}
