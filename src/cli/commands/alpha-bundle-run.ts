import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { OpmError, formatPosition } from '../../errors.js';
import { escapeLine } from '../escape.js';
import { errnoText } from '../../go/errno.js';
import { generateBundle, type GenerateBundleOptions } from '../../action/alpha-bundle/generate.js';
import { buildBundle, goStringSlice, NO_BUILDER } from '../../action/alpha-bundle/build.js';
import { registryOptionsFromEnv } from '../../oci/options.js';
import { RegistryPusher } from '../../oci/push/pusher.js';
import { writeAll } from '../output.js';
import { rootCaText, unpackBundle } from '../../action/alpha-bundle/unpack.js';
import { celProblem, validateBundleImage, type LogLine } from '../../action/alpha-bundle/validate.js';
import { checkBundleContent } from '../../authoring/content/bundle-content.js';
import { dependencyFileChecks } from '../../authoring/content/dependency-checks.js';
import { contentProblemText, isError } from '../../authoring/content/problem.js';
import { validationErrorsText } from '../../authoring/bundle-format.js';
import { FailureExitCode } from '../exit-code.js';
import { runOptions, type CliIO } from '../io.js';
import { logrusLine } from '../logrus.js';
import { quietFlag } from '../progress.js';
import { withImageSource } from '../registry.js';
import type { ImageSource } from '../../oci/image-source.js';
import { checkBundleUpgrade, isDirectoryRef } from '../../action/alpha-bundle/upgrade-from.js';
import { registryFlags, registryFlagsOf, type RegistryFlags } from '../global-options.js';

export interface GenerateFlags {
  directory: string;
  package: string;
  channels: string;
  default: string;
  outputDir: string;
  baseImage: string;
}

export interface BuildFlags extends GenerateFlags {
  tag: string;
  imageBuilder: string;
  overwrite: boolean;
  push: boolean;
  ociLayout?: string;
}

export interface UnpackFlags {
  debug: boolean;
  skipTls: boolean;
  skipTlsVerify: boolean;
  useHttp: boolean;
  skipValidation: boolean;
  rootCa: string;
  out: string;
}

export interface ValidateFlags {
  tag: string;
  imageBuilder: string;
  optionalValidators: string;
  upgradeFrom?: string;
}

export type ExtractFlags = Record<string, unknown>;

/** opm's info lines on stderr, in logrus's text format. */
function infoLog(io: CliIO, fields: Record<string, string> = {}): (line: string) => void {
  return (line) => void io.stderr.write(logrusLine('info', line, fields));
}

/**
 * The options generate and build share. opm's info lines are left out with `--quiet`; warnings
 * (a kept bundle.Dockerfile that describes another bundle) are always shown.
 */
function generateOptions(io: CliIO, flags: GenerateFlags, cmd: Command): GenerateBundleOptions {
  return {
    directory: flags.directory,
    outputDir: flags.outputDir,
    packageName: flags.package,
    channels: flags.channels,
    defaultChannel: flags.default,
    baseImage: flags.baseImage,
    cwd: io.cwd,
    log: quietFlag(cmd) ? () => undefined : infoLog(io),
    warn: (line) => void io.stderr.write(logrusLine('warning', line, {})),
    ...runOptions(io),
  };
}

/** `opm alpha bundle generate`: always overwrites, as opm does. */
export async function runBundleGenerate(io: CliIO, flags: GenerateFlags, cmd: Command): Promise<void> {
  await generateBundle({ ...generateOptions(io, flags, cmd), overwrite: true });
}

/**
 * `opm alpha bundle build`: the tool's exit status becomes ours. With `-b none` the image is built
 * here and its digest printed on stdout; the push uses the pulls' credentials, TLS and registries.conf.
 */
