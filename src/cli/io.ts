import type { Writable } from 'node:stream';
import type { WriteStream } from 'node:tty';
import { standardOutput } from './output.js';
import { TerminalStderr } from './terminal-stderr.js';

/** What a command may touch of the process. Tests pass their own. */
export interface CliIO {
  stdout: Writable;
  stderr: Writable;
  stdin: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Whether stderr is a terminal and colours/progress may be shown there. */
  stderrIsTTY: boolean;
  /**
   * Whether progress of long work is shown on stderr (default: yes, unless `--quiet`). Tests that
   * compare stderr whole turn it off: whether work takes over a second is not theirs to decide.
   */
  progress?: boolean;
  /**
   * Prefix for system-wide configuration paths (/etc/containers/registries.conf…); default `/`.
   * Tests point it at an empty folder so the machine's configuration stays out of them.
   */
  configRoot?: string;
  /** Fires when the run is to stop (SIGINT, SIGTERM, SIGHUP): the running use case is aborted. */
  signal?: AbortSignal;
  /**
   * For a command that stops on its own when told (serve's graceful stop): from this call on, the
   * first SIGINT/SIGTERM/SIGHUP calls `onStop` instead of aborting the command, and the exit
   * status is the command's. A second signal still ends the process at once.
   */
  takeSignals?(onStop: () => void): void;
}

/**
 * What every use case takes from the process besides its inputs: the environment (OPM_THREADS) and
 * the signal that stops it. Below cli/ nothing reads `process`.
 */
export function runOptions(io: CliIO): { env: NodeJS.ProcessEnv; signal?: AbortSignal } {
  return io.signal === undefined ? { env: io.env } : { env: io.env, signal: io.signal };
}

export function processIO(signal?: AbortSignal, takeSignals?: (onStop: () => void) => void): CliIO {
  return {
    ...(signal === undefined ? {} : { signal }),
    ...(takeSignals === undefined ? {} : { takeSignals }),
    // Written whole even on a file filling up (see standardOutput).
    stdout: standardOutput(),
    // On a terminal, shared with the progress display (terminal-stderr.ts).
    stderr: process.stderr.isTTY ? new TerminalStderr(process.stderr as WriteStream) : process.stderr,
    // A getter: touching process.stdin sets up a stream, which only some commands need.
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    cwd: process.cwd(),
    stderrIsTTY: process.stderr.isTTY === true,
  };
}
