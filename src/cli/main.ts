import { setMaxListeners } from 'node:events';
import { CommanderError } from 'commander';
import { InternalError, OpmError, UsageError, formatPosition } from '../errors.js';
import { processIO, type CliIO } from './io.js';
import { STDOUT_PATH } from './write-fd.js';
import { createProgram } from './program.js';
import { pflagArgs } from './pflag.js';
import { BROKEN_PIPE_STATUS, ExitCode, FailureExitCode } from './exit-code.js';
import { errnoCode, errnoText } from '../go/errno.js';
import { escapeLine } from './escape.js';
import { removeOwnedNow } from '../util/owned-temp.js';

/**
 * Run opm with `argv` (without node and script) and return the exit code. All errors end here:
 * OpmError → one line on stderr (exit 1, or 2 for usage errors); anything else is a bug and is
 * printed with its stack.
 */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  const debug = argv.includes('--debug') || io.env.OPM_DEBUG === '1';
  const program = createProgram(io, argv);
  try {
    await program.parseAsync(pflagArgs(program, argv), { from: 'user' });
    return 0;
  } catch (err) {
    return reportError(err, io, debug);
  }
}

function isBrokenPipe(err: unknown): boolean {
  return errnoCode(err) === 'EPIPE';
}

/**
 * A command-line parser's message as one line: its suggestion (`(Did you mean --push?)` on a line
 * of its own) written as the rest of our hints are, else a pointer to the help.
 */
export function usageText(message: string): string {
  const text = message.replace(/^error: /, '');
  const meant = /\n\(Did you mean (.+)\?\)$/.exec(text);
  if (meant !== null) return `${text.slice(0, meant.index).replace(/\n/g, ' ')} (did you mean ${meant[1]}?)`;
  return `${text.replace(/\n/g, ' ')} (see 'opm --help')`;
}

async function reportError(err: unknown, io: CliIO, debug: boolean): Promise<number> {
  // The reader went away (`opm render … | head`): nothing to report, stop quietly.
  if (isBrokenPipe(err)) return BROKEN_PIPE_STATUS;
  if (err instanceof FailureExitCode) {
    const code = await reportError(err.failure, io, debug);
    return code === 1 ? err.code : code;
  }
  // --help and --version exit through here with code 0.
  if (
    err instanceof CommanderError &&
    (err.exitCode === 0 || err.code === 'commander.helpDisplayed' || err.code === 'commander.help')
  )
    return 0;
  if (err instanceof ExitCode) return err.code;
  // Colours (chalk) are loaded only when there is an error to colour.
  const { stderrColors } = await import('./colors.js');
  const c = stderrColors(io);
  if (err instanceof CommanderError) {
    io.stderr.write(`${c.red('error:')} ${escapeLine(usageText(err.message))}\n`);
    return 2;
  }
  if (err instanceof RangeError && /Invalid string length|allocation failed/.test(err.message)) {
    // A value too large for one string or buffer (YAML aliases repeated many times can do this).
    io.stderr.write(
      `${c.red('error:')} the output is too large to be written (${err.message}); a YAML alias repeated many times expands like this\n`,
    );
    return 1;
  }
  const write = writeFailure(err);
  if (write !== undefined) {
    io.stderr.write(`${c.red('error:')} ${write}\n`);
    if (debug) printCauses(err as Error, io);
    return 1;
  }
  if (err instanceof OpmError) {
    const hint = err.hint ? ` (${err.hint})` : '';
    io.stderr.write(`${c.red('error:')} ${escapeLine(`${formatPosition(err.at)}${err.message}${hint}`)}\n`);
    if (debug) printCauses(err, io);
    return err instanceof UsageError ? 2 : err.exitCode;
  }
  const label = err instanceof InternalError ? 'internal error' : 'unexpected error';
  const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
  io.stderr.write(`${c.red(`${label}:`)} ${text}\nThis is a bug in opm-ts; please report it.\n`);
  return 70;
}

