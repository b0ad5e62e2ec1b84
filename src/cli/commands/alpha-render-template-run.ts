import { escapeLine } from '../escape.js';
import type { Command } from 'commander';
import { OpmError } from '../../errors.js';
import { renderTemplate } from '../../action/render-template.js';
import { writeJson, writeYaml } from '../../declcfg/write.js';
import { writeMermaid } from '../../graph/mermaid.js';
import { readBundleDirMap } from '../../template/bundle-dirs.js';
import { templateArgs } from '../../template/detect.js';
import {
  DEFAULT_SEMVER_COMPAT,
  SEMVER_COMPAT_LEVELS,
  type SemverCompat,
} from '../../template/semver-template.js';
import { outputFormat } from '../global-options.js';
import { runOptions, type CliIO } from '../io.js';
import { writeAll } from '../output.js';
import { readInputFile } from './alpha-input.js';
import { withImageSource } from '../registry.js';

export interface RenderTemplateFlags {
  output: string;
  migrateLevel: string;
  bundleDirs?: string;
  semverCompat: string;
}

/** `opm alpha render-template [TYPE] [FILE]`. */
export async function runRenderTemplate(
  io: CliIO,
  type: string | undefined,
  file: string | undefined,
  flags: RenderTemplateFlags,
  cmd: Command,
): Promise<void> {
  const args = [type, file].filter((a): a is string => a !== undefined);
  const format = outputFormat(flags.output, ['json', 'yaml', 'mermaid'] as const);
  const target = templateArgs(args);
  const bundleDirs =
    flags.bundleDirs === undefined ? undefined : await readBundleDirMap(flags.bundleDirs, io.cwd);
  const input = await readInputFile(io, target.file, (name, reason) => `unable to open "${name}": ${reason}`);
  const { config } = await withImageSource(cmd, io, (imageSource, onProgress) =>
    renderTemplate({
      onProgress,
      text: input.text,
      label: input.label,
      ...(target.type === undefined ? {} : { type: target.type }),
      migrateLevel: flags.migrateLevel,
      ...(bundleDirs === undefined ? {} : { bundleDirs }),
      imageSource,
      semverCompat: compatLevel(flags.semverCompat),
      ...runOptions(io),
      onWarning: (m) => io.stderr.write(`warning: ${escapeLine(m)}\n`),
    }),
  );
  // The whole output is built before anything is written: a failure leaves stdout empty.
  let text: string;
  try {
    text =
      format === 'mermaid'
        ? writeMermaid(config, { drawV0Semantics: true, warn: (l) => io.stderr.write(`${escapeLine(l)}\n`) })
        : [...(format === 'json' ? writeJson(config) : writeYaml(config))].join('');
  } catch (e) {
    if (e instanceof OpmError) throw new OpmError(`writing output: ${e.message}`, { code: e.code, cause: e });
    throw e;
  }
  await writeAll(io.stdout, text);
}

function compatLevel(s: string): SemverCompat {
  return SEMVER_COMPAT_LEVELS.find((l) => l === s) ?? DEFAULT_SEMVER_COMPAT;
}
