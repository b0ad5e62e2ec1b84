/**
 * `opm alpha bundle validate`: pull a bundle image (with a container engine, as opm does, or with
 * our own registry client), then opm's format checks (with the optional dependencies file), and its
 * content checks. Returns the verdict as data: opm's errors, in its order, and the log lines it
 * writes on the way.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { OpmError } from '../../errors.js';
import type { Finding } from '../../findings.js';
import { bundleRuleFindings } from './bundle-rules.js';
import { checkCelRule } from '../../lint/cel.js';

/** A CEL rule's compile problem, as the dependencies check reports it. */
export const celProblem = (rule: string): string | undefined => checkCelRule(rule)?.message;
import type { ImageSource } from '../../oci/image-source.js';
import { throwIfAborted } from '../../util/abort.js';
import { expectObject, expectOptionalString, expectString } from '../../util/args.js';
import { checkBundleFormat } from '../../authoring/bundle-format.js';
import { dependencyFileChecks } from '../../authoring/content/dependency-checks.js';
import { checkBundleContent, type ContentLogLine } from '../../authoring/content/bundle-content.js';
import { contentProblemText, isError, type BundleContentProblem } from '../../authoring/content/problem.js';
import {
  parseCustomCategories,
  type OperatorHubOptions,
} from '../../authoring/content/operatorhub-checks.js';

export const VALIDATE_IMAGE_BUILDERS = ['none', 'docker', 'podman'] as const;

export interface LogLine {
  level: 'debug' | 'info' | 'warning' | 'error';
  message: string;
}

export interface ValidateBundleImageOptions {
  /** `-b`: docker (default), podman, or none (our registry client: `imageSource`). */
  imageBuilder?: string;
  /** The registry client for `-b none`. */
  imageSource?: ImageSource;
  /** `-o`: optional validators, comma-separated (operatorhub, bundle-objects). */
  optionalValidators?: string;
  /** The environment the engine runs in (its PATH finds it), and OPERATOR_BUNDLE_CATEGORIES. */
  env?: Record<string, string | undefined>;
  /** Each log line, as it happens. */
  log?: (line: LogLine) => void;
  signal?: AbortSignal;
}

export interface BundleImageVerdict {
  /** opm's errors, in its order; empty when the bundle passes. */
  errors: string[];
  /** Which checks failed: the format checks stop before the content checks. */
  stage?: 'format' | 'content';
  /** Every finding of the content checks, with the manifest each is in (warnings too). */
  findings: BundleContentProblem[];
  /**
   * Beyond opm: the `opm validate` rules that apply to one bundle (metadata, dependencies, icons),
   * as warnings with file and line. They do not change the verdict.
   */
  warnings: Finding[];
  /** The unpacked bundle, for further checks; removed by `release`. */
  root: string;
  release(): Promise<void>;
}

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  spawnError?: string;
}