function printCauses(err: Error, io: CliIO): void {
  let e: unknown = err;
  while (e instanceof Error) {
    io.stderr.write(`${e.stack ?? e.message}\n`);
    e = e.cause;
  }
}

/**
 * A write that failed (a full disk, a closed or bad descriptor, a read-only file system): one line
 * naming what could not be written, as opm does (`write /dev/stdout: no space left on device`), not
 * a stack trace. Writes to files are reported where they happen, with the file's name (OpmError);
 * a system error of a write that gets here is one of standard output's. Errors of other system
 * calls are bugs or are reported where they happen.
 */
function writeFailure(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null || !('syscall' in err) || err.syscall !== 'write')
    return undefined;
  const name = 'path' in err && typeof err.path === 'string' ? err.path : STDOUT_PATH;
  return `write ${name}: ${errnoText(err)}`;
}

/** One line for a failed write to stdout that no command reported; the exit code it takes. */
function reportStdoutFailure(err: unknown): number {
  if (isBrokenPipe(err)) return BROKEN_PIPE_STATUS;
  process.stderr.write(`error: ${writeFailure(err) ?? `write ${STDOUT_PATH}: ${errnoText(err)}`}\n`);
  return 1;
}

/**
 * A failed write to standard output after part of the output was written by the launcher's render
 * of bundle directories (launch.ts), reported as a command's own failed write is: the exit code.
 */
export function reportOutputFailure(err: unknown): Promise<number> {
  return reportError(err, processIO(), false);
}

/** The process entry (bin/opm.js). Sets the exit code and lets pending output drain. */
export async function main(): Promise<void> {
  // Stopped by a signal: the running command is aborted (it stops at its next check, terminates its
  // worker threads and removes what it was writing), the temporary trees this run made (an unpacked
  // image, a staged output) are removed, and the process ends as one killed by that signal would
  // (128 + its number). A second signal, or a command still running STOP_GRACE_MS later, ends it at
  // once.
  const controller = new AbortController();
  // One signal for the whole run, listened to by every request of every concurrent pull.
  setMaxListeners(0, controller.signal);
  let onStop: (() => void) | undefined;
  let stopping = false;
  const io = processIO(controller.signal, (f) => (onStop = f));
  // A failed write to stdout is also an 'error' of the stream, which must be listened to. A write
  // the command waits for fails the command, which reports it with the command's exit code (diff's
  // is 2); a write nobody waits for (help text) is reported here once the command has returned, or
  // at once when it fails after that. The reader going away (`| head`) ends the run quietly at once.
  let running = true;
  let unreported: unknown;
  const onStdoutError = (err: unknown): void => {
    if (isBrokenPipe(err)) process.exit(BROKEN_PIPE_STATUS);
    if (running) unreported ??= err;
    else process.exit(reportStdoutFailure(err));
  };
  if (io.stdout !== process.stdout) io.stdout.on('error', onStdoutError);
  else process.stdout.on('error', onStdoutError);
  const stop = (status: number): never => {
    removeOwnedNow();
    process.exit(status);
  };
  for (const [signal, status] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const) {
    process.on(signal, () => {
      if (onStop !== undefined) {
        // The command stops itself (serve): no grace period, its own exit status.
        if (stopping) stop(status);
        stopping = true;
        onStop();
        return;
      }
      if (controller.signal.aborted) stop(status);
      controller.abort(new ExitCode(status));
      setTimeout(() => stop(status), STOP_GRACE_MS).unref();
    });
  }
  const code = await runCli(process.argv.slice(2), io);
  running = false;
  const reason: unknown = controller.signal.reason;
  // Aborted, even if the command had finished its work: the exit status says it was stopped.
  if (reason instanceof ExitCode) stop(reason.code);
  process.exitCode = code === 0 && unreported !== undefined ? reportStdoutFailure(unreported) : code;
}

/** How long a command stopped by a signal has to stop and clean up before the process ends anyway. */
const STOP_GRACE_MS = 2000;
