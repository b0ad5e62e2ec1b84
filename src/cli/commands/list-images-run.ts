import type { Command } from 'commander';
import { listImages } from '../../action/list-images.js';
import { toYaml } from '../../declcfg/write.js';
import { UsageError } from '../../errors.js';
import { outputFormat } from '../global-options.js';
import type { CliIO } from '../io.js';
import { writeAll } from '../output.js';
import { withImageSource } from '../registry.js';
import { selectionOptions } from './filter-run.js';

export interface ListImagesFlags {
  output: string;
  package: string[];
  config?: string;
  headsOnly: boolean;
  mapping?: string;
}

/** `opm list images REF`. */
export async function runListImages(
  io: CliIO,
  ref: string,
  flags: ListImagesFlags,
  cmd: Command,
): Promise<void> {
  const format = outputFormat(flags.output, ['text', 'json', 'yaml'] as const);
  if (flags.mapping !== undefined && format !== 'text') {
    throw new UsageError(
      '--mapping writes source=destination lines: it cannot be combined with -o json|yaml',
    );
  }
  const result = await withImageSource(cmd, io, (imageSource) =>
    listImages({
      ...selectionOptions(io, ref, flags),
      imageSource,
      ...(flags.mapping === undefined ? {} : { mapping: flags.mapping }),
    }),
  );
  let text: string;
  if (result.mapping !== undefined) text = result.mapping.map((l) => `${l}\n`).join('');
  else if (format === 'json') text = `${JSON.stringify(result.images, null, 2)}\n`;
  else if (format === 'yaml') text = toYaml(result.images);
  else text = result.images.map((i) => `${i.image}\n`).join('');
  await writeAll(io.stdout, text);
}
