import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { OpmError, UsageError } from '../../errors.js';
import { FailureExitCode } from '../exit-code.js';
import { SQLITE_DEPRECATION_NOTICE } from '../../sqlite/read.js';
import { registryOptionsFromEnv } from '../../oci/options.js';
import { runOptions, type CliIO } from '../io.js';
import { logrusLine } from '../logrus.js';
import { registryFlagsOf } from '../global-options.js';
import { withImageSource } from '../registry.js';
import { escapeLine } from '../escape.js';

/** The flags of `opm index add`. */
export interface IndexAddFlags {
  debug: boolean;
  generate: boolean;
  outDockerfile: string;
  fromIndex: string;
  bundles: string[];
  binaryImage: string;
  containerTool: string;
  buildTool: string;
  pullTool: string;
  tag: string;
  permissive: boolean;
  mode: string;
  push: boolean;
  ociLayout?: string;
  overwriteLatest: boolean;
  enableAlpha: boolean;
}

/** opm's pull and build tools from --container-tool, --pull-tool and --build-tool. */
export function containerTools(f: Pick<IndexAddFlags, 'containerTool' | 'buildTool' | 'pullTool'>): {
  pull: string;
  build: string;
} {
  if (f.buildTool === 'none') throw new UsageError('none is not a valid container-tool for index add');
  if (f.containerTool !== '') {
    if (f.pullTool === '' && f.buildTool === '') return { pull: f.containerTool, build: f.containerTool };
    throw new UsageError('container-tool cannot be set alongside pull-tool or build-tool');
  }
  return {
    pull: f.pullTool === '' ? 'none' : f.pullTool,
    build: f.buildTool === '' ? 'podman' : f.buildTool,
  };
}

/** `opm index add`. */
export async function runIndexAdd(io: CliIO, flags: IndexAddFlags, cmd: Command): Promise<void> {
  const { parseMode } = await import('../../action/registry-add/registry-add.js');
  const { indexAddDatabase, indexDockerfile, buildArgv, DEFAULT_DOCKERFILE } =
    await import('../../action/index-add.js');
  const mode = parseMode(flags.mode);
  // The program's own --use-http / --skip-tls-verify take the value when given before the verb.
  const g = cmd.optsWithGlobals<{ skipTls?: boolean; skipTlsVerify?: boolean; useHttp?: boolean }>();
  const reg = registryFlagsOf({
    skipTls: g.skipTls === true,
    skipTlsVerify: g.skipTlsVerify === true,
    useHttp: g.useHttp === true,
  });
  const tools = containerTools(flags);
  const build = tools.build === 'docker' || tools.build === 'podman' ? tools.build : 'none';
  if (flags.overwriteLatest)
    throw new OpmError('index add --overwrite-latest is not provided by opm-ts', {
      hint: 'remove the old head with `opm index rm` of opm v1.73, or keep the catalog as a File-Based Catalog',
    });
  if (!flags.generate && build === 'none' && !flags.push && flags.ociLayout === undefined)
    throw new UsageError(
      'with --container-tool none opm-ts builds the image itself: say where it goes, --push (to --tag), --oci-layout DIR, or both',
    );
  const fields = { bundles: `[${flags.bundles.join(' ')}]` };
  io.stderr.write(logrusLine('warning', SQLITE_DEPRECATION_NOTICE, {}));
  io.stderr.write(logrusLine('info', 'building the index', fields));

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
    const result = await withImageSource(
      cmd,
      io,
      (imageSource) =>
        indexAddDatabase({
          bundles: flags.bundles,
          fromIndex: flags.fromIndex,
          mode,
          permissive: flags.permissive,
          imageSource,
          buildDir,
        }),
      { flags: reg },
    ).catch(async (err: unknown) => {
      const { RegistryAddError } = await import('../../action/registry-add/registry-add.js');
      // opm exits 2 or 3 when the bundle is already there.
      if (err instanceof RegistryAddError && err.opmExitCode !== 1)
        throw new FailureExitCode(err.opmExitCode, err);
      throw err;
    });
    if (result.permissiveError !== undefined)
      io.stderr.write(
        logrusLine('warning', 'permissive mode enabled', { ...fields, error: result.permissiveError }),
      );
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
    const pusher = new RegistryPusher({
      ...registryOptionsFromEnv({ ...reg, noCache: false }, io.env),
      warn: say,
      ...(io.configRoot !== undefined ? { configRoot: io.configRoot } : {}),
    });
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
