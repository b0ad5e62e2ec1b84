import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { writeAll } from '../output.js';
import { ownPackageFrom, versionLine } from '../version-line.js';

/** opm-ts's own package.json, found upwards from this module (compiled, bundled or from sources). */
export function ownPackage(): { version: string } {
  return ownPackageFrom(path.dirname(fileURLToPath(import.meta.url)));
}

export function registerVersion(program: Command, io: CliIO): void {
  program
    .command('version')
    .description('Print the opm version')
    .action(async () => {
      await writeAll(io.stdout, versionLine(ownPackage().version));
    });
}
