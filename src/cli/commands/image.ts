import type { Command } from 'commander';
import { DEFAULT_OPM_IMAGE } from '../../action/generate-dockerfile/dockerfile-defaults.js';
import type { CliIO } from '../io.js';
import type { ImageBuildFlags } from './image-run.js';
import type { ImageBaseFlags } from './image-base-run.js';

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** `opm image build` (an opm-ts extension: opm has no `image` command). */
export function registerImage(program: Command, io: CliIO): void {
  const image = program
    .command('image')
    .description('Build catalog images without a container engine (opm-ts extension)');
  image
    .command('build')
    .argument('<fbcRootDir>')
    .description(
      "Build the catalog image that `generate dockerfile` describes (the base image, /configs, the serve cache at /tmp/cache) and push it or write it as an OCI image layout; prints its digest. The global --platform picks the base's platforms (a comma-separated list, or all: the default)",
    )
    .option('-t, --tag <ref>', 'Reference to push to (repeatable)', collect, [])
    .option('-i, --base-image <ref>', 'Image to build on', DEFAULT_OPM_IMAGE)
    .option(
      '-l, --label <key=value>',
      'Extra label of the image (repeatable), after operators.operatorframework.io.index.configs.v1',
      collect,
      [],
    )
    .option('--push', 'Push the image to each --tag', false)
    .option('--oci-layout <dir>', 'Write the image as an OCI image layout into this new or empty folder')
    .action(async (dir: string, flags: ImageBuildFlags, cmd: Command) => {
      const { runImageBuild } = await import('./image-run.js');
      await runImageBuild(io, dir, flags, cmd);
    });
  image
    .command('base')
    .description(
      "Build opm-ts's base image for catalog images (Node.js and opm-ts at /bin/opm, /bin/grpc_health_probe, /etc/nsswitch.conf, user 1001, entrypoint /bin/opm) without a container engine, for image build --base-image; push it or write it as an OCI image layout; prints its digest",
    )
    .requiredOption(
      '--grpc-health-probe <file>',
      'The grpc_health_probe binary to put at /bin/grpc_health_probe',
    )
    .option('-t, --tag <ref>', 'Reference to push to (repeatable)', collect, [])
    .option('--push', 'Push the image to each --tag', false)
    .option('--oci-layout <dir>', 'Write the image as an OCI image layout into this new or empty folder')
    .action(async (flags: ImageBaseFlags, cmd: Command) => {
      const { runImageBase } = await import('./image-base-run.js');
      await runImageBase(io, flags, cmd);
    });
}
