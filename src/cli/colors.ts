import { Chalk, type ChalkInstance } from 'chalk';
import type { CliIO } from './io.js';

/**
 * Colours for stderr: only on a terminal, and never with NO_COLOR set (to anything), TERM=dumb or
 * FORCE_COLOR=0. Kept apart from the output helpers so that commands which print no colours (render,
 * version) do not load chalk; main.ts loads this module only to report an error.
 */
export function stderrColors(io: CliIO): ChalkInstance {
  const enabled =
    io.stderrIsTTY && io.env.NO_COLOR === undefined && io.env.TERM !== 'dumb' && io.env.FORCE_COLOR !== '0';
  return new Chalk({ level: enabled ? 1 : 0 });
}
