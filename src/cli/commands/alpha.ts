import { Command } from 'commander';
import type { CliIO } from '../io.js';
import { registerConvertTemplate } from './alpha-convert-template.js';
import { registerList, registerRenderGraph } from './alpha-graph.js';
import { registerRenderTemplate } from './alpha-render-template.js';

/** The `alpha` group: hidden from help unless HELP_ALPHA=true, as in opm, but always usable. */
export function registerAlpha(program: Command, io: CliIO): void {
  const alpha = new Command('alpha').description('Run an alpha subcommand');
  program.addCommand(alpha, { hidden: io.env.HELP_ALPHA !== 'true' });
  registerRenderTemplate(alpha, io);
  registerConvertTemplate(alpha, io);
  registerList(alpha, io);
  registerRenderGraph(alpha, io);
}