export async function runBundleBuild(io: CliIO, flags: BuildFlags, cmd: Command): Promise<void> {
  const pusher =
    flags.imageBuilder === NO_BUILDER && flags.push ? new RegistryPusher(pushOptions(io, cmd)) : undefined;
  let built;
  try {
    built = await buildBundle({
      ...generateOptions(io, flags, cmd),
      overwrite: flags.overwrite,
      tag: flags.tag,
      imageBuilder: flags.imageBuilder,
      push: flags.push,
      ...(flags.ociLayout !== undefined ? { ociLayout: flags.ociLayout } : {}),
      ...(pusher !== undefined ? { registry: pusher } : {}),
      env: io.env,
      stdout: io.stdout,
      stderr: io.stderr,
    });
  } finally {
    await pusher?.close();
  }
  if (built.image !== undefined) {
    const say = quietFlag(cmd) ? (): void => undefined : infoLog(io);
    if (built.image.ociLayout !== undefined) say(`Wrote OCI layout ${built.image.ociLayout.dir}`);
    if (built.image.pushed !== undefined)
      say(`Pushed ${built.image.pushed.ref}@${built.image.pushed.digest}`);
    await writeAll(io.stdout, `${built.image.digest}\n`);
    return;
  }
  if (built.exitCode !== 0) {
    throw new FailureExitCode(
      built.exitCode,
      new OpmError(`Failed to exec ${goStringSlice(built.argv)}: exit status ${built.exitCode}`),
    );
  }
}

/** The push client's options: the global registry flags, as `opm image build` takes them. */
function pushOptions(io: CliIO, cmd: Command): ConstructorParameters<typeof RegistryPusher>[0] {
  const reg = registryFlags(cmd);
  const extra = cmd.optsWithGlobals<{ cache?: boolean }>();
  const warn = (line: string): void => void io.stderr.write(`${escapeLine(line)}\n`);
  return {
    ...registryOptionsFromEnv({ ...reg, noCache: extra.cache === false }, io.env),
    warn,
    ...(io.configRoot !== undefined ? { configRoot: io.configRoot } : {}),
  };
}

/**
 * unpack has --skip-tls-verify, --use-http and -s/--skip-tls of its own, as opm's has; given before
 * the command, the global ones count too.
 */
function unpackRegistryFlags(flags: UnpackFlags, cmd: Command): RegistryFlags {
  const g = cmd.parent?.optsWithGlobals<Partial<UnpackFlags>>() ?? {};
  return registryFlagsOf({
    skipTls: flags.skipTls || g.skipTls === true,
    skipTlsVerify: flags.skipTlsVerify || g.skipTlsVerify === true,
    useHttp: flags.useHttp || g.useHttp === true,
  });
}

/** `opm alpha bundle unpack REF`: silent on success, as opm is. */
export async function runBundleUnpack(
  io: CliIO,
  ref: string,
  flags: UnpackFlags,
  cmd: Command,
): Promise<void> {
  if (flags.skipTls)
    io.stderr.write('Flag --skip-tls has been deprecated, use --use-http and --skip-tls-verify instead\n');
  let rootCaPem: string | undefined;
  if (flags.rootCa !== '') {
    let text: string;
    try {
      text = await readFile(flags.rootCa, 'utf8');
    } catch (err) {
      throw new OpmError(`open ${flags.rootCa}: ${errnoText(err)}`);
    }
    rootCaPem = rootCaText(text, flags.rootCa);
  }
  await withImageSource(
    cmd,
    io,
    (imageSource) =>
      unpackBundle(ref, {
        imageSource,
        out: flags.out,
        skipValidation: flags.skipValidation,
        formatChecks: { metadataChecks: dependencyFileChecks(undefined, celProblem) },
        validateContent: async (manifestsDir) =>
          (await checkBundleContent(manifestsDir, { shownDir: 'manifests' })).problems
            .filter(isError)
            .map(contentProblemText),
        cwd: io.cwd,
        log: infoLog(io, { cmd: 'unpack' }),
        ...runOptions(io),
      }),
    { ...(rootCaPem === undefined ? {} : { rootCaPem }), flags: unpackRegistryFlags(flags, cmd) },
  );
}

