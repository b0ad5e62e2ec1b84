import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import type { ExportPlan } from '../../sqlite/export-plan.js';
import { SQLITE_DEPRECATION_NOTICE } from '../../sqlite/read.js';
import type { CliIO } from '../io.js';
import { logrusLine } from '../logrus.js';
import { goQuote } from '../../go/fmt.js';
import { withImageSource } from '../registry.js';

/** The flags of `opm index export`. */
export interface IndexExportFlags {
  index: string;
  package?: string[];
  xpackage?: string[];
  downloadFolder: string;
  containerTool: string;
}

/** The bundles to pull as opm logs them: its Go map printed with %+q, keys in byte order. */
function bundleMap(plan: ExportPlan): string {
  const items = plan.bundles.map((b) => `${goQuote(b.image)}:{${goQuote(b.pkg)} ${goQuote(b.dir)}}`);
  return `map[${items.join(' ')}]`;
}

/**
 * `opm index export`: opm v1.73's log lines around the use case. `-c` is accepted as opm accepts
 * it, but the images are always pulled by opm-ts's registry client.
 */
export async function runIndexExport(io: CliIO, flags: IndexExportFlags, cmd: Command): Promise<void> {
  const { indexExport } = await import('../../action/index-export.js');
  if (flags.package !== undefined && flags.xpackage !== undefined)
    throw new UsageError("cannot simultaneously set '-p' and '-o' flags, remove '-o'");
  const packages = (flags.package ?? flags.xpackage ?? []).filter((p) => p !== '');
  const fields = { index: flags.index, package: `[${packages.join(' ')}]` };
  const log = (msg: string, f: Record<string, string> = fields): void =>
    void io.stderr.write(logrusLine('info', msg, f));
  io.stderr.write(logrusLine('warning', SQLITE_DEPRECATION_NOTICE, {}));
  log('export from the index');
  log(`Pulling previous image ${flags.index} to get metadata`);
  const result = await withImageSource(cmd, io, (imageSource) =>
    indexExport({
      index: flags.index,
      packages,
      downloadFolder: flags.downloadFolder,
      cwd: io.cwd,
      imageSource,
      onPlan: (plan) => log(`Preparing to pull bundles ${bundleMap(plan)}`),
      ...(io.signal === undefined ? {} : { signal: io.signal }),
    }),
  );
  for (const dir of result.packageDirs) log(`Writing package.yaml in ${dir}`, {});
}
