import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { FailureExitCode } from '../exit-code.js';
import { sqliteDeprecationNotice } from '../sqlite-notice.js';
import type { CliIO } from '../io.js';
import { logrusLine } from '../logrus.js';
import { registryFlagsOf } from '../global-options.js';
import { withImageSource } from '../registry.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The flags of `opm registry add`. */
export interface RegistryAddFlags {
  database: string;
  bundleImages: string[];
  permissive: boolean;
  skipTls: boolean;
  skipTlsVerify: boolean;
  useHttp: boolean;
  caFile: string;
  mode: string;
  containerTool: string;
  overwriteLatest: boolean;
  enableAlpha: boolean;
  debug: boolean;
}

/** `opm registry add`: the bundles added to the database, with opm's log lines on stderr. */
export async function runRegistryAdd(io: CliIO, flags: RegistryAddFlags, cmd: Command): Promise<void> {
  const { parseMode, registryAdd } = await import('../../action/registry-add/registry-add.js');
  const mode = parseMode(flags.mode);
  // The program's own --use-http / --skip-tls-verify take the value when given before the verb.
  const g = cmd.optsWithGlobals<{ skipTls?: boolean; skipTlsVerify?: boolean; useHttp?: boolean }>();
  const reg = registryFlagsOf({
    skipTls: flags.skipTls || g.skipTls === true,
    skipTlsVerify: flags.skipTlsVerify || g.skipTlsVerify === true,
    useHttp: flags.useHttp || g.useHttp === true,
  });
  if (flags.caFile !== '') {
    if (reg.skipTlsVerify) throw new UsageError('--skip-tls-verify must be false when --ca-file is set');
    if (!['none', ''].includes(flags.containerTool))
      throw new UsageError(
        `--ca-file cannot be set with --container-tool=${flags.containerTool}; certificates must be configured specifically for ${flags.containerTool}`,
      );
  }
  const fields = { bundles: `[${flags.bundleImages.join(' ')}]` };
  io.stderr.write(sqliteDeprecationNotice(false));
  if (reg.skipTlsVerify)
    io.stderr.write(
      logrusLine(
        'warning',
        '--skip-tls-verify flag is set: this mode is insecure and meant for development purposes only.',
        fields,
      ),
    );
  if (reg.useHttp)
    io.stderr.write(
      logrusLine(
        'warning',
        '--use-http flag is set: this mode is insecure and meant for development purposes only.',
        fields,
      ),
    );
  io.stderr.write(logrusLine('info', 'adding to the registry', fields));
  const rootCaPem =
    flags.caFile === '' ? undefined : readFileSync(path.resolve(io.cwd, flags.caFile), 'utf8');
  const result = await withImageSource(
    cmd,
    io,
    (imageSource) =>
      registryAdd({
        database: path.resolve(io.cwd, flags.database),
        bundles: flags.bundleImages,
        mode,
        permissive: flags.permissive,
        overwriteLatest: flags.overwriteLatest,
        enableAlpha: flags.enableAlpha,
        imageSource,
      }),
    { flags: reg, ...(rootCaPem === undefined ? {} : { rootCaPem }) },
  ).catch(withAddExitCode);
  warnPermissive(io, fields, result.permissiveError);
}

/** An add's failure with the exit code opm gives it: 2 or 3 when the bundle is already there. */
export async function withAddExitCode(err: unknown): Promise<never> {
  const { RegistryAddError } = await import('../../action/registry-add/registry-add.js');
  if (err instanceof RegistryAddError && err.opmExitCode !== 1)
    throw new FailureExitCode(err.opmExitCode, err);
  throw err;
}

/** opm's warning when --permissive let an add go on past a load error. */
export function warnPermissive(io: CliIO, fields: Record<string, string>, error: string | undefined): void {
  if (error !== undefined)
    io.stderr.write(logrusLine('warning', 'permissive mode enabled', { ...fields, error }));
}
