import path from 'node:path';
import type { Command } from 'commander';
import { planDockerfile, writeDockerfile } from '../../action/generate-dockerfile.js';
import { validateCatalog } from '../../action/validate.js';
import { OpmError, UsageError } from '../../errors.js';
import type { CliIO } from '../io.js';

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
}

/** Catalogs are validated before a Dockerfile is written for them (opm does not); --skip-validate opts out. */
async function validateBeforeWriting(dir: string): Promise<void> {
  const result = await validateCatalog(dir, { lint: false });
  const errors = result.findings.filter((f) => f.severity === 'error');
  const first = errors[0];
  if (first === undefined) return;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  throw new OpmError(`catalog "${dir}" is not valid: ${first.message}${more}`, {
    ...(first.file === undefined
      ? {}
      : {
          at: { file: path.join(dir, first.file), ...(first.line === undefined ? {} : { line: first.line }) },
        }),
    hint: `see 'opm validate ${dir}', or pass --skip-validate to write the Dockerfile anyway`,
  });
}
