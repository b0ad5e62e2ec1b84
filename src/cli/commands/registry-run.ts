import { parseTimeoutSeconds, registryServe } from '../../action/registry-serve.js';
import type { CliIO } from '../io.js';
import { sqliteDeprecationNotice } from '../sqlite-notice.js';
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
 * lines on stdout (opm's registry commands log through logrus's standard logger there).
 */
export async function runRegistryServe(io: CliIO, flags: RegistryServeFlags): Promise<void> {
  io.stderr.write(sqliteDeprecationNotice(io.stderrIsTTY));
  // A bad --timeout-seconds is refused before anything listens (opm says so once listening).
  parseTimeoutSeconds(flags.timeoutSeconds);
  await runServer(
    io,
    flags,
    (log, signal) =>
      registryServe({
        database: flags.database,
        port: flags.port,
        timeoutSeconds: flags.timeoutSeconds,
        log,
        cwd: io.cwd,
        env: io.env,
        signal,
      }),
    io.stdout,
  );
}
