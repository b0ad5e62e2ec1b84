import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { imageBase } from '../../action/image-base.js';
import { InternalError } from '../../errors.js';
import { RegistryPusher } from '../../oci/push/pusher.js';
import { escapeLine } from '../escape.js';
import { registryFlags } from '../global-options.js';
import { runOptions, type CliIO } from '../io.js';
import { pusherOptions } from '../registry.js';
import { writeAll } from '../output.js';

export interface ImageBaseFlags {
  grpcHealthProbe: string;
  tag: string[];
  push: boolean;
  ociLayout?: string;
}

/** opm-ts's own package folder: the one above `dist/` holding `bin/opm.js`. */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(path.join(dir, 'bin', 'opm.js')) && existsSync(path.join(dir, 'dist', 'opm.cjs')))
      return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new InternalError('opm-ts package folder not found above its code');
    dir = parent;
  }
}

/** `opm image base`: the digest on stdout, what was pushed or written and the size on stderr. */
export async function runImageBase(io: CliIO, flags: ImageBaseFlags, cmd: Command): Promise<void> {
  const say = (line: string): void => void io.stderr.write(`${escapeLine(line)}\n`);
  const pusher = new RegistryPusher(pusherOptions(io, registryFlags(cmd)));
  let result;
  try {
    result = await imageBase({
      healthProbe: flags.grpcHealthProbe,
      node: process.execPath,
      opmRoot: packageRoot(),
      tags: flags.tag,
      push: flags.push,
      ...(flags.ociLayout !== undefined ? { ociLayout: flags.ociLayout } : {}),
      registry: pusher,
      cwd: io.cwd,
      ...runOptions(io),
    });
  } finally {
    await pusher.close();
  }
  for (const p of result.pushed) say(`pushed ${p.ref}@${p.digest}`);
  if (result.ociLayout !== undefined) say(`wrote OCI layout ${result.ociLayout}`);
  say(`compressed size ${(result.size / 1048576).toFixed(1)} MiB`);
  await writeAll(io.stdout, `${result.digest}\n`);
}