const VALIDATE_DEPRECATED =
  'Command "validate" is deprecated, This subcommand is deprecated and will be removed in a future release. Migrate to operator-sdk bundle validate\n';

/**
 * `opm alpha bundle validate`: opm's deprecation line, its log (debug included, as opm forces it)
 * with the container-tool field, and the verdict: `Bundle validation errors: …` as the error.
 */
export async function runBundleValidate(io: CliIO, flags: ValidateFlags, cmd: Command): Promise<void> {
  io.stderr.write(VALIDATE_DEPRECATED);
  const fields = { 'container-tool': flags.imageBuilder };
  const log = (l: LogLine): void => void io.stderr.write(logrusLine(l.level, l.message, fields));
  const upgradeFrom = flags.upgradeFrom;
  const check = async (imageSource?: ImageSource): Promise<string[]> => {
    const verdict = await validateBundleImage(flags.tag, {
      imageBuilder: flags.imageBuilder,
      optionalValidators: flags.optionalValidators,
      env: io.env,
      log,
      ...(imageSource === undefined ? {} : { imageSource }),
      ...(io.signal === undefined ? {} : { signal: io.signal }),
    });
    try {
      if (upgradeFrom !== undefined && verdict.stage !== 'format')
        crdProblems = await upgradeCheck(io, upgradeFrom, flags.tag, verdict.root, imageSource);
    } finally {
      await verdict.release();
    }
    // Beyond opm: after its verdict's log, before its error line; they never change the exit code.
    for (const w of verdict.warnings)
      io.stderr.write(
        escapeLine(
          `warning: ${w.file === undefined ? '' : formatPosition({ file: w.file, line: w.line })}${w.message} [${w.rule}]`,
        ) + '\n',
      );
    return verdict.errors;
  };
  let crdProblems = 0;
  // A registry client for -b none, and for an --upgrade-from image (whatever the builder).
  const needsSource =
    flags.imageBuilder === 'none' ||
    (upgradeFrom !== undefined && !(await isDirectoryRef(upgradeFrom, io.cwd)));
  const errors = needsSource ? await withImageSource(cmd, io, (source) => check(source)) : await check();
  if (errors.length > 0) throw new OpmError(validationErrorsText(errors));
  if (crdProblems > 0)
    throw new OpmError(
      `CRD upgrade from ${upgradeFrom ?? ''} is unsafe: ${crdProblems} problem${crdProblems === 1 ? '' : 's'}`,
    );
}

/**
 * `--upgrade-from`: the CRD upgrade from that bundle to the unpacked image at `root`, each problem
 * an `error: …` line on stderr (after opm's log, before its verdict); how many there are.
 */
async function upgradeCheck(
  io: CliIO,
  from: string,
  to: string,
  root: string,
  imageSource?: ImageSource,
): Promise<number> {
  const findings = await checkBundleUpgrade(from, root, {
    toName: to,
    cwd: io.cwd,
    ...(imageSource === undefined ? {} : { imageSource }),
    ...(io.signal === undefined ? {} : { signal: io.signal }),
  });
  for (const f of findings)
    io.stderr.write(
      escapeLine(
        `error: ${f.file === undefined ? '' : formatPosition({ file: f.file, line: f.line })}${f.message} [${f.rule}]`,
      ) + '\n',
    );
  return findings.length;
}

/** `opm alpha bundle extract`: it writes into a cluster, which opm-ts does not talk to. */
export function runBundleExtract(_io: CliIO, _flags: ExtractFlags): Promise<void> {
  return Promise.reject(
    new OpmError(
      'alpha bundle extract writes a ConfigMap into a Kubernetes cluster; opm-ts does not talk to clusters',
      {
        hint: 'run it with the reference opm (OLM runs it in-cluster in its bundle unpack jobs); `opm alpha bundle unpack` or `opm render <bundle dir>` read a bundle locally',
      },
    ),
  );
}
