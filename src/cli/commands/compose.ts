import type { Command } from 'commander';
import { DEFAULT_OPM_IMAGE } from '../../action/generate-dockerfile/dockerfile-defaults.js';
import type { CliIO } from '../io.js';
import type { ComposeFlags } from './compose-run.js';

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** `opm compose` (an extension: opm has no such command). */
export function registerCompose(program: Command, io: CliIO): void {
  program
    .command('compose')
    .argument('<catalog-file>')
    .description(
      'Compose a catalog directory from the references of a catalog file (name, repo, tag, references of name and image): each rendered to <name>/<reference>/index.yaml, the Dockerfile written beside it, the result validated',
    )
    .option(
      '-o, --output <string>',
      'Output format of each reference file, as opm render writes it (json|yaml)',
      'json',
    )
    .option(
      '--output-root <string>',
      'Folder the catalog directory and its Dockerfile are written in (default: the working directory)',
    )
    .option(
      '--bundle-dirs <string>',
      'YAML or JSON map of bundle image references to bundle directories (relative to the file), read instead of pulled by template references',
    )
    .option(
      '--concurrency <int>',
      'How many references are rendered at once',
      (v: string): string | number => v,
      4 as string | number,
    )
    .option('--no-dockerfile', 'Do not write <name>.Dockerfile beside the catalog directory')
    .option(
      '-i, --base-image <string>',
      'Image base of the Dockerfile, and of the image --push or --oci-layout builds',
      DEFAULT_OPM_IMAGE,
    )
    .option('-b, --builder-image <string>', 'Build stage image of the Dockerfile', DEFAULT_OPM_IMAGE)
    .option(
      '-l, --extra-labels <key=value>',
      "Extra labels of the Dockerfile (and of the image --push or --oci-layout builds). Labels should be of the form 'key=value'.",
      collect,
      [],
    )
    .option('--no-validate', 'Do not validate the composed catalog')
    .option(
      '--push',
      'Then build the catalog image (on --base-image, with the --extra-labels, as `opm image build`) and push it to repo:tag of the catalog file; prints its digest',
      false,
    )
    .option(
      '--oci-layout <dir>',
      'Then build the catalog image and write it as an OCI image layout into this new or empty folder',
    )
    .option('--warnings', 'Show the validation warnings too', false)
    .action(async (file: string, flags: ComposeFlags, cmd: Command) => {
      const { runCompose } = await import('./compose-run.js');
      await runCompose(io, file, flags, cmd);
    });
}
