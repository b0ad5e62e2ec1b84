// The scenarios of testdata/alpha-bundle-validate/: each a bundle tree (`bundle/`), optional extra
// flags (`args`), and the expected verdict of `opm alpha bundle validate` (`expected.txt`: the log
// lines from the unpacking on, without their time, then the error line or `ok`).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const SCENARIOS_DIR = path.resolve('testdata/alpha-bundle-validate');

export interface Scenario {
  name: string;
  bundle: string;
  args: string[];
  expectedFile: string;
}

export function scenarios(): Scenario[] {
  return readdirSync(SCENARIOS_DIR)
    .sort()
    .map((name) => {
      const dir = path.join(SCENARIOS_DIR, name);
      const argsFile = path.join(dir, 'args');
      return {
        name,
        bundle: path.join(dir, 'bundle'),
        args: existsSync(argsFile) ? readFileSync(argsFile, 'utf8').trim().split(/\s+/) : [],
        expectedFile: path.join(dir, 'expected.txt'),
      };
    });
}

/**
 * The verdict part of a run's stderr: log lines from `Unpacked image layers` on (their time left
 * out; the engine's and the pull's own lines before it differ by design), then the error line (its
 * `Error:`/`error:` label and cobra's usage text left out) or `ok`. The folder the bundle was
 * unpacked into (opm's temporary folder) is left out, so a path in it reads as in the image.
 */
export function verdictText(stderr: string, code: number, unpackedInto: RegExp[]): string {
  let lines = stderr.split('\n').map((l) => l.replace(/^time="[^"]*" /, ''));
  const start = lines.findIndex((l) => l.includes('msg="Unpacked image layers'));
  lines = start === -1 ? [] : lines.slice(start);
  // Ours: the warnings of the one-bundle rules (beyond opm) come after opm's log.
  const logs = lines.filter((l) => l.startsWith('level=') || l.startsWith('warning: '));
  // opm's error runs over several lines when a message holds a newline (ours escapes it as \n).
  const all = stderr.split('\n');
  const at = all.findIndex((l) => /^(?:Error|error): /.test(l));
  let end = at + 1;
  while (at !== -1 && end < all.length && !all[end]?.startsWith('Usage:') && all[end] !== '') end++;
  const error =
    at === -1
      ? ''
      : all
          .slice(at, end)
          .join('\\n')
          .replace(/^(?:Error|error): /, '');
  let text = [...logs, code === 0 ? 'ok' : `exit ${code}: ${error}`].join('\n');
  for (const re of unpackedInto) text = text.replace(re, '');
  return `${text}\n`;
}

/** A verdict without our warnings (beyond opm), to compare with the reference's. */
export function withoutWarnings(verdict: string): string {
  return verdict
    .split('\n')
    .filter((l) => !l.startsWith('warning: '))
    .join('\n');
}
