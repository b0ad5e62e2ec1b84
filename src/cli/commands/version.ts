import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { goArch } from '../../go/arch.js';
import type { CliIO } from '../io.js';
import { writeAll } from '../output.js';

/** opm-ts's own package.json, found upwards from this module (compiled, bundled or from sources). */
export function ownPackage(): { version: string } {
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

/** The opm release whose behaviour opm-ts matches (commands, flags, output). */
const MATCHES_OPM = 'v1.73.0';

/**
 * opm prints Go's %#v of its version struct; scripts grep it, so the shape is kept. OpmVersion is the
 * opm release whose behaviour opm-ts matches, with opm-ts's own version as semver build metadata
 * (`v1.73.0+opm-ts.0.1.0`), which version comparisons ignore: a check for opm >= 1.x still passes.
 */
function versionLine(): string {
  const pkg = ownPackage();
  const fields = [
    `OpmVersion:"${MATCHES_OPM}+opm-ts.${pkg.version}"`,
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
