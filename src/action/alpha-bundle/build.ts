/**
 * `opm alpha bundle build`: generate's files, then the container tool's build of
 * `bundle.Dockerfile` in the working directory, run as opm runs it (`docker|podman build -f
 * bundle.Dockerfile -t TAG .`, `buildah bud --format=docker -f bundle.Dockerfile -t TAG .`) with its
 * output passed through; or, with the builder `none` (an extension), the image that Dockerfile
 * describes built without an engine and pushed to the tag or written as an OCI layout.
 */
import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { OpmError, UsageError } from '../../errors.js';
import { annotationMap, DOCKERFILE } from '../../authoring/annotations.js';
import { buildBundleImage } from '../../image/bundle-image.js';
import { sourceDateEpoch } from '../../image/layer.js';
import { writeOciLayout } from '../../image/layout.js';
import { parseReference } from '../../oci/reference.js';
import { makeOwnedDir, releaseOwned } from '../../util/owned-temp.js';
import {
  bundleFolderGiven,
  checkGenerateOptions,
  generateBundle,
  type GenerateBundleOptions,
  type GeneratedBundle,
} from './generate.js';
import { expectOptionalBoolean, expectOptionalString, expectString } from '../../util/args.js';

export const IMAGE_BUILDERS = ['docker', 'podman', 'buildah'] as const;
export type ImageBuilder = (typeof IMAGE_BUILDERS)[number];
/** The builder that needs no container engine (`-b none`, an extension). */
export const NO_BUILDER = 'none';

/** Where the tool's output goes (the command line's stdout and stderr). */
export interface OutputSink {
  write(chunk: Uint8Array): unknown;
}

/**
 * What `-b none` pushes with: a `RegistryPusher` (oci/push/pusher.ts), named by what is used of it so
 * that the library's declarations need no Node.js types.
 */
export interface BundlePusher {
  push(ref: string, plan: unknown, options?: { signal?: AbortSignal }): Promise<{ digest: string }>;
}

export interface BuildBundleOptions extends GenerateBundleOptions {
  /** `-t`: the image's tag. */
  tag: string;
  /** `-b`: docker (default), podman, buildah, or `none`: built here, then `push` and/or `ociLayout`. */
  imageBuilder?: string;
  /** With `none`: push the image to `tag`. */
  push?: boolean;
  /** With `none`: write the image as an OCI image layout into this new or empty folder. */
  ociLayout?: string;
  /** With `none` and `push`: the push client (credentials, TLS, proxies, registries.conf of pulls). */
  registry?: BundlePusher;
  /** With `none`: where the layers are written meanwhile (default the system's temporary folder). */
  workDir?: string;
  /** The environment the tool runs in (its PATH finds the tool). */
  env?: Record<string, string | undefined>;
  stdout?: OutputSink;
  stderr?: OutputSink;
}

export interface BuiltBundle extends GeneratedBundle {
  /** The tool's command line, as run; empty with `none`. */
  argv: string[];
  /** With `none`: the image's digest, where it was pushed, and the layout written. */
  image?: {
    digest: string;
    pushed?: { ref: string; digest: string };
    ociLayout?: { dir: string; digest: string };
  };
  /** Its exit status (0: built), or 128 + the signal's number when a signal ended it. */
  exitCode: number;
}

/** The tool's command line for `builder`, as opm forms it; an unknown builder in opm's words. */
export function buildCommand(builder: string, tag: string): string[] {
  switch (builder) {
    case 'docker':
    case 'podman':
      return [builder, 'build', '-f', DOCKERFILE, '-t', tag, '.'];
    case 'buildah':
      return [builder, 'bud', '--format=docker', '-f', DOCKERFILE, '-t', tag, '.'];
    default:
      throw new OpmError(`${builder} is not supported image builder`, {
        hint: `use one of ${IMAGE_BUILDERS.join(', ')}, or ${NO_BUILDER} to build without a container engine`,
      });
  }
}

const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

