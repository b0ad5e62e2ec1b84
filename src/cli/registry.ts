import { escapeLine } from './escape.js';
import type { Command } from 'commander';
import type { ImageSource, PullOptions, PulledImage } from '../oci/image-source.js';
import { registryOptionsFromEnv } from '../oci/options.js';
import type { CliIO } from './io.js';
import { registryFlags, type RegistryFlags } from './global-options.js';
import { startProgress } from './progress.js';
import type { ProgressSink } from '../util/progress.js';
import type { RegistryPusher } from '../oci/push/pusher.js';

interface Closable {
  close?: () => Promise<void>;
}

/**
 * Run `fn` with an image source built from the command's registry flags, and the progress sink its
 * use case reports to (shown on stderr as `progress.ts` says). The registry client is created (and
 * its modules loaded) only when something is pulled, so rendering directories never touches
 * registry configuration; it is closed afterwards whatever happens, and the progress display
 * cleared before anything else is said.
 */
export async function withImageSource<T>(
  cmd: Command,
  io: CliIO,
  fn: (source: ImageSource, onProgress: ProgressSink) => Promise<T>,
  /**
   * Settings of the command's own (`alpha bundle unpack --root-ca`), and its registry flags when it
   * has flags of those names itself (which commander's global values would hide).
   */
  more: { rootCaPem?: string; flags?: RegistryFlags } = {},
): Promise<T> {
  const flags = more.flags ?? registryFlags(cmd);
  const progress = startProgress(cmd, io);
  const extra = cmd.optsWithGlobals<{ platform?: string; cache?: boolean }>();
  const options = {
    ...registryOptionsFromEnv(
      {
        ...flags,
        ...(extra.platform === undefined ? {} : { platform: extra.platform }),
        noCache: extra.cache === false,
      },
      io.env,
      // Tried mirrors and retries on a terminal, unless --quiet; warnings always.
      progress.log,
    ),
    onProgress: progress.onProgress,
    warn: (line: string) => void io.stderr.write(`${escapeLine(line)}\n`),
    ...(io.configRoot !== undefined ? { configRoot: io.configRoot } : {}),
    ...(more.rootCaPem !== undefined ? { rootCaPem: more.rootCaPem } : {}),
  };
  let client: (ImageSource & Closable) | undefined;
  const source: ImageSource = {
    async pull(ref: string, pullOptions?: PullOptions): Promise<PulledImage> {
      if (client === undefined) {
        const { createImageSource } = await import('../oci/registry-client.js');
        client ??= createImageSource(options);
      }
      return client.pull(ref, pullOptions);
    },
  };
  try {
    return await fn(source, progress.onProgress);
  } finally {
    progress.end();
    await client?.close?.();
  }
}

/** A registry pusher's settings from the registry flags and the environment; warnings go to stderr. */
export function pusherOptions(
  io: CliIO,
  flags: RegistryFlags,
  noCache = false,
): ConstructorParameters<typeof RegistryPusher>[0] {
  return {
    ...registryOptionsFromEnv({ ...flags, noCache }, io.env),
    warn: (line: string) => void io.stderr.write(`${escapeLine(line)}\n`),
    ...(io.configRoot !== undefined ? { configRoot: io.configRoot } : {}),
  };
}
