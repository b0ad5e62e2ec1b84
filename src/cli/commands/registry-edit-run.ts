import {
  registryDeprecateTruncate,
  registryPrune,
  registryPruneStranded,
  registryRm,
  type RegistryEditResult,
} from '../../action/registry-edit.js';
import { sqliteDeprecationNotice } from '../sqlite-notice.js';
import type { CliIO } from '../io.js';
import { logrusLine } from '../logrus.js';

/** What an edit let pass and what it removed, as opm logs them; `fields` go on the warnings. */
export function reportEdit(io: CliIO, result: RegistryEditResult, fields: Record<string, string> = {}): void {
  for (const w of result.warnings)
    io.stderr.write(logrusLine('warning', 'permissive mode enabled', { ...fields, error: w }));
  if (result.removed.length > 0)
    io.stderr.write(logrusLine('info', 'removed packages', { packages: `[${result.removed.join(' ')}]` }));
}

/** `opm registry rm -d DB -o PKG,...`. */
export function runRegistryRm(
  io: CliIO,
  flags: { database: string; packages: string[]; permissive: boolean },
): void {
  io.stderr.write(sqliteDeprecationNotice(false));
  reportEdit(io, registryRm({ ...flags, cwd: io.cwd }));
}

/** `opm registry prune -d DB -p KEEP,...`. */
export function runRegistryPrune(
  io: CliIO,
  flags: { database: string; packages: string[]; permissive: boolean },
): void {
  io.stderr.write(sqliteDeprecationNotice(false));
  reportEdit(
    io,
    registryPrune({
      database: flags.database,
      keep: flags.packages,
      permissive: flags.permissive,
      cwd: io.cwd,
    }),
  );
}

/** `opm registry prune-stranded -d DB`. */
export function runRegistryPruneStranded(io: CliIO, flags: { database: string }): void {
  io.stderr.write(sqliteDeprecationNotice(false));
  reportEdit(io, registryPruneStranded({ ...flags, cwd: io.cwd }));
}

/** `opm registry deprecatetruncate -d DB -b IMAGE,...`. */
export function runRegistryDeprecateTruncate(
  io: CliIO,
  flags: { database: string; bundleImages: string[]; permissive: boolean; allowPackageRemoval: boolean },
): void {
  io.stderr.write(sqliteDeprecationNotice(false));
  reportEdit(
    io,
    registryDeprecateTruncate({
      database: flags.database,
      images: flags.bundleImages,
      permissive: flags.permissive,
      allowPackageRemoval: flags.allowPackageRemoval,
      cwd: io.cwd,
    }),
  );
}
