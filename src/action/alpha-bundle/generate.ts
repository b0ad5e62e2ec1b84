/**
 * `opm alpha bundle generate` (and the first half of `build`): a bundle's
 * `metadata/annotations.yaml` beside its manifests folder (or under `outputDir`, with the manifests
 * copied there) and `bundle.Dockerfile` in the working directory, as opm writes them, with opm's
 * log lines.
 */
import { copyFile, readdir, readFile, rename, rm, stat, chmod, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { OpmError } from '../../errors.js';
import { errnoCode, errnoText } from '../../go/errno.js';
import { compareUtf8 } from '../../go/utf8.js';
import { throwIfAborted } from '../../util/abort.js';
import { ownedFileName, releaseOwned } from '../../util/owned-temp.js';
import {
  aggregateText,
  annotationMismatches,
  annotationsYaml,
  ANNOTATIONS_FILE,
  bundleDockerfile,
  DOCKERFILE,
  METADATA_DIR,
  readAnnotations,
  type BundleAnnotations,
} from '../../authoring/annotations.js';
import { detectMediaType } from '../../authoring/media-type.js';
import { inferFromPackageLayout, PackageLayoutError } from '../../authoring/package-layout.js';
import { writeFileAtomic } from '../../authoring/write-file.js';
import {
  expectObject,
  expectOptionalBoolean,
  expectOptionalFunction,
  expectOptionalString,
  expectString,
} from '../../util/args.js';

export interface GenerateBundleOptions {
  /** The bundle's manifests folder (`-d`). */
  directory: string;
  /** `-u`: where `manifests/` is copied and `metadata/` written; default beside `directory`. */
  outputDir?: string;
  /** `-p`, `-c` (comma-separated, kept verbatim), `-e`: inferred from a packagemanifests layout when missing. */
  packageName?: string;
  channels?: string;
  defaultChannel?: string;
  /** `--base-image`; default `scratch`. */
  baseImage?: string;
  /**
   * Replace an annotations.yaml or bundle.Dockerfile that is there (generate always does; build
   * only with `-o`). Without it an existing annotations file must agree with the flags.
   */
  overwrite?: boolean;
  /** Working directory: where bundle.Dockerfile goes and relative paths start. */
  cwd?: string;
  /** opm's info log lines, in order (the command line writes them to stderr). */
  log?: (line: string) => void;
  /** Warnings of ours: what was kept on disk and does not describe the bundle being built. */
  warn?: (line: string) => void;
  signal?: AbortSignal;
}

export interface GeneratedBundle {
  annotations: BundleAnnotations;
  /** Absolute paths of the annotations file and the Dockerfile. */
  annotationsFile: string;
  dockerfile: string;
  /** Whether each was written (false: one was there and was kept). */
  wroteAnnotations: boolean;
  wroteDockerfile: boolean;
  /** A bundle.Dockerfile was kept that is not the one the options give (left by another build). */
  keptOtherDockerfile: boolean;
}

/**
 * When `-d` names a bundle folder (the one holding `manifests/`) rather than its manifests folder:
 * the error that says which folder to name instead. Undefined when `dir` is not such a folder.
 */
export async function bundleFolderGiven(dir: string, shown: string): Promise<OpmError | undefined> {
  if (path.basename(dir) === 'manifests') return undefined;
  try {
    if (!(await stat(path.join(dir, 'manifests'))).isDirectory()) return undefined;
  } catch {
    return undefined;
  }
  const manifests = `${shown.replace(/\/+$/, '')}/manifests`;
  return new OpmError(
    `-d ${shown} is a bundle folder (it holds manifests/); -d names the manifests folder itself: use -d ${manifests}`,
  );
}

/** Go's filepath.Rel for two absolute paths: `.` for the same folder. */
function relative(from: string, to: string): string {
  const r = path.relative(from, to);
  return r === '' ? '.' : r.split(path.sep).join('/');
}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return false;
    throw new OpmError(`stat ${p}: ${errnoText(err)}`);
  }
}

