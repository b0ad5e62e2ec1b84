import { createRequire } from 'node:module';
import type { Command } from 'commander';
import { goArch } from '../../util/go-arch.js';
import type { CliIO } from '../io.js';
import { writeAll } from '../output.js';

/** opm prints Go's %#v of its version struct; scripts grep it, so keep the shape. */
export function versionLine(): string {
  const pkg = createRequire(import.meta.url)('../../../package.json') as { version: string };
  const fields = [
    `OpmVersion:"v${pkg.version}"`,
    `GitCommit:""`,
    `BuildDate:""`,
    `GoOs:"${process.platform}"`,
    `GoArch:"${goArch()}"`,
  ];
  return `Version: version.Version{${fields.join(', ')}}\n`;
}

export function registerVersion(program: Command, io: CliIO): void {
  program
    .command('version')
    .description('Print the opm version')
    .action(async () => {
      await writeAll(io.stdout, versionLine());
    });
}
