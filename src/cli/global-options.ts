import type { Command } from 'commander';
import { UsageError } from '../errors.js';

/** Registry-related flags shared by every command that pulls images (opm's persistent flags). */
export interface RegistryFlags {
  skipTlsVerify: boolean;
  useHttp: boolean;
}

/**
 * opm's flag-combination rules (`cmd/opm/internal/util/util.go`): --skip-tls is the deprecated
 * spelling of --use-http and may not be combined with either new flag; --use-http and
 * --skip-tls-verify may not both be set.
 */
export function registryFlags(cmd: Command): RegistryFlags {
  return registryFlagsOf(
    cmd.optsWithGlobals<{ skipTlsVerify?: boolean; useHttp?: boolean; skipTls?: boolean }>(),
  );
}

/** registryFlags over flag values already gathered (a command with flags of these names of its own). */
export function registryFlagsOf(o: {
  skipTlsVerify?: boolean;
  useHttp?: boolean;
  skipTls?: boolean;
}): RegistryFlags {
  const skipTls = o.skipTls === true;
  const skipTlsVerify = o.skipTlsVerify === true;
  const useHttp = o.useHttp === true;
  if (skipTls && useHttp)
    throw new UsageError('invalid flag combination: cannot use --use-http with --skip-tls');
  if (skipTls && skipTlsVerify)
    throw new UsageError('invalid flag combination: cannot use --skip-tls-verify with --skip-tls');
  if (skipTlsVerify && useHttp)
    throw new UsageError('invalid flag combination: --use-http and --skip-tls-verify cannot both be true');
  return { skipTlsVerify, useHttp: useHttp || skipTls };
}

/** Parse `-o` values against a fixed list, with opm's message. */
export function outputFormat<T extends string>(value: string, allowed: readonly T[]): T {
  const found = allowed.find((a) => a === value);
  if (found === undefined) {
    throw new UsageError(`invalid --output value "${value}", expected (${allowed.join('|')})`);
  }
  return found;
}
