import type { Command } from 'commander';
import { DEFAULT_OPM_IMAGE, planDockerfile, writeDockerfile } from '../../action/generate-dockerfile.js';
import path from 'node:path';
import { validateCatalog } from '../../action/validate.js';
import { OpmError, UsageError } from '../../errors.js';
import type { CliIO } from '../io.js';

interface DockerfileFlags {
  baseImage: string;
  builderImage: string;
  binaryImage?: string;
  extraLabels: string[];
  skipValidate: boolean;
}

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
      if (flags.binaryImage !== undefined) {
        if (cmd.getOptionValueSource('baseImage') === 'cli') {
          throw new UsageError(
            'if any flags in the group [base-image binary-image] are set none of the others can be',
          );
        }
        io.stderr.write('Flag --binary-image has been deprecated, use --base-image instead\n');
      }
      const plan = await planDockerfile({
        fbcRootDir: dir,
        baseImage: flags.baseImage,
        builderImage: flags.builderImage,
        builderImageExplicit: cmd.getOptionValueSource('builderImage') === 'cli',
        ...(flags.binaryImage === undefined ? {} : { binaryImage: flags.binaryImage }),
        extraLabels: flags.extraLabels,
      });
      if (!flags.skipValidate) await validateBeforeWriting(dir);
      await writeDockerfile(plan);
    });
}

/** Catalogs are validated before a Dockerfile is written for them (opm does not); --skip-validate opts out. */
async function validateBeforeWriting(dir: string): Promise<void> {
  const result = await validateCatalog(dir);
  const errors = result.findings.filter((f) => f.severity === 'error');
  const first = errors[0];
  if (first === undefined) return;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  throw new OpmError(`catalog "${dir}" is not valid: ${first.message}${more}`, {
    code: 'E_INVALID_CATALOG',
    ...(first.file === undefined
      ? {}
      : {
          at: { file: path.join(dir, first.file), ...(first.line === undefined ? {} : { line: first.line }) },
        }),
    hint: `see 'opm validate ${dir}', or pass --skip-validate to write the Dockerfile anyway`,
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
