import type { Command } from 'commander';
import { OpmError } from '../../errors.js';
import { toYaml } from '../../declcfg/write.js';
import {
  convertFbcToTemplate,
  convertedTemplateJson,
  convertedTemplateValue,
} from '../../template/convert.js';
import { outputFormat } from '../global-options.js';
import type { CliIO } from '../io.js';
import { writeAll } from '../output.js';
import { readInputFile } from './alpha-input.js';

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
        const format = outputFormat(flags.output, ['json', 'yaml'] as const);
        const input = await readInputFile(io, file ?? '-', (name) => `unable to open input: "${name}"`);
        const template = convertFbcToTemplate(kind, input.text, input.label);
        let text: string;
        try {
          text =
            format === 'json'
              ? convertedTemplateJson(template)
              : `---\n${toYaml(convertedTemplateValue(template))}\n`;
        } catch (e) {
          if (e instanceof OpmError)
            throw new OpmError(`converting: ${e.message}`, { code: e.code, cause: e });
          throw e;
        }
        await writeAll(io.stdout, text);
      });
  }
}