/**
 * Copy the files of `from` into `to` as opm does for `--output-dir`: files keep their mode, a file
 * already there is kept unless `overwrite`, and the files of a subfolder land in
 * `to/<name of from>/` (opm's layout, kept so the image holds the same tree).
 */
async function copyManifests(
  from: string,
  to: string,
  overwrite: boolean,
  signal?: AbortSignal,
): Promise<void> {
  let entries;
  try {
    entries = await readdir(from, { withFileTypes: true });
  } catch (err) {
    throw new OpmError(`open ${from}: ${errnoText(err)}`);
  }
  await mkdir(to, { recursive: true });
  for (const e of entries.sort((a, b) => compareUtf8(a.name, b.name))) {
    throwIfAborted(signal);
    const src = path.join(from, e.name);
    if (e.isDirectory()) {
      await copyManifests(src, path.join(to, path.basename(from)), overwrite, signal);
      continue;
    }
    const dest = path.join(to, e.name);
    if (!overwrite && (await exists(dest))) continue;
    const temp = ownedFileName(to, `.${e.name}.tmp-`);
    try {
      await copyFile(src, temp);
      await chmod(temp, (await stat(src)).mode & 0o7777);
      await rename(temp, dest);
    } catch (err) {
      await rm(temp, { force: true });
      throw new OpmError(`copy ${src} to ${dest}: ${errnoText(err)}`);
    } finally {
      releaseOwned(temp);
    }
  }
}

async function readDockerfile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new OpmError(`open ${file}: ${errnoText(err)}`);
  }
}

/** The annotations the flags and, where they are missing, the package layout give. */
async function annotationsFor(
  dir: string,
  o: GenerateBundleOptions,
  log: (line: string) => void,
): Promise<BundleAnnotations> {
  const mediaType = await detectMediaType(dir);
  let packageName = o.packageName ?? '';
  let channels = o.channels ?? '';
  let defaultChannel = o.defaultChannel ?? '';
  if (channels === '' || packageName === '') {
    const missing = [channels === '' ? 'channels' : '', packageName === '' ? 'package name' : ''].filter(
      (s) => s !== '',
    );
    log(`Bundle ${missing.join(' and ')} information not provided, inferring from parent package directory`);
    let facts;
    try {
      facts = await inferFromPackageLayout(dir);
    } catch (err) {
      if (!(err instanceof PackageLayoutError)) throw err;
      throw new OpmError(
        `please manually input channels and packageName, error interpreting bundle from directory ${dir}, ${err.message}`,
        { hint: 'pass --package and --channels' },
      );
    }
    if (channels === '') {
      channels = facts.channels.join(',');
      if (channels === '') {
        throw new OpmError(
          `error interpreting channels: the bundle in ${dir} is in no channel of package ${JSON.stringify(facts.packageName)}`,
          { hint: 'pass --channels' },
        );
      }
      log(`Inferred channels: ${channels}`);
    }
    if (packageName === '') {
      packageName = facts.packageName;
      log(`Inferred package name: ${packageName}`);
    }
    if (defaultChannel === '') {
      defaultChannel = facts.defaultChannel;
      log(`Inferred default channel: ${defaultChannel}`);
    }
  }
  return { mediaType, packageName, channels, defaultChannel };
}

/** The options of generateBundle checked, for JavaScript callers (`fn` names the call). */
export function checkGenerateOptions(o: unknown, fn: string): void {
  expectObject(o, `${fn}(options)`);
  const opts = o as Record<string, unknown>;
  expectString(opts.directory, `${fn}(options).directory`, "the bundle's manifests folder");
  for (const k of ['outputDir', 'packageName', 'channels', 'defaultChannel', 'baseImage', 'cwd'] as const)
    expectOptionalString(opts[k], `${fn}(options).${k}`);
  expectOptionalBoolean(opts.overwrite, `${fn}(options).overwrite`);
  expectOptionalFunction(opts.log, `${fn}(options).log`);
  expectOptionalFunction(opts.warn, `${fn}(options).warn`);
}

