import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { OpmError, UsageError } from '../../errors.js';
import type { ImageSource } from '../../oci/image-source.js';
import { sqliteDeprecationNotice } from '../sqlite-notice.js';
import { runOptions, type CliIO } from '../io.js';
import { logrusLine } from '../logrus.js';
import { registryFlags } from '../global-options.js';
import { pusherOptions, withImageSource } from '../registry.js';
import { escapeLine } from '../escape.js';

/** The flags every `opm index` verb that makes an image shares. */
export interface IndexBuildFlags {
  generate: boolean;
  outDockerfile: string;
  fromIndex: string;
  binaryImage: string;
  containerTool: string;
  buildTool: string;
  pullTool: string;
  tag: string;
  push: boolean;
  ociLayout?: string;
}

/** opm's pull and build tools from --container-tool, --pull-tool and --build-tool. */
export function containerTools(
  f: Pick<IndexBuildFlags, 'containerTool' | 'buildTool' | 'pullTool'>,
  verb = 'add',
): {
  pull: string;
  build: string;
} {
  if (f.buildTool === 'none') throw new UsageError(`none is not a valid container-tool for index ${verb}`);
  if (f.containerTool !== '') {
    if (f.pullTool === '' && f.buildTool === '') return { pull: f.containerTool, build: f.containerTool };
    throw new UsageError('container-tool cannot be set alongside pull-tool or build-tool');
  }
  return {
    pull: f.pullTool === '' ? 'none' : f.pullTool,
    build: f.buildTool === '' ? 'podman' : f.buildTool,
  };
}

/**
 * An index image from a database that `makeDatabase` writes at `<buildDir>/database/index.db`,
 * as opm v1.73 makes it: `--generate` leaves the database and the Dockerfile in the working
 * folder; docker or podman build it with opm's command line from a temporary folder; with
 * `--container-tool none` it is built here on the binary image and pushed or written as a layout.
 */
export async function buildIndex(
  io: CliIO,
  cmd: Command,
  verb: string,
  flags: IndexBuildFlags,
  /** What the verb says it does (logged at the start), and the fields of its log lines. */
  begin: { message: string; fields: Record<string, string> },
  makeDatabase: (imageSource: ImageSource, buildDir: string) => Promise<void>,
): Promise<void> {
  const { indexDockerfile, buildArgv, DEFAULT_DOCKERFILE } = await import('../../action/index-add.js');
  const reg = registryFlags(cmd);
  const tools = containerTools(flags, verb);
  const build = tools.build === 'docker' || tools.build === 'podman' ? tools.build : 'none';
  if (!flags.generate && build === 'none' && !flags.push && flags.ociLayout === undefined)
    throw new UsageError(
      'with --container-tool none opm-ts builds the image itself: say where it goes, --push (to --tag), --oci-layout DIR, or both',
    );
  const { fields } = begin;
  io.stderr.write(sqliteDeprecationNotice(false));
  io.stderr.write(logrusLine('info', begin.message, fields));

  // --generate: the context is the working folder; otherwise a temporary one beside it, as opm's.
  const buildDir = flags.generate ? io.cwd : mkdtempSync(path.join(io.cwd, 'index_build_tmp'));
  const relDir = path.relative(io.cwd, buildDir);
  const dockerfile =
    flags.outDockerfile !== ''
      ? flags.outDockerfile
      : flags.generate || build === 'none'
        ? DEFAULT_DOCKERFILE
        : // A temporary Dockerfile in the working folder, named as opm names it.
          `./${DEFAULT_DOCKERFILE}${randomInt(1e9, 4e9)}`;
  try {
    await withImageSource(cmd, io, (imageSource) => makeDatabase(imageSource, buildDir), { flags: reg });
    const text = indexDockerfile(
      flags.binaryImage,
      path.posix.join(relDir === '' ? '' : relDir, 'database', 'index.db'),
    );
    if (flags.generate || build !== 'none') {
      io.stderr.write(logrusLine('info', 'Generating dockerfile', fields));
      io.stderr.write(logrusLine('info', `writing dockerfile: ${dockerfile}`, fields));
      writeFileSync(path.resolve(io.cwd, dockerfile), text);
    }
    if (flags.generate) return;
    if (build !== 'none') {
      const argv = buildArgv(build, dockerfile, flags.tag);
      io.stderr.write(logrusLine('info', `running ${build} build`, fields));
      io.stderr.write(logrusLine('info', `[${argv.join(' ')}]`, fields));
      const r = spawnSync(argv[0] as string, argv.slice(1), { cwd: io.cwd, env: io.env, encoding: 'utf8' });
      if (r.error !== undefined || r.status !== 0) {
        const out = [r.stdout, r.stderr].join('');
        throw new OpmError(
          `error building image: ${out}. ${r.error?.message ?? `exit status ${String(r.status)}`}`,
        );
      }
      return;
    }
    const { buildIndexImage } = await import('../../action/index-image.js');
    const { RegistryPusher } = await import('../../oci/push/pusher.js');
    const say = (line: string): void => void io.stderr.write(`${escapeLine(line)}\n`);
    const pusher = new RegistryPusher(pusherOptions(io, reg));
    try {
      const built = await buildIndexImage({
        buildDir,
        binaryImage: flags.binaryImage,
        tag: flags.tag,
        push: flags.push,
        ...(flags.ociLayout !== undefined ? { ociLayout: flags.ociLayout } : {}),
        registry: pusher,
        cwd: io.cwd,
        ...runOptions(io),
      });
      if (built.pushed !== undefined) say(`pushed ${built.pushed.ref}@${built.pushed.digest}`);
      io.stdout.write(`${built.digest}\n`);
    } finally {
      await pusher.close();
    }
  } finally {
    if (!flags.generate) {
      rmSync(buildDir, { recursive: true, force: true });
      if (flags.outDockerfile === '' && build !== 'none')
        rmSync(path.resolve(io.cwd, dockerfile), { force: true });
    }
  }
}
