import { appendFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { serve, type ServeOptions } from '../../action/serve.js';
import { isServableReference, serveImage } from '../../action/serve-image.js';
import { OpmError } from '../../errors.js';
import type { LogFields, LogLevel } from '../../util/log.js';
import { ExitCode } from '../exit-code.js';
import type { CliIO } from '../io.js';
import { LineBuffer, logrusLine } from '../logrus.js';
import { withImageSource } from '../registry.js';

export interface ServeFlags {
  port: string;
  cacheDir: string;
  cacheOnly: boolean;
  /** undefined when not given: the use case computes opm's default. */
  cacheEnforceIntegrity?: boolean;
  terminationLog: string;
  debug: boolean;
  pprofAddr: string;
  pprofCaptureProfiles: boolean;
  httpAddr: string;
  /** undefined when not given: the catalog directory's base name. */
  catalogName?: string;
}

/**
 * `opm serve DIR`: logrus lines on stderr, fatal failures as one `level=fatal` line (also appended
 * to the termination log when it can be written) and exit status 1; SIGTERM or SIGINT stop the
 * server gracefully and exit 0. An argument that names nothing on disk and is an image reference
 * with its registry is pulled and served (action/serve-image.ts), with the registry flags render
 * takes.
 */
export async function runServe(io: CliIO, dir: string, flags: ServeFlags, cmd?: Command): Promise<void> {
  const options = (log: ServeOptions['log'], signal: AbortSignal): Omit<ServeOptions, 'configDir'> => ({
    port: flags.port,
    cacheDir: flags.cacheDir,
    cacheOnly: flags.cacheOnly,
    ...(flags.cacheEnforceIntegrity === undefined
      ? {}
      : { cacheEnforceIntegrity: flags.cacheEnforceIntegrity }),
    httpAddr: flags.httpAddr,
    ...(flags.catalogName === undefined ? {} : { catalogName: flags.catalogName }),
    log,
    cwd: io.cwd,
    env: io.env,
    signal,
  });
  if (cmd !== undefined && !existsSync(path.resolve(io.cwd, dir)) && isServableReference(dir)) {
    await withImageSource(cmd, io, (imageSource) =>
      runServer(io, flags, (log, signal) => serveImage({ ...options(log, signal), image: dir, imageSource })),
    );
    return;
  }
  await runServer(io, flags, (log, signal) => serve({ ...options(log, signal), configDir: dir }));
}

/**
 * A server's run on the command line (`serve`, `registry serve`): logrus lines on stderr, a fatal
 * failure as one `level=fatal` line (also appended to the termination log) and exit status 1, a
 * graceful stop on SIGTERM or SIGINT.
 */
export async function runServer(
  io: CliIO,
  flags: { terminationLog: string; debug: boolean },
  start: (
    log: (level: LogLevel, msg: string, fields: LogFields) => void,
    signal: AbortSignal,
  ) => Promise<void>,
  /** Where the server's lines go (`registry serve` logs on stdout, as opm's does). */
  logTo: { write(text: string): unknown } = io.stderr,
): Promise<void> {
  // Call lines are written together once per turn of the event loop (cli/logrus.ts).
  const lines = new LineBuffer(logTo);
  const log = (level: LogLevel, msg: string, fields: LogFields): void => {
    if (level === 'debug' && !flags.debug) return;
    lines.write(logrusLine(level, msg, fields));
  };
  // The server stops gracefully on a signal: running calls finish, then the process exits 0.
  const stop = new AbortController();
  io.takeSignals?.(() => stop.abort());
  try {
    await start(log, stop.signal);
  } catch (err) {
    lines.flush();
    const message = err instanceof Error ? err.message : String(err);
    // How to fix it, when known, as a field of the same line: the message stays opm's text.
    const fields: Record<string, string> = {};
    if (err instanceof OpmError && err.hint !== undefined && err.hint !== '') fields.hint = err.hint;
    const line = logrusLine('fatal', message, fields);
    io.stderr.write(line);
    if (flags.debug && err instanceof Error && err.stack !== undefined) io.stderr.write(`${err.stack}\n`);
    try {
      appendFileSync(flags.terminationLog, line);
    } catch {
      // No termination log where it was asked for (outside Kubernetes): stderr has the line.
    }
    throw new ExitCode(1);
  } finally {
    lines.flush();
  }
}
