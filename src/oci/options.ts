import { UsageError } from '../errors.js';
import { defaultCacheDir } from '../util/cache-dir.js';
import type { RegistryOptions } from './image-source.js';
import { parsePlatformString } from './manifest.js';

export interface RegistryFlagValues {
  skipTlsVerify: boolean;
  useHttp: boolean;
  /** `--platform os/arch[/variant]`. */
  platform?: string;
  /** `--no-cache`. */
  noCache?: boolean;
}

/**
 * Registry client options from the CLI's flags (already checked for opm's combination rules by
 * `registryFlags`) and the environment. A malformed `--platform` is a usage error.
 */
export function registryOptionsFromEnv(
  flags: RegistryFlagValues,
  env: NodeJS.ProcessEnv,
  log?: (line: string) => void,
): RegistryOptions {
  const platform = flags.platform?.trim();
  if (platform !== undefined && platform !== '' && parsePlatformString(platform) === undefined) {
    throw new UsageError(`invalid --platform value "${flags.platform ?? ''}", expected os/arch[/variant]`);
  }
  return {
    skipTlsVerify: flags.skipTlsVerify,
    useHttp: flags.useHttp,
    ...(platform !== undefined && platform !== '' ? { platform } : {}),
    noCache: flags.noCache === true,
    cacheDir: defaultCacheDir(env),
    env,
    ...(log !== undefined ? { log } : {}),
  };
}
