import { escapeLine } from './escape.js';
import type { Command } from 'commander';
import type { ImageSource, PulledImage, PullOptions } from '../oci/image-source.js';
import { registryOptionsFromEnv } from '../oci/options.js';
import type { CliIO } from './io.js';
import { registryFlags } from './global-options.js';

interface Closable {
  close?: () => Promise<void>;
}

/**
 * Run `fn` with an image source built from the command's registry flags. The registry client is
 * created (and its modules loaded) only when something is pulled, so rendering directories never
 * touches registry configuration; it is closed afterwards whatever happens.
 */
export async function withImageSource<T>(
  cmd: Command,
  io: CliIO,
  fn: (source: ImageSource) => Promise<T>,
): Promise<T> {
  const flags = registryFlags(cmd);
  const extra = cmd.optsWithGlobals<{ platform?: string; cache?: boolean }>();
  const options = {
    ...registryOptionsFromEnv(
      {
        ...flags,
        ...(extra.platform === undefined ? {} : { platform: extra.platform }),
        noCache: extra.cache === false,
      },
      io.env,
      // Progress only on a terminal; warnings always.
      io.stderrIsTTY ? (line) => io.stderr.write(`${escapeLine(line)}\n`) : undefined,
    ),
    warn: (line: string) => void io.stderr.write(`${escapeLine(line)}\n`),
    ...(io.configRoot !== undefined ? { configRoot: io.configRoot } : {}),
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
    return await fn(source);
  } finally {
    await client?.close?.();
  }
}
