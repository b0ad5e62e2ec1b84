import { Chalk, type ChalkInstance } from 'chalk';
import type { CliIO } from './io.js';

/**
 * Whether stderr gets colours: FORCE_COLOR (set, and not `0` or `false`) forces them, even on a pipe,
 * as CI logs want; otherwise only on a terminal, and not with NO_COLOR set to a non-empty value
 * (no-color.org), TERM=dumb or FORCE_COLOR=0.
 */
function colorsEnabled(io: CliIO, isTTY: boolean = io.stderrIsTTY): boolean {
  const force = io.env.FORCE_COLOR;
  if (force !== undefined && force !== '0' && force !== 'false') return true;
  const noColor = io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '';
  return isTTY && !noColor && io.env.TERM !== 'dumb' && force === undefined;
}

/**
 * Colours for stderr (see colorsEnabled). Kept apart from the output helpers so that commands which
 * print no colours (render, version) do not load chalk; main.ts loads this module only to report an
 * error.
 */
export function stderrColors(io: CliIO): ChalkInstance {
  return new Chalk({ level: colorsEnabled(io) ? 1 : 0 });
}

/** Colours for human output on stdout (`diff`'s text), by the same rules with stdout's terminal. */
export function stdoutColors(io: CliIO): ChalkInstance {
  const tty = (io.stdout as { isTTY?: unknown }).isTTY === true;
  return new Chalk({ level: colorsEnabled(io, tty) ? 1 : 0 });
}
