import type { Command } from 'commander';
import { diff } from '../../action/diff.js';
import { isEmptyDiff, type CatalogDiff } from '../../curate/diff.js';
import { diffMarkdown, diffText, type Paint } from '../../curate/diff-format.js';
import { toYaml } from '../../declcfg/write.js';
import { UsageError } from '../../errors.js';
import { stdoutColors } from '../colors.js';
import { escapeLine } from '../escape.js';
import { ExitCode, FailureExitCode } from '../exit-code.js';
import { outputFormat } from '../global-options.js';
import { runOptions, type CliIO } from '../io.js';
import { writeAll } from '../output.js';
import { withImageSource } from '../registry.js';
import { readBundleDirMap } from '../../template/bundle-dirs.js';

export interface DiffFlags {
  output: string;
  failOn: string;
  bundleDirs?: string;
}

/** As diff(1): 0 equal, 1 different, 2 trouble. */
const TROUBLE = 2;

/** `opm diff OLD NEW`. */
export async function runDiff(
  io: CliIO,
  oldRef: string,
  newRef: string,
  flags: DiffFlags,
  cmd: Command,
): Promise<void> {
  let d: CatalogDiff;
  let text: string;
  try {
    const format = outputFormat(flags.output, ['text', 'markdown', 'json', 'yaml'] as const);
    if (flags.failOn !== 'any' && flags.failOn !== 'impact') {
      throw new UsageError(`invalid --fail-on value "${flags.failOn}", expected (any|impact)`);
    }
    const warn = (m: string): void => void io.stderr.write(`warning: ${escapeLine(m)}\n`);
    const bundleDirs =
      flags.bundleDirs === undefined ? undefined : (await readBundleDirMap(flags.bundleDirs, io.cwd)).dirs;
    d = await withImageSource(cmd, io, (imageSource, onProgress) =>
      diff({
        oldRef,
        newRef,
        imageSource,
        cwd: io.cwd,
        ...runOptions(io),
        onWarning: warn,
        onProgress,
        ...(bundleDirs === undefined ? {} : { bundleDirs }),
      }),
    );
    text = formatDiff(d, format, io);
  } catch (err) {
    throw new FailureExitCode(TROUBLE, err);
  }
  // Output that cannot be written is trouble too, not a difference.
  await writeAll(io.stdout, text).catch((err: unknown) => {
    throw new FailureExitCode(TROUBLE, err);
  });
  // An upgrade OLM refuses (or that deletes a CRD's objects) is an impact on users too.
  const fails =
    flags.failOn === 'impact' ? d.upgradeImpact.length + d.crdUpgrades.length > 0 : !isEmptyDiff(d);
  if (fails) throw new ExitCode(1);
}

function formatDiff(d: CatalogDiff, format: 'text' | 'markdown' | 'json' | 'yaml', io: CliIO): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(d, null, 2)}\n`;
    case 'yaml':
      return toYaml(d);
    case 'markdown':
      return diffMarkdown(d);
    case 'text': {
      const c = stdoutColors(io);
      const paint: Paint = {
        added: (s) => c.green(s),
        removed: (s) => c.red(s),
        changed: (s) => c.yellow(s),
        impact: (s) => c.bold.red(s),
        heading: (s) => c.bold(s),
      };
      return diffText(d, paint, escapeLine);
    }
  }
}
