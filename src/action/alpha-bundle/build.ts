/**
 * `opm alpha bundle build`: generate's files, then the container tool's build of
 * `bundle.Dockerfile` in the working directory, run as opm runs it (`docker|podman build -f
 * bundle.Dockerfile -t TAG .`, `buildah bud --format=docker -f bundle.Dockerfile -t TAG .`) with its
 * output passed through.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { OpmError } from '../../errors.js';
import { DOCKERFILE } from '../../authoring/annotations.js';
import {
  checkGenerateOptions,
  generateBundle,
  type GenerateBundleOptions,
  type GeneratedBundle,
} from './generate.js';
import { expectString } from '../../util/args.js';

export const IMAGE_BUILDERS = ['docker', 'podman', 'buildah'] as const;
export type ImageBuilder = (typeof IMAGE_BUILDERS)[number];

/** Where the tool's output goes (the command line's stdout and stderr). */
export interface OutputSink {
  write(chunk: Uint8Array): unknown;
}

export interface BuildBundleOptions extends GenerateBundleOptions {
  /** `-t`: the image's tag. */
  tag: string;
  /** `-b`: docker (default), podman or buildah. */
  imageBuilder?: string;
  /** The environment the tool runs in (its PATH finds the tool). */
  env?: Record<string, string | undefined>;
  stdout?: OutputSink;
  stderr?: OutputSink;
}

export interface BuiltBundle extends GeneratedBundle {
  /** The tool's command line, as run. */
  argv: string[];
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
        hint: `use one of ${IMAGE_BUILDERS.join(', ')}`,
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
  // Checked first, so that an unknown tool leaves no files behind.
  const argv = buildCommand(o.imageBuilder ?? 'docker', o.tag);
  const generated = await generateBundle({ ...o, overwrite: o.overwrite ?? false });
  o.log?.('Building bundle image');
  const exitCode = await runTool(argv, o, path.resolve(o.cwd ?? '.'));
  return { ...generated, argv, exitCode };
}

/** Go's `%#v` of a []string, as opm names the command that failed. */
export function goStringSlice(argv: readonly string[]): string {
  return `[]string{${argv.map((a) => JSON.stringify(a)).join(', ')}}`;
}
