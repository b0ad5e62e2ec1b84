import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { goArch } from '../../util/go-arch.js';
import type { CliIO } from '../io.js';
import { writeAll } from '../output.js';

/** opm-ts's own package.json, found upwards from this module (compiled, bundled or from sources). */
function ownPackage(): { version: string } {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg: unknown = JSON.parse(readFileSync(file, 'utf8'));
      if (
        typeof pkg === 'object' &&
        pkg !== null &&
        'name' in pkg &&
        pkg.name === 'opm-ts' &&
        'version' in pkg
      )
        return { version: String(pkg.version) };
    }
    const up = path.dirname(dir);
    if (up === dir) return { version: '0.0.0' };
    dir = up;
  }
}

/** opm prints Go's %#v of its version struct; scripts grep it, so keep the shape. */
export function versionLine(): string {
  const pkg = ownPackage();
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
