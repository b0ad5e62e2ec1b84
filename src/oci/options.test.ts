import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { registryOptionsFromEnv } from './options.js';

describe('registryOptionsFromEnv', () => {
  it('takes the cache folder from OLM_CACHE_DIR, else XDG_CACHE_HOME, else HOME', () => {
    const flags = { skipTlsVerify: false, useHttp: true };
    expect(registryOptionsFromEnv(flags, { OLM_CACHE_DIR: '/c', HOME: '/h' }).cacheDir).toBe('/c');
    expect(registryOptionsFromEnv(flags, { XDG_CACHE_HOME: '/x', HOME: '/h' }).cacheDir).toBe('/x/opm-ts');
    expect(registryOptionsFromEnv(flags, { HOME: '/h' }).cacheDir).toBe('/h/.cache/opm-ts');
  });

  it('passes flags through and checks --platform', () => {
    const log = (): void => undefined;
    const o = registryOptionsFromEnv(
      { skipTlsVerify: true, useHttp: false, platform: 'linux/arm64/v8', noCache: true },
      { HOME: '/h' },
      log,
    );
    expect(o).toMatchObject({
      skipTlsVerify: true,
      useHttp: false,
      platform: 'linux/arm64/v8',
      noCache: true,
      log,
    });
    expect(() =>
      registryOptionsFromEnv({ skipTlsVerify: false, useHttp: false, platform: 'arm64' }, {}),
    ).toThrow(UsageError);
    expect(() =>
      registryOptionsFromEnv({ skipTlsVerify: false, useHttp: false, platform: 'linux/amd64/v1/x' }, {}),
    ).toThrow('invalid --platform value');
  });
});
