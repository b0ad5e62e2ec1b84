import path from 'node:path';
import type { Command } from 'commander';
import {
  compose,
  ComposeFailedError,
  type ComposedImage,
  type ComposeResult,
  type ReferenceSummary,
} from '../../action/compose.js';
import { formatPosition, UsageError } from '../../errors.js';
import { escapeLine } from '../escape.js';
import { outputFormat, registryFlags } from '../global-options.js';
import { registryOptionsFromEnv } from '../../oci/options.js';
import { RegistryPusher } from '../../oci/push/pusher.js';
import { runOptions, type CliIO } from '../io.js';
import { withImageSource } from '../registry.js';
import { stderrColors } from '../colors.js';
import { ExitCode } from '../exit-code.js';
import { writeAll } from '../output.js';
import { quietFlag } from '../progress.js';
import { humanReport } from './validate-run.js';
import { readBundleDirMap } from '../../template/bundle-dirs.js';

export interface ComposeFlags {
  output: string;
  outputRoot?: string;
  bundleDirs?: string;
  concurrency: string | number;
  dockerfile: boolean;
  baseImage: string;
  builderImage: string;
  extraLabels: string[];
  validate: boolean;
  warnings: boolean;
  push: boolean;
  ociLayout?: string;
}

function concurrencyOf(text: string): number {
  const n = /^[1-9]\d{0,3}$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(n)) {
    throw new UsageError(
      `invalid argument "${text}" for "--concurrency" flag: expected a whole number from 1 to 9999`,
    );
  }
  return n;
}

/** What a reference rendered to, one line: `etcd: 1 package (etcd), 3 channels, 12 bundles → <file>`. */
function summaryLine(s: ReferenceSummary): string {
  const p = s.packages.length;
  const names = p === 0 ? '' : ` (${s.packages.join(', ')})`;
  const plural = (n: number, w: string): string => `${n} ${w}${n === 1 ? '' : 's'}`;
  return `${s.name}: ${plural(p, 'package')}${names}, ${plural(s.channels, 'channel')}, ${plural(s.bundles, 'bundle')} → ${s.file}`;
}

/** `opm compose FILE`: the tree and the Dockerfile written, what each reference rendered said on stderr. */
export async function runCompose(io: CliIO, file: string, flags: ComposeFlags, cmd: Command): Promise<void> {
  const format = outputFormat(flags.output, ['json', 'yaml'] as const);
  const concurrency = concurrencyOf(String(flags.concurrency));
  const warn = (m: string): void => void io.stderr.write(`warning: ${escapeLine(m)}\n`);
  const bundleDirs =
    flags.bundleDirs === undefined ? undefined : await readBundleDirMap(flags.bundleDirs, io.cwd);
  const building = flags.push || flags.ociLayout !== undefined;
  const platform = cmd.optsWithGlobals<{ platform?: string }>().platform;
  const pusher = building ? new RegistryPusher(pushOptions(io, cmd)) : undefined;
  let result: ComposeResult;
  try {
    result = await withImageSource(cmd, io, (imageSource, onProgress) =>
      compose({
        catalogFile: file,
        ...(flags.outputRoot === undefined ? {} : { outputRoot: flags.outputRoot }),
        format,
        concurrency,
        dockerfile: flags.dockerfile
          ? { baseImage: flags.baseImage, builderImage: flags.builderImage, extraLabels: flags.extraLabels }
          : false,
        validate: flags.validate,
        imageSource,
        ...(bundleDirs === undefined ? {} : { bundleDirs }),
        onProgress,
        onWarning: warn,
        cwd: io.cwd,
        ...(pusher === undefined
          ? {}
          : {
              image: {
                push: flags.push,
                ...(flags.ociLayout === undefined ? {} : { ociLayout: flags.ociLayout }),
                baseImage: flags.baseImage,
                labels: flags.extraLabels,
                ...(platform === undefined ? {} : { platforms: [platform] }),
                registry: pusher,
              },
            }),
        ...runOptions(io),
      }),
    );
  } catch (err) {
    if (err instanceof ComposeFailedError) {
      // One line per reference that failed, in the file's order; main.ts then says the outcome.
      const c = stderrColors(io);
      for (const f of err.failures) {
        const hint = f.error.hint === undefined ? '' : ` (${f.error.hint})`;
        const at = f.error.at ?? { file, line: f.reference.line };
        io.stderr.write(
          `${c.red('error:')} ${escapeLine(`${formatPosition(at)}${f.error.message}${hint}`)}\n`,
        );
      }
    }
    throw err;
  } finally {
    await pusher?.close();
  }
  // Paths under the output root as the user typed it.
  const shown = (p: string): string => (flags.outputRoot === undefined ? p : path.join(flags.outputRoot, p));
  let report = '';
  for (const s of result.references) report += `${escapeLine(summaryLine({ ...s, file: shown(s.file) }))}\n`;
  const shownDir = shown(result.catalog.name);
  if (result.dockerfile !== undefined) {
    const d = shown(path.basename(result.dockerfile.file));
    report += escapeLine(result.dockerfile.kept ? `${d} is already there, unchanged` : `wrote ${d}`) + '\n';
  }
  // --quiet: what was written goes unsaid; warnings, errors and the validation's verdict stay.
  const quiet = quietFlag(cmd);
  if (!quiet) await writeAll(io.stderr, report);
  const v = result.validation;
  if (v === undefined) {
    if (result.image !== undefined) await reportImage(io, result.image, quiet);
    return;
  }
  await writeAll(io.stderr, humanReport(v, io, flags.warnings, { dir: result.dir, display: shownDir }));
  if (!v.passed) {
    await writeAll(io.stderr, `${escapeLine(shownDir)} is written as composed; it does not validate\n`);
    throw new ExitCode(1);
  }
  if (result.image !== undefined) await reportImage(io, result.image, quiet);
}

/** The catalog image's outcome: what was pushed and written on stderr (unless quiet), its digest on stdout. */
async function reportImage(io: CliIO, image: ComposedImage, quiet: boolean): Promise<void> {
  if (quiet) return writeAll(io.stdout, `${image.digest}\n`);
  let report = '';
  for (const p of image.pushed)
    report += `${escapeLine(`pushed ${p.ref}@${p.digest} (${p.uploaded} blob${p.uploaded === 1 ? '' : 's'} uploaded, ${p.reused} already there or mounted)`)}\n`;
  if (image.ociLayout !== undefined)
    report += `${escapeLine(`wrote OCI layout ${image.ociLayout.dir} (${image.ociLayout.digest})`)}\n`;
  await writeAll(io.stderr, report);
  await writeAll(io.stdout, `${image.digest}\n`);
}

/** The push client's options: the global registry flags, as `opm image build` takes them. */
function pushOptions(io: CliIO, cmd: Command): ConstructorParameters<typeof RegistryPusher>[0] {
  const extra = cmd.optsWithGlobals<{ cache?: boolean }>();
  return {
    ...registryOptionsFromEnv({ ...registryFlags(cmd), noCache: extra.cache === false }, io.env),
    warn: (line) => void io.stderr.write(`${escapeLine(line)}\n`),
    ...(io.configRoot !== undefined ? { configRoot: io.configRoot } : {}),
  };
}