/**
 * Write a bundle's `metadata/annotations.yaml` and `bundle.Dockerfile` as `opm alpha bundle
 * generate` does (see GenerateBundleOptions); `log` gets opm's log lines. Rejects with an OpmError
 * in opm's words (a folder without files, a packagemanifests layout that cannot be read, an
 * existing annotations file that disagrees when `overwrite` is false).
 *
 * @example
 * const g = await generateBundle({ directory: 'bundle/manifests', packageName: 'foo', channels: 'stable' });
 * console.log(g.annotationsFile, g.dockerfile);
 */
export async function generateBundle(o: GenerateBundleOptions): Promise<GeneratedBundle> {
  checkGenerateOptions(o, 'generateBundle');
  const log = o.log ?? ((): void => undefined);
  const cwd = path.resolve(o.cwd ?? '.');
  const dir = path.resolve(cwd, o.directory);
  const outputDir = o.outputDir === undefined || o.outputDir === '' ? '' : path.resolve(cwd, o.outputDir);
  const overwrite = o.overwrite ?? true;
  throwIfAborted(o.signal);
  if (!(await exists(dir))) throw new OpmError(`stat ${dir}: no such file or directory`);

  let annotations;
  try {
    annotations = await annotationsFor(dir, o, log);
  } catch (err) {
    throw (await bundleFolderGiven(dir, o.directory)) ?? err;
  }
  log('Building annotations.yaml');
  const yaml = annotationsYaml(annotations);

  let parent: string;
  let manifestsOut: string;
  if (outputDir === '') {
    parent = path.dirname(dir);
    manifestsOut = dir;
  } else {
    parent = outputDir;
    log('Generating output manifests directory');
    manifestsOut = path.join(outputDir, 'manifests');
    await copyManifests(dir, manifestsOut, overwrite, o.signal);
  }
  throwIfAborted(o.signal);

  const metadataDir = path.join(parent, 'metadata');
  const annotationsFile = path.join(metadataDir, ANNOTATIONS_FILE);
  let existing: string | undefined;
  try {
    existing = await readFile(annotationsFile, 'utf8');
  } catch (err) {
    if (errnoCode(err) !== 'ENOENT') throw new OpmError(`open ${annotationsFile}: ${errnoText(err)}`);
  }
  let wroteAnnotations = false;
  if (existing === undefined || overwrite) {
    log(`Writing ${ANNOTATIONS_FILE} in ${metadataDir}`);
    await writeFileAtomic(annotationsFile, yaml);
    wroteAnnotations = true;
  } else {
    log(`An annotations.yaml already exists in the directory: ${METADATA_DIR}`);
    log('Validating existing annotations.yaml');
    // A file without an `annotations` mapping lacks every field.
    const have = readAnnotations(existing) ?? new Map<string, string>();
    const problems = annotationMismatches(have, annotations);
    if (problems.length > 0) {
      throw new OpmError(aggregateText(problems), {
        at: { file: annotationsFile },
        hint: 'fix the file or the flags, or pass --overwrite to replace it',
      });
    }
  }

  log('Building Dockerfile');
  const text = bundleDockerfile(annotations, {
    baseImage: o.baseImage ?? 'scratch',
    manifestsFrom: relative(cwd, manifestsOut),
    metadataFrom: relative(cwd, metadataDir),
  });
  const dockerfile = path.join(cwd, DOCKERFILE);
  let wroteDockerfile = false;
  let keptOtherDockerfile = false;
  if (overwrite || !(await exists(dockerfile))) {
    log(`Writing ${DOCKERFILE} in ${cwd}`);
    await writeFileAtomic(dockerfile, text);
    wroteDockerfile = true;
  } else {
    log(`A bundle.Dockerfile already exists in current working directory: ${cwd}`);
    keptOtherDockerfile = (await readDockerfile(dockerfile)) !== text;
  }
  return { annotations, annotationsFile, dockerfile, wroteAnnotations, wroteDockerfile, keptOtherDockerfile };
}
