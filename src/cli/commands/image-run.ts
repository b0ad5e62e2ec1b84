import type { Command } from 'commander';
import { imageBuild } from '../../action/image-build.js';
import { registryOptionsFromEnv } from '../../oci/options.js';
import { RegistryPusher } from '../../oci/push/pusher.js';
import { escapeLine } from '../escape.js';
import { registryFlags } from '../global-options.js';
import { runOptions, type CliIO } from '../io.js';
import { writeAll } from '../output.js';
import { startProgress } from '../progress.js';

export interface ImageBuildFlags {
  tag: string[];
  baseImage: string;
  label: string[];
  push: boolean;
  ociLayout?: string;
}

/**
 * `opm image build DIR`: the digest on stdout, progress and what was reused on stderr. The global
 * `--platform` picks the base's platforms (default every one; `all`, or a comma-separated list).
 */
export async function runImageBuild(
  io: CliIO,
  dir: string,
  flags: ImageBuildFlags,
  cmd: Command,
): Promise<void> {
  const reg = registryFlags(cmd);
  const extra = cmd.optsWithGlobals<{ platform?: string; cache?: boolean }>();
  const progress = startProgress(cmd, io);
  const say = (line: string): void => void io.stderr.write(`${escapeLine(line)}\n`);
  const pusher = new RegistryPusher({
    ...registryOptionsFromEnv({ ...reg, noCache: extra.cache === false }, io.env, progress.log),
    warn: say,
    ...(io.configRoot !== undefined ? { configRoot: io.configRoot } : {}),
  });
  let result;
  try {
    result = await imageBuild({
      catalogDir: dir,
      tags: flags.tag,
      push: flags.push,
      ...(flags.ociLayout !== undefined ? { ociLayout: flags.ociLayout } : {}),
      baseImage: flags.baseImage,
      labels: flags.label,
      ...(extra.platform !== undefined ? { platforms: [extra.platform] } : {}),
      registry: pusher,
      cwd: io.cwd,
      onProgress: progress.onProgress,
      ...runOptions(io),
    });
  } finally {
    progress.end();
    await pusher.close();
  }
  for (const p of result.pushed)
    say(
      `pushed ${p.ref}@${p.digest} (${p.uploaded} blob${p.uploaded === 1 ? '' : 's'} uploaded, ${p.reused} already there or mounted)`,
    );
  if (result.ociLayout !== undefined)
    say(`wrote OCI layout ${result.ociLayout.dir} (${result.ociLayout.digest})`);
  await writeAll(io.stdout, `${result.digest}\n`);
}
