import type { Command } from 'commander';
import { OpmError } from '../../errors.js';

/** The commands that only answer that opm-ts does not provide them, with that answer. */
const NOT_PROVIDED = new WeakMap<Command, () => OpmError>();

/** Whether `cmd` only answers that opm-ts does not provide it (never offered by completion). */
export function isNotProvided(cmd: Command): boolean {
  return NOT_PROVIDED.has(cmd);
}

/** The answer of such a command (for `opm help serve`, which answers as `opm serve` does). */
export function notProvidedError(cmd: Command): OpmError | undefined {
  return NOT_PROVIDED.get(cmd)?.();
}

/**
 * opm commands that opm-ts does not provide. They are registered so that scripts and Dockerfiles
 * that call them get one clear line saying what to use instead (exit 1), not "unknown command".
 */
export function notProvided(parent: Command, name: string, what: string, instead: string): void {
  // Hidden from help and completion: they are there to answer, not to be offered.
  const cmd = parent
    .command(name, { hidden: true })
    .argument('[args...]')
    .allowUnknownOption(true)
    .helpOption(false)
    .description(`(not provided by opm-ts) ${what}: ${instead}`)
    .action(() => {
      throw answer();
    });
  const answer = (): OpmError =>
    new OpmError(`${[...ancestors(parent), name].join(' ')} is not provided by opm-ts`, { hint: instead });
  NOT_PROVIDED.set(cmd, answer);
}

function ancestors(c: Command): string[] {
  const names: string[] = [];
  for (let p: Command | null = c; p !== null; p = p.parent) names.unshift(p.name());
  return names;
}

/** `index`: the top-level command opm has and opm-ts does not provide (`registry` has `serve`). */
export function registerNotProvided(program: Command): void {
  notProvided(
    program,
    'index',
    'build and edit SQLite index images (deprecated in opm)',
    'keep catalogs as File-Based Catalogs: `opm migrate <index image> <dir>` converts one, then `opm validate` and `opm generate dockerfile` build it',
  );
}
