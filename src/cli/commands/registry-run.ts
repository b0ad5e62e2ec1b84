import { registryServe } from '../../action/registry-serve.js';
import { SQLITE_DEPRECATION_NOTICE } from '../../sqlite/read.js';
import type { CliIO } from '../io.js';
import { logrusLine } from '../logrus.js';
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

/** `opm registry serve`: opm's deprecation notice, then the server as `opm serve` runs it. */
export async function runRegistryServe(io: CliIO, flags: RegistryServeFlags): Promise<void> {
  io.stderr.write(logrusLine('warning', SQLITE_DEPRECATION_NOTICE, {}));
  await runServer(io, flags, (log, signal) =>
    registryServe({
      database: flags.database,
      port: flags.port,
      log,
      cwd: io.cwd,
      env: io.env,
      signal,
      onWarning: (m) => log('warning', m, {}),
    }),
  );
}
