import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import type { ListImagesFlags } from './list-images-run.js';

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** `images` under a `list` group (`opm list images`, `opm alpha list images`): an extension. */
export function registerListImages(list: Command, io: CliIO): void {
  list
    .command('images')
    .argument('<ref>', 'catalog image, FBC directory or bundle directory, as render takes')
    .description(
      'List every image a catalog needs mirrored: bundle images and related images, once each, sorted',
    )
    .option('-o, --output <string>', 'Output format (text|json|yaml)', 'text')
    .option('--package <name>', 'only this package (repeatable), as in filter', collect, [])
    .option('--config <file>', 'only what this selection keeps, as in filter')
    .option('--heads-only', "only each kept channel's head, as in filter", false)
    .option(
      '--mapping <registry/prefix>',
      'print source=destination lines for mirroring under this registry and path (digests and tags kept)',
    )
    .action(async (ref: string, flags: ListImagesFlags, cmd: Command) => {
      const { runListImages } = await import('./list-images-run.js');
      await runListImages(io, ref, flags, cmd);
    });
}

/** The top-level `opm list` group, holding `images`. */
export function registerListGroup(program: Command, io: CliIO): void {
  registerListImages(program.command('list').description('List contents of a catalog'), io);
}
