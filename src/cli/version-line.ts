/**
 * The line `opm version` prints, apart from the command line: the launcher (launch.ts) prints it for
 * a bare `opm version` without loading the bundled command line, which is most of that command's time.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { goArch } from '../go/arch.js';

/** opm-ts's own package.json, found upwards from `dir`. */
export function ownPackageFrom(dir: string): { version: string } {
  for (let d = dir; ;) {
    const file = path.join(d, 'package.json');
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
    const up = path.dirname(d);
    if (up === d) return { version: '0.0.0' };
    d = up;
  }
}

/** The opm release whose behaviour opm-ts matches (commands, flags, output). */
const MATCHES_OPM = 'v1.73.0';

/**
 * opm prints Go's %#v of its version struct; scripts grep it, so the shape is kept. OpmVersion is the
 * opm release whose behaviour opm-ts matches, with opm-ts's own version as semver build metadata
 * (`v1.73.0+opm-ts.0.1.0`), which version comparisons ignore: a check for opm >= 1.x still passes.
 */
export function versionLine(ownVersion: string): string {
  const fields = [
    `OpmVersion:"${MATCHES_OPM}+opm-ts.${ownVersion}"`,
    `GitCommit:""`,
    `BuildDate:""`,
    `GoOs:"${process.platform}"`,
    `GoArch:"${goArch()}"`,
  ];
  return `Version: version.Version{${fields.join(', ')}}\n`;
}
