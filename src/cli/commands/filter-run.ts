import type { Command } from 'commander';
import { filter, filterToDir, type FilterOptions } from '../../action/filter.js';
import { writeJsonBytes, writeYaml } from '../../declcfg/write.js';
import { escapeLine } from '../escape.js';
import { outputFormat } from '../global-options.js';
import { runOptions, type CliIO } from '../io.js';
import { writeChunks } from '../output.js';
import { withImageSource } from '../registry.js';

export interface FilterFlags {
  package: string[];
  config?: string;
  headsOnly: boolean;
  output: string;
  outputDir?: string;
  verbose: boolean;
}

/** The catalog and selection flags `filter` and `list images` share, as action options. */
export function selectionOptions(
  io: CliIO,
  ref: string,
  flags: { package: string[]; config?: string; headsOnly: boolean },
): FilterOptions {
  return {
    ref,
    packages: flags.package,
    headsOnly: flags.headsOnly,
    cwd: io.cwd,
    ...runOptions(io),
    onWarning: (m) => void io.stderr.write(`warning: ${escapeLine(m)}\n`),
    ...(flags.config === undefined ? {} : { configFile: flags.config }),
  };
}

/** `opm filter REF`. */
export async function runFilter(io: CliIO, ref: string, flags: FilterFlags, cmd: Command): Promise<void> {
  const format = outputFormat(flags.output, ['json', 'yaml'] as const);
  const options = selectionOptions(io, ref, flags);
  const outputDir = flags.outputDir;
  const result = await withImageSource(cmd, io, (imageSource, onProgress) =>
    outputDir === undefined
      ? filter({ ...options, imageSource, onProgress })
      : filterToDir({ ...options, imageSource, onProgress, outputDir, format }),
  );
  if (flags.verbose) for (const e of result.edits) io.stderr.write(`filter: ${escapeLine(e)}\n`);
  if (outputDir !== undefined) return;
  await writeChunks(io.stdout, format === 'json' ? writeJsonBytes(result.config) : writeYaml(result.config));
}