function run(
  argv: string[],
  env: Record<string, string | undefined>,
  signal?: AbortSignal,
): Promise<RunResult> {
  return new Promise((resolve) => {
    const [cmd, ...args] = argv;
    const child = spawn(cmd ?? '', args, {
      env: env as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(signal === undefined ? {} : { signal }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString('utf8')));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
    child.on('error', (e) => resolve({ code: -1, stdout, stderr, spawnError: e.message }));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** Go's exec.LookPath: the tool's path through PATH, or undefined. */
function lookPath(cmd: string, env: Record<string, string | undefined>): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    const p = path.join(dir === '' ? '.' : dir, cmd);
    try {
      if (!statSync(p).isFile()) continue;
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      continue;
    }
  }
  return undefined;
}

/** Go's `%s` of a []string: `[a b c]`. */
const goSlice = (argv: string[]): string => `[${argv.join(' ')}]`;

/**
 * Pull and unpack `ref` into `dir` with a container engine, as opm does: `pull`, `create REF ""`,
 * `cp ID:/. DIR`, `rm ID`. The failures in opm's words.
 */
async function engineUnpack(
  tool: 'docker' | 'podman',
  ref: string,
  dir: string,
  env: Record<string, string | undefined>,
  log: (l: LogLine) => void,
  signal?: AbortSignal,
): Promise<void> {
  const found = lookPath(tool, env);
  const exitText = (r: RunResult): string =>
    found === undefined
      ? `exec: "${tool}": executable file not found in $PATH`
      : (r.spawnError ?? `exit status ${r.code}`);
  const pull = [tool, 'pull', ref];
  log({ level: 'info', message: `running ${[found ?? tool, ...pull.slice(1)].join(' ')}` });
  const pulled = await run(pull, env, signal);
  if (pulled.code !== 0) {
    const out = pulled.stdout + pulled.stderr;
    log({ level: 'error', message: out });
    throw new OpmError(`error pulling image: ${out}. ${exitText(pulled)}`);
  }
  const create = [tool, 'create', ref, ''];
  log({ level: 'info', message: `running ${tool} create` });
  log({ level: 'debug', message: goSlice(create) });
  const created = await run(create, env, signal);
  if (created.code !== 0) {
    const msg = found === undefined ? exitText(created) : `exit status ${created.code}: ${created.stderr}`;
    throw new OpmError(`error creating container ${created.stdout}: ${msg}`);
  }
  const id = created.stdout.replace(/\n$/, '');
  for (const [step, argv, what] of [
    ['cp', [tool, 'cp', `${id}:/.`, dir], 'copying container directory'],
    ['rm', [tool, 'rm', id], 'removing container'],
  ] as const) {
    log({ level: 'info', message: `running ${tool} ${step}` });
    log({ level: 'debug', message: goSlice([...argv]) });
    const r = await run([...argv], env, signal);
    if (r.code !== 0) {
      const out = r.stdout + r.stderr;
      log({ level: 'error', message: out });
      throw new OpmError(`error ${what} ${out}: ${exitText(r)}`);
    }
  }
}

async function operatorHubOptions(env: Record<string, string | undefined>): Promise<OperatorHubOptions> {
  const file = env.OPERATOR_BUNDLE_CATEGORIES ?? '';
  if (file === '') return {};
  try {
    return { customCategories: parseCustomCategories(await readFile(path.resolve(file), 'utf8')) };
  } catch (e) {
    return {
      customCategories: {
        error: `reading category file: open ${path.resolve(file)}: ${e instanceof Error ? e.message : String(e)}`,
      },
    };
  }
}

/**
 * Pull `ref` and check it as `opm alpha bundle validate` does. Rejects with an OpmError when the
 * image cannot be pulled or the builder is unknown; a bundle that fails the checks resolves with
 * its errors. Call `release()` on the verdict when done.
 *
 * @example
 * const v = await validateBundleImage('quay.io/me/foo-bundle:v1', { imageBuilder: 'none', imageSource });
 * if (v.errors.length > 0) console.error(v.errors.join('\n'));
 * await v.release();
 */
export async function validateBundleImage(
  ref: string,
  o: ValidateBundleImageOptions = {},
): Promise<BundleImageVerdict> {
  expectString(ref, 'validateBundleImage(ref)', 'an image reference');
  expectObject(o, 'validateBundleImage(options)');
  expectOptionalString(o.imageBuilder, 'validateBundleImage(options).imageBuilder');
  expectOptionalString(o.optionalValidators, 'validateBundleImage(options).optionalValidators');
  const builder = o.imageBuilder ?? 'docker';
  const env = o.env ?? {};
  const log = o.log ?? (() => undefined);
  if (!(VALIDATE_IMAGE_BUILDERS as readonly string[]).includes(builder))
    throw new OpmError(`unrecognized container-tool option: ${builder}`, {
      hint: `use one of ${VALIDATE_IMAGE_BUILDERS.join(', ')}`,
    });

  let root: string;
  let release: () => Promise<void>;
  if (builder === 'none') {
    expectObject(
      o.imageSource,
      'validateBundleImage(options).imageSource',
      'an ImageSource, such as createImageSource() returns, for imageBuilder none',
    );
    log({ level: 'debug', message: 'Pulling and unpacking container image' });
    const img = await o.imageSource.pull(ref, o.signal === undefined ? {} : { signal: o.signal });
    root = img.root;
    release = () => img.release();
  } else {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'bundle-'));
    log({ level: 'info', message: `Create a temp directory at ${dir}` });
    release = () => rm(dir, { recursive: true, force: true });
    try {
      log({ level: 'debug', message: 'Pulling and unpacking container image' });
      await engineUnpack(builder as 'docker' | 'podman', ref, dir, env, log, o.signal);
    } catch (e) {
      await release();
      throw e;
    }
    root = dir;
  }
  try {
    throwIfAborted(o.signal);
    log({ level: 'info', message: 'Unpacked image layers, validating bundle image format & contents' });
    const deps = { value: false };
    const format = await checkBundleFormat(root, { metadataChecks: dependencyFileChecks(deps, celProblem) });
    const missing = new Set(format.errors);
    if (!missing.has('Unable to locate manifests directory'))
      log({ level: 'debug', message: 'Found manifests directory' });
    if (!missing.has('Unable to locate metadata directory'))
      log({ level: 'debug', message: 'Found metadata directory' });
    const located =
      !missing.has('Unable to locate manifests directory') &&
      !missing.has('Unable to locate metadata directory');
    if (located) {
      log({ level: 'debug', message: 'Getting mediaType info from manifests directory' });
      if (format.annotations !== undefined) log({ level: 'debug', message: 'Found annotations file' });
      log({
        level: 'debug',
        message: deps.value ? 'Found dependencies file' : 'Could not find optional dependencies file',
      });
    }
    const warnings = await bundleRuleFindings(root);
    if (format.errors.length > 0)
      return { errors: format.errors, stage: 'format', findings: [], warnings, root, release };

    const content = await checkBundleContent(path.join(root, 'manifests'), {
      optionalValidators:
        o.optionalValidators === undefined || o.optionalValidators === '' ? [] : [o.optionalValidators],
      // Named as in the image: the folder it was unpacked into is gone when the message is read.
      shownDir: 'manifests',
      operatorHub: await operatorHubOptions(env),
    });
    for (const l of content.log) log(l as ContentLogLine);
    const errors = content.problems.filter(isError).map(contentProblemText);
    if (errors.length === 0)
      log({ level: 'info', message: 'All validation tests have been completed successfully' });
    return {
      errors,
      ...(errors.length > 0 ? { stage: 'content' as const } : {}),
      findings: content.problems,
      warnings,
      root,
      release,
    };
  } catch (e) {
    await release();
    throw e;
  }
}
