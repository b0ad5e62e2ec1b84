import type { Command } from 'commander';
import type { CliIO } from '../io.js';

export function registerConvertTemplate(alpha: Command, io: CliIO): void {
  const convert = alpha
    .command('convert-template')
    .description('Convert an existing FBC to a catalog template');
  for (const kind of ['basic', 'substitutes'] as const) {
    convert
      .command(kind)
      .argument('[fbc-file]', "an FBC file; '-' or none reads standard input")
      .description(`Generate a ${kind} template from an existing FBC file (or - for stdin)`)
      .option('-o, --output <string>', 'Output format (json|yaml)', 'json')
      .action(async (file: string | undefined, flags: { output: string }) => {
        const { runConvertTemplate } = await import('./alpha-convert-template-run.js');
        await runConvertTemplate(io, kind, file, flags);
      });
  }
}
