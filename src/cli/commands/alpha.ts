import type { Command } from 'commander';
import { registerAlphaBundle } from './alpha-bundle.js';
import type { CliIO } from '../io.js';
import { registerConvertTemplate } from './alpha-convert-template.js';
import { registerAlphaList, registerRenderGraph } from './alpha-graph.js';
import { registerRenderTemplate } from './alpha-render-template.js';
import { registerFilter } from './filter.js';
import { registerListImages } from './list-images.js';

/** The `alpha` group: hidden from help unless HELP_ALPHA=true, as in opm, but always usable. */
export function registerAlpha(program: Command, io: CliIO): void {
  // Made with .command() so that it inherits the program's error and output settings.
  const alpha = program
    .command('alpha', { hidden: io.env.HELP_ALPHA !== 'true' })
    .description('Run an alpha subcommand');
  registerRenderTemplate(alpha, io);
  registerConvertTemplate(alpha, io);
  registerAlphaList(alpha, io);
  registerListImages(alpha.commands.find((c) => c.name() === 'list') ?? alpha, io);
  registerRenderGraph(alpha, io);
  registerAlphaBundle(alpha, io);
  registerFilter(alpha, io);
}
