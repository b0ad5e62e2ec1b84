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

/** `opm alpha convert-template basic|substitutes [FILE]`. */
export async function runConvertTemplate(
  io: CliIO,
  kind: 'basic' | 'substitutes',
  file: string | undefined,
  flags: { output: string },
): Promise<void> {
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
    if (e instanceof OpmError) throw new OpmError(`converting: ${e.message}`, { code: e.code, cause: e });
    throw e;
  }
  await writeAll(io.stdout, text);
}