/** Run the tool; its exit status. A tool that cannot be started is one OpmError. */
function runTool(argv: string[], o: BuildBundleOptions, cwd: string): Promise<number> {
  const [cmd, ...args] = argv as [string, ...string[]];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd,
      // Without an environment of its own the tool inherits this process's, as a child does.
      ...(o.env === undefined ? {} : { env: o.env }),
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(o.signal === undefined ? {} : { signal: o.signal }),
    });
    child.stdout.on('data', (b: Buffer) => o.stdout?.write(b));
    child.stderr.on('data', (b: Buffer) => o.stderr?.write(b));
    child.on('error', (err: NodeJS.ErrnoException) => {
      if (o.signal?.aborted === true) reject(o.signal.reason as Error);
      else if (err.code === 'ENOENT')
        reject(
          new OpmError(`exec: ${JSON.stringify(cmd)}: executable file not found in $PATH`, {
            hint: `install ${cmd}, or choose another tool with --image-builder (${IMAGE_BUILDERS.join(', ')})`,
          }),
        );
      else reject(new OpmError(`exec ${cmd}: ${err.message}`));
    });
    child.on('close', (code, signal) => {
      if (o.signal?.aborted === true) reject(o.signal.reason as Error);
      else resolve(code ?? 128 + (SIGNALS[signal ?? ''] ?? 0));
    });
  });
}

/**
 * Generate the bundle's files, then build its image with the container tool, as `opm alpha bundle
 * build` does (an existing annotations file is kept and checked unless `overwrite`). The tool's
 * output goes to `stdout` and `stderr`; its exit status is returned (`exitCode`), a tool that cannot
 * be started or is not one of docker, podman and buildah rejects with an OpmError.
 *
 * @example
 * const b = await buildBundle({ directory: 'bundle/manifests', tag: 'quay.io/me/foo-bundle:v1', imageBuilder: 'podman' });
 * if (b.exitCode !== 0) throw new Error(`podman exited with ${b.exitCode}`);
 */
export async function buildBundle(o: BuildBundleOptions): Promise<BuiltBundle> {
  checkGenerateOptions(o, 'buildBundle');
  expectString(o.tag, 'buildBundle(options).tag', "the image's tag");
  expectOptionalBoolean(o.push, 'buildBundle(options).push');
  expectOptionalString(o.ociLayout, 'buildBundle(options).ociLayout');
  const builder = o.imageBuilder ?? 'docker';
  // Checked first, so that an unknown tool or a missing destination leaves no files behind.
  if (builder === NO_BUILDER) {
    const bundleDir = await checkNoBuilder(o);
    const generated = await generateBundle({ ...o, overwrite: o.overwrite ?? false });
    if (generated.keptOtherDockerfile)
      o.warn?.(
        `the image is built from the flags, not from ${generated.dockerfile}, which was kept as it was and describes another bundle (pass --overwrite to refresh it)`,
      );
    o.log?.('Building bundle image');
    const image = await buildWithoutEngine(o, bundleDir, generated);
    return { ...generated, argv: [], exitCode: 0, image };
  }
  const argv = buildCommand(builder, o.tag);
  if (o.push === true || o.ociLayout !== undefined)
    throw new UsageError(
      `--push and --oci-layout go with --image-builder ${NO_BUILDER}: ${builder} builds into its own storage`,
      { hint: `push with \`${builder} push ${o.tag}\` afterwards, or build with -b ${NO_BUILDER}` },
    );
  const generated = await generateBundle({ ...o, overwrite: o.overwrite ?? false });
  if (generated.keptOtherDockerfile)
    o.warn?.(
      `${builder} builds from ${generated.dockerfile}, which was kept as it was and is not the one these flags give (pass --overwrite to refresh it)`,
    );
  o.log?.('Building bundle image');
  const exitCode = await runTool(argv, o, path.resolve(o.cwd ?? '.'));
  return { ...generated, argv, exitCode };
}

