import type { Command } from 'commander';
import { generateDockerfile } from '../../action/generate-dockerfile/generate-dockerfile.js';
import { UsageError } from '../../errors.js';
import { runOptions, type CliIO } from '../io.js';

export interface DockerfileFlags {
  baseImage: string;
  builderImage: string;
  binaryImage?: string;
  extraLabels: string[];
  skipValidate: boolean;
}

/** `opm generate dockerfile DIR`: loaded only when it runs, since it validates with the schema validator. */
export async function runGenerateDockerfile(
  io: CliIO,
  dir: string,
  flags: DockerfileFlags,
  cmd: Command,
): Promise<void> {
  if (flags.binaryImage !== undefined) {
    if (cmd.getOptionValueSource('baseImage') === 'cli') {
      throw new UsageError(
        'if any flags in the group [base-image binary-image] are set none of the others can be',
      );
    }
    io.stderr.write('Flag --binary-image has been deprecated, use --base-image instead\n');
  }
  await generateDockerfile({
    fbcRootDir: dir,
    baseImage: flags.baseImage,
    builderImage: flags.builderImage,
    builderImageExplicit: cmd.getOptionValueSource('builderImage') === 'cli',
    ...(flags.binaryImage === undefined ? {} : { binaryImage: flags.binaryImage }),
    extraLabels: flags.extraLabels,
    skipValidate: flags.skipValidate,
    ...runOptions(io),
  });
}
