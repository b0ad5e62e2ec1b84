import { registryServe } from '../../action/registry-serve.js';
import { SQLITE_DEPRECATION_MESSAGE } from '../../sqlite/read.js';
import type { CliIO } from '../io.js';
import { logrusLine, logrusTerminalLine } from '../logrus.js';
import { runServer } from './serve-run.js';

/** The flags of `opm registry serve`. */
export interface RegistryServeFlags {
  database: string;
  port: string;
  terminationLog: string;
  debug: boolean;
  skipMigrate: boolean;
  timeoutSeconds: string;
}

/**
 * `opm registry serve`: opm's deprecation notice, then the server as `opm serve` runs it, its
 * lines on stdout (opm's registry commands log through logrus's standard logger there). The
 * notice has the bytes opm's logrus gives it: on a terminal its coloured four lines, elsewhere one
 * text line with the escape codes and line breaks quoted.
 */
export async function runRegistryServe(io: CliIO, flags: RegistryServeFlags): Promise<void> {
  io.stderr.write(
    io.stderrIsTTY
      ? logrusTerminalLine('warning', SQLITE_DEPRECATION_MESSAGE, process.uptime())
      : logrusLine('warning', SQLITE_DEPRECATION_MESSAGE, {}),
  );
  await runServer(
    io,
    flags,
    (log, signal) =>
      registryServe({
        database: flags.database,
        port: flags.port,
        log,
        cwd: io.cwd,
        env: io.env,
        signal,
      }),
    io.stdout,
  );
}