/**
 * What `none` needs, checked before anything is written: a destination, a tag that can be pushed to,
 * the scratch base, and the nested bundle format (`manifests/` beside `metadata/`, which -u makes
 * of any folder). The bundle folder the image is built from.
 */
async function checkNoBuilder(o: BuildBundleOptions): Promise<string> {
  if (o.push !== true && o.ociLayout === undefined)
    throw new UsageError(
      `--image-builder ${NO_BUILDER} builds the image without a container engine: say where it goes`,
      { hint: 'pass --push (to the -t tag), --oci-layout DIR, or both' },
    );
  const ref = parseReference(o.tag);
  if (o.push === true && ref.digest !== undefined)
    throw new UsageError(`invalid --tag "${o.tag}": a digest cannot be pushed to; name a tag`);
  if (o.push === true && o.registry === undefined)
    throw new TypeError('buildBundle(options).registry: pass the push client (a RegistryPusher) with push');
  const base = o.baseImage ?? 'scratch';
  if (base !== 'scratch' && base !== '')
    throw new UsageError(
      `--image-builder ${NO_BUILDER} builds on scratch only, not on --base-image ${base}`,
      { hint: 'build with docker, podman or buildah for another base' },
    );
  const cwd = path.resolve(o.cwd ?? '.');
  if (o.outputDir !== undefined && o.outputDir !== '') return path.resolve(cwd, o.outputDir);
  const dir = path.resolve(cwd, o.directory);
  const bundleFolder = await bundleFolderGiven(dir, o.directory);
  if (bundleFolder !== undefined) throw bundleFolder;
  if (path.basename(dir) !== 'manifests')
    throw new UsageError(
      `--image-builder ${NO_BUILDER} builds a bundle in the nested format (<bundle>/manifests and <bundle>/metadata); ${o.directory} is not a manifests folder`,
      { hint: 'pass -u/--output-dir DIR to copy the manifests into DIR/manifests and build from there' },
    );
  return path.dirname(dir);
}

/** The image bundle.Dockerfile describes (scratch, its labels, /manifests and /metadata), pushed and/or written. */
async function buildWithoutEngine(
  o: BuildBundleOptions,
  bundleDir: string,
  generated: GeneratedBundle,
): Promise<NonNullable<BuiltBundle['image']>> {
  const signal = o.signal;
  const epoch = sourceDateEpoch(o.env);
  const work = await makeOwnedDir(o.workDir ?? os.tmpdir(), 'opm-bundle-image-');
  try {
    const image = await buildBundleImage({
      bundleDir,
      workDir: work,
      // The Dockerfile's labels: the flags' annotations (a kept annotations.yaml agrees with them).
      labels: Object.fromEntries(annotationMap(generated.annotations)),
      scorecard: false,
      // A registry+v1 bundle is read first (a broken one fails here, not where it is installed).
      parse: generated.annotations.mediaType === 'registry+v1',
      ...(epoch !== undefined ? { epoch } : {}),
      ...(signal !== undefined ? { signal } : {}),
    });
    const out: NonNullable<BuiltBundle['image']> = { digest: image.top.digest };
    if (o.ociLayout !== undefined) {
      const dir = path.resolve(o.cwd ?? '.', o.ociLayout);
      await writeOciLayout(dir, image, parseReference(o.tag).tag, signal);
      out.ociLayout = { dir, digest: image.top.digest };
    }
    if (o.push === true && o.registry !== undefined) {
      const pushed = await o.registry.push(o.tag, image.plan, signal !== undefined ? { signal } : {});
      if (pushed.digest !== image.top.digest)
        throw new OpmError(`pushed ${o.tag} as ${pushed.digest}, not the built ${image.top.digest}`);
      out.pushed = { ref: o.tag, digest: pushed.digest };
    }
    return out;
  } finally {
    await rm(work, { recursive: true, force: true });
    releaseOwned(work);
  }
}

/** Go's `%#v` of a []string, as opm names the command that failed. */
export function goStringSlice(argv: readonly string[]): string {
  return `[]string{${argv.map((a) => JSON.stringify(a)).join(', ')}}`;
}
