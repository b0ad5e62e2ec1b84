/**
 * `opm compose <catalog-file>` (an extension): a catalog directory composed from its references, as
 * the file-based catalogs procedure of the OpenShift documentation builds it with a script (`opm
 * render <image> > <name>/<reference>/index.yaml` for each reference, then `opm generate
 * dockerfile <name>`), with the same bytes. References are rendered a few at a time, each written
 * to a staging folder beside the catalog's directory as soon as it is rendered; the staged tree is
 * renamed into place only when every reference rendered, so a failure leaves the previous tree as it
 * was. The Dockerfile is then written, and the composed catalog validated. Asked to, the catalog
 * image is then built from the directory by `opm image build`'s use case, tagged `repo:tag` of the
 * catalog file, and pushed or written as an OCI layout.
 */
import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { OpmError, InternalError, UsageError, wrapError } from '../errors.js';
import {
  parseComposeCatalog,
  type ComposeCatalog,
  type ComposeReference,
} from '../curate/compose-catalog.js';
import { readBoundedFile } from '../util/read-bounded.js';
import { errnoText } from '../go/errno.js';
import { makeOwnedDir, releaseOwned, removeStale } from '../util/owned-temp.js';
import { throwIfAborted } from '../util/abort.js';
import type { ImageSource } from '../oci/image-source.js';
import type { BundleDirMap } from '../template/bundle-dirs.js';
import type { DeclarativeConfig } from '../declcfg/types.js';
import { renderTemplate } from './render-template.js';
import type { ProgressSink } from '../util/progress.js';
import { render, resolveIn } from './render/render.js';
import { writeJsonBytes, writeYaml, type DroppedBlob } from '../declcfg/write.js';
import { validateCatalog, type ValidateResult } from './validate/validate.js';
import { DEFAULT_OPM_IMAGE } from './generate-dockerfile/dockerfile-defaults.js';
import {
  dockerfileText,
  parseExtraLabels,
  planDockerfile,
  writeDockerfile,
} from './generate-dockerfile/generate-dockerfile.js';
import { expectObject, expectOptionalString, expectString } from '../util/args.js';
import { parseReference } from '../oci/reference.js';
import { imageBuild, type ImageBuildOptions } from './image-build.js';
import { putInPlace, writeChunksToFile } from './compose-files.js';

/** How many references are rendered at once by default: pulls overlap, memory stays small. */
export const COMPOSE_CONCURRENCY = 4;

/** The file each reference is written to, as the documentation's script names it (whatever the format). */
export const REFERENCE_FILE = 'index.yaml';

export interface ComposeDockerfileOptions {
  /** The final stage's image (opm's default: quay.io/operator-framework/opm:latest). */
  baseImage?: string;
  /** The builder stage's image (the same default). */
  builderImage?: string;
  /** `key=value` labels, as `generate dockerfile -l` takes them. */
  extraLabels?: string[];
}

/**
 * What reads the base image and pushes: a `RegistryPusher` (oci/push/pusher.ts), named by what is
 * used of it so that the library's declarations need no Node.js types.
 */
export interface CatalogImageRegistry {
  readImage(ref: string, signal?: AbortSignal): Promise<unknown>;
  baseLayer(...args: never[]): Promise<unknown>;
  push(ref: string, plan: unknown, options?: { signal?: AbortSignal }): Promise<{ digest: string }>;
}

/** The catalog image built: as `opm image build` reports it. */
export interface ComposedImage {
  /** Digest of what the tag points at (the layout's when nothing was pushed). */
  digest: string;
  mediaType: string;
  pushed: Array<{ ref: string; digest: string; uploaded: number; reused: number }>;
  /** The layout written and the digest of its image (OCI media types: another digest on a Docker base). */
  ociLayout?: { dir: string; digest: string };
}

/** The catalog image built after a composition that validates (`opm compose --push`/`--oci-layout`). */
export interface ComposeImageOptions {
  /** Push it to the catalog file's `repo:tag`. */
  push: boolean;
  /** Write it as an OCI image layout into this new or empty folder (tagged with the file's `tag`). */
  ociLayout?: string;
  /** The image to build on; default the Dockerfile's base image (opm's image). */
  baseImage?: string;
  /** `key=value` labels after the configs label; default the Dockerfile's extra labels. */
  labels?: string[];
  /** `os/arch[/variant]` of the base to build on; none: every platform it has. */
  platforms?: string[];
  /** Reads the base and pushes (credentials, TLS, proxies, registries.conf). */
  registry: CatalogImageRegistry;
  /** Where the layers and the serve cache are written meanwhile (default the system's temporary folder). */
  workDir?: string;
}

export interface ComposeOptions {
  /** The catalog file (YAML or JSON). */
  catalogFile: string;
  /**
   * The folder the catalog's directory (`<name>/`) and its Dockerfile are written in; the working
   * directory (`cwd`) by default, as the documentation's script writes them.
   */
  outputRoot?: string;
  /** Each reference's file as `opm render -o` writes it: `json` (the default, as the script) or `yaml`. */
  format?: 'json' | 'yaml';
  /** How many references are rendered at once (default COMPOSE_CONCURRENCY). */
  concurrency?: number;
  /** The Dockerfile `opm generate dockerfile <name>` writes beside the directory; false: none. */
  dockerfile?: boolean | ComposeDockerfileOptions;
  /** Validate the composed catalog (default true). The tree stays written whatever the outcome. */
  validate?: boolean;
  /** Where image references are pulled from. */
  imageSource?: ImageSource;
  /**
   * Bundle directories that stand for bundle images in `template` references (`--bundle-dirs`, as
   * `alpha render-template` takes them).
   */
  bundleDirs?: BundleDirMap;
  /** Directory relative paths (the catalog file, the output root) are resolved against. */
  cwd?: string;
  /** The environment OPM_THREADS is read from; none by default. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Stops the work: nothing is left of the staged tree, and the promise rejects with the reason. */
  signal?: AbortSignal;
  /** Warnings of the renders (each names its reference) and of the writers. */
  onWarning?: (message: string) => void;
  /** Progress as data: the pulls, the loading of local catalogs, the validation. */
  onProgress?: ProgressSink;
  /** Called as each reference is written to the staging folder (in the order they finish). */
  onReference?: (summary: ReferenceSummary) => void;
  /** Build the catalog image when the composed catalog validates (or is not validated). */
  image?: ComposeImageOptions;
}

/** What one reference rendered to. */
export interface ReferenceSummary {
  name: string;
  /** The image (or directory) rendered, or the template file, as the catalog file names it. */
  image?: string;
  template?: string;
  /** The reference's file, relative to the output root (`<catalog>/<reference>/index.yaml`). */
  file: string;
  /** The names of its packages, in the rendered order. */
  packages: string[];
  channels: number;
  bundles: number;
  bytes: number;
}

export interface ComposeResult {
  catalog: ComposeCatalog;
  /** The catalog's directory, written (absolute): what an image build takes next. */
  dir: string;
  /** The Dockerfile beside it, when one is written or was already there with the same text. */
  dockerfile?: { file: string; kept: boolean };
  /** Per reference, in the catalog file's order. */
  references: ReferenceSummary[];
  /** The validation of the composed catalog, unless `validate: false`. */
  validation?: ValidateResult;
  /** The catalog image, when asked for and the catalog validated. */
  image?: ComposedImage;
}

/** One reference that did not render, with why (its error as thrown, wrapped with the reference). */
export interface ReferenceFailure {
  reference: ComposeReference;
  error: OpmError;
}

/**
 * Some references did not render: nothing was written. `failures` holds each of them, in the
 * catalog file's order, for the caller to report one line each.
 */
export class ComposeFailedError extends OpmError {
  readonly failures: readonly ReferenceFailure[];
  constructor(failures: readonly ReferenceFailure[], total: number, shownDir: string) {
    super(
      `${failures.length} of ${total} reference${total === 1 ? '' : 's'} did not render; "${shownDir}" was left as it was`,
    );
    this.name = 'ComposeFailedError';
    this.failures = failures;
  }
}

/** The options checked, for JavaScript callers no compiler checks. */
function checkOptions(opts: ComposeOptions): void {
  expectObject(opts, 'compose(options)');
  expectString(opts.catalogFile, 'compose(options).catalogFile', 'the catalog file to compose');
  expectOptionalString(opts.outputRoot, 'compose(options).outputRoot');
  expectOptionalString(opts.cwd, 'compose(options).cwd');
  if (opts.image !== undefined) {
    expectObject(opts.image, 'compose(options).image');
    expectOptionalString(opts.image.ociLayout, 'compose(options).image.ociLayout');
    expectObject(opts.image.registry, 'compose(options).image.registry', 'a RegistryPusher');
  }
  const c: unknown = opts.concurrency;
  if (c !== undefined && !(typeof c === 'number' && Number.isInteger(c) && c >= 1)) {
    throw new TypeError(
      `compose(options).concurrency must be a whole number of at least 1, not ${String(c)}`,
    );
  }
  const f: unknown = opts.format;
  if (f !== undefined && f !== 'json' && f !== 'yaml') {
    throw new TypeError(`compose(options).format must be 'json' or 'yaml', not ${JSON.stringify(f)}`);
  }
}

/**
 * Read and check a catalog file of `opm compose` (schemas/compose-catalog.json, unique names);
 * nothing is rendered. `shown` names the file in messages.
 *
 * @example
 * const catalog = await readComposeCatalog('catalog.yaml');
 */
export async function readComposeCatalog(file: string, shown = file): Promise<ComposeCatalog> {
  expectString(file, 'readComposeCatalog(file)', 'the catalog file to read');
  const text = await readBoundedFile(file).catch((err: unknown) => {
    throw new OpmError(`cannot read ${shown}: ${errnoText(err)}`, { cause: err });
  });
  return parseComposeCatalog(text, shown);
}

/**
 * Compose the catalog the file names: render every reference (at most `concurrency` at once),
 * write `<outputRoot>/<name>/<reference>/index.yaml` staged and renamed into place, write the
 * Dockerfile beside it, validate the result. A reference that fails does not stop the others; when
 * any failed, ComposeFailedError lists them all and nothing was written.
 *
 * @example
 * const result = await compose({ catalogFile: 'catalog.yaml', imageSource: createImageSource() });
 */
export async function compose(opts: ComposeOptions): Promise<ComposeResult> {
  checkOptions(opts);
  const signal = opts.signal;
  throwIfAborted(signal);
  const catalogFile = resolveIn(opts.cwd, opts.catalogFile);
  const catalog = await readComposeCatalog(catalogFile, opts.catalogFile);
  const imageTag = opts.image === undefined ? undefined : imageTagOf(catalog, opts.image, opts.catalogFile);
  const root = resolveIn(opts.cwd, opts.outputRoot ?? '.');
  const shownRoot = opts.outputRoot ?? '.';
  const target = path.join(root, catalog.name);
  const shownDir = shownRoot === '.' ? catalog.name : path.join(shownRoot, catalog.name);
  // Checked before anything is pulled: what stands in the way is said at once.
  await checkTarget(target, shownDir);
  const dockerfile = opts.dockerfile === false ? undefined : dockerfileOptions(opts.dockerfile);
  const keptDockerfile =
    dockerfile === undefined ? false : await dockerfileAlreadyThere(root, catalog.name, dockerfile);
  await mkdir(root, { recursive: true }).catch((err: unknown) => {
    throw new OpmError(`cannot create output root "${shownRoot}": ${errnoText(err)}`);
  });
  const prefix = `.${catalog.name}.tmp-`;
  await removeStale(root, prefix);
  await removeStale(root, `.${catalog.name}.old-`);
  const staging = await makeOwnedDir(root, prefix).catch((err: unknown) => {
    throw new OpmError(`cannot create a staging folder in "${shownRoot}": ${errnoText(err)}`);
  });
  let references: ReferenceSummary[];
  try {
    // Made by mkdir (not mkdtemp), so the directory gets the mode the script's `mkdir` gives it.
    const staged = path.join(staging, 'catalog');
    await mkdir(staged);
    references = await renderAll(catalog, staged, path.dirname(catalogFile), opts, shownDir);
    throwIfAborted(signal);
    await putInPlace(staged, target, root, catalog.name, shownDir);
  } catch (err) {
    if (signal?.aborted === true) throw signal.reason;
    throw err;
  } finally {
    await rm(staging, { recursive: true, force: true });
    releaseOwned(staging);
  }
  const result: ComposeResult = { catalog, dir: target, references };
  if (dockerfile !== undefined) {
    const file = path.join(root, `${catalog.name}.Dockerfile`);
    if (!keptDockerfile) {
      const plan = await planDockerfile({
        fbcRootDir: target,
        baseImage: dockerfile.baseImage,
        builderImage: dockerfile.builderImage,
        builderImageExplicit: true,
        extraLabels: dockerfile.extraLabels,
        // Validated below, once, with the findings reported rather than the first one thrown.
        skipValidate: true,
        ...(signal === undefined ? {} : { signal }),
      });
      await writeDockerfile(plan, signal);
    }
    result.dockerfile = { file, kept: keptDockerfile };
  }
  if (opts.validate !== false) {
    result.validation = await validateCatalog(target, {
      displayDir: shownDir,
      ...(opts.env === undefined ? {} : { env: opts.env }),
      ...(signal === undefined ? {} : { signal }),
      ...(opts.onProgress === undefined ? {} : { onProgress: opts.onProgress }),
    });
  }
  const image = opts.image;
  if (image !== undefined && result.validation?.passed !== false) {
    const d = dockerfile ?? dockerfileOptions(undefined);
    result.image = await imageBuild({
      catalogDir: target,
      tags: imageTag === undefined ? [] : [imageTag],
      push: image.push,
      ...(image.ociLayout === undefined ? {} : { ociLayout: image.ociLayout }),
      ...(catalog.tag === undefined ? {} : { layoutTag: catalog.tag }),
      baseImage: image.baseImage ?? d.baseImage,
      labels: image.labels ?? d.extraLabels,
      ...(image.platforms === undefined ? {} : { platforms: image.platforms }),
      // A RegistryPusher, as the interface says.
      registry: image.registry as unknown as ImageBuildOptions['registry'],
      ...(image.workDir === undefined ? {} : { workDir: image.workDir }),
      ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
      ...(opts.env === undefined ? {} : { env: { ...opts.env } }),
      ...(signal === undefined ? {} : { signal }),
      ...(opts.onProgress === undefined ? {} : { onProgress: opts.onProgress }),
    });
  }
  return result;
}

/**
 * The catalog image's reference, `repo:tag` of the catalog file as the documentation's script tags
 * it, checked before anything is rendered; a push needs both.
 */
function imageTagOf(
  catalog: ComposeCatalog,
  image: ComposeImageOptions,
  shownFile: string,
): string | undefined {
  if (!image.push && image.ociLayout === undefined)
    throw new UsageError('say where the catalog image goes: --push (to repo:tag), --oci-layout DIR, or both');
  if (catalog.repo === undefined || catalog.tag === undefined) {
    if (!image.push) return undefined;
    throw new UsageError("--push needs the catalog file's repo and tag", {
      at: { file: shownFile },
      hint: 'add `repo:` and `tag:` to the file: the image is pushed to repo:tag',
    });
  }
  const ref = `${catalog.repo}:${catalog.tag}`;
  let parsed;
  try {
    parsed = parseReference(ref);
  } catch (err) {
    throw new OpmError(`repo and tag make no image reference: ${(err as Error).message}`, {
      at: { file: shownFile },
      cause: err,
    });
  }
  if (parsed.digest !== undefined || parsed.tag !== catalog.tag)
    throw new OpmError(`repo and tag make no image reference: "${ref}"`, {
      at: { file: shownFile },
      hint: 'repo names a repository without tag or digest, tag a tag',
    });
  return ref;
}

interface DockerfileSettings {
  baseImage: string;
  builderImage: string;
  extraLabels: string[];
}

function dockerfileOptions(o: true | ComposeDockerfileOptions | undefined): DockerfileSettings {
  const given = typeof o === 'object' ? o : {};
  return {
    baseImage: given.baseImage ?? DEFAULT_OPM_IMAGE,
    builderImage: given.builderImage ?? DEFAULT_OPM_IMAGE,
    extraLabels: given.extraLabels ?? [],
  };
}

/** The catalog's directory may be absent or a directory (replaced when all went well); nothing else. */
async function checkTarget(target: string, shown: string): Promise<void> {
  const st = await stat(target).catch(() => undefined);
  if (st !== undefined && !st.isDirectory()) {
    throw new OpmError(`"${shown}" exists and is not a directory`, {
      hint: 'the catalog is written to a directory of its name: move that file away',
    });
  }
}

/**
 * Whether `<name>.Dockerfile` is there already with the text this run would write (kept, as a
 * second run of the script would need it removed first). Another text is refused before anything is
 * rendered, as `generate dockerfile` refuses to overwrite a file.
 */
async function dockerfileAlreadyThere(root: string, name: string, d: DockerfileSettings): Promise<boolean> {
  // The settings are checked here, before anything is rendered, whether a file is there or not.
  if (d.builderImage === 'scratch') {
    throw new OpmError('invalid builder image: "scratch"', {
      hint: 'the builder stage needs an image with /bin/opm',
    });
  }
  const want = dockerfileText(name, d.baseImage, d.builderImage, parseExtraLabels(d.extraLabels));
  const file = path.join(root, `${name}.Dockerfile`);
  const st = await stat(file).catch(() => undefined);
  if (st === undefined) return false;
  const have = st.isFile() ? await readBoundedFile(file, 1024 * 1024).catch(() => undefined) : undefined;
  if (have === want) return true;
  throw new OpmError(`path "${file}": file already exists`, {
    hint: 'it holds another Dockerfile than this catalog needs: remove it, or pass --no-dockerfile',
  });
}

/** Render every reference into `staging/<name>/`, a few at a time; every failure is collected. */
async function renderAll(
  catalog: ComposeCatalog,
  staging: string,
  baseDir: string,
  opts: ComposeOptions,
  shownDir: string,
): Promise<ReferenceSummary[]> {
  const refs = catalog.references;
  const signal = opts.signal;
  const concurrency = Math.min(opts.concurrency ?? COMPOSE_CONCURRENCY, refs.length);
  const summaries: Array<ReferenceSummary | undefined> = new Array(refs.length);
  const failures: Array<ReferenceFailure | undefined> = new Array(refs.length);
  const onProgress = opts.onProgress;
  // One count of the pulls for the whole run; each render would say its own.
  const images = opts.imageSource === undefined ? 0 : await countImages(refs, baseDir);
  if (images > 0) onProgress?.({ type: 'images', total: images });
  const sink: ProgressSink | undefined =
    onProgress === undefined ? undefined : (e) => void (e.type === 'images' ? undefined : onProgress(e));
  let next = 0;
  // Set when a worker stops on an abort or a bug: the others take no further reference.
  let stopped = false;
  const worker = async (): Promise<void> => {
    try {
      await work();
    } catch (err) {
      stopped = true;
      throw err;
    }
  };
  const work = async (): Promise<void> => {
    for (;;) {
      throwIfAborted(signal);
      if (stopped) return;
      const i = next++;
      const ref = refs[i];
      if (ref === undefined) return;
      try {
        const summary = await renderOne(ref, catalog.name, staging, baseDir, opts, sink);
        summaries[i] = summary;
        opts.onReference?.(summary);
      } catch (err) {
        if (signal?.aborted === true) throw signal.reason;
        if (err instanceof InternalError) throw err;
        const wrapped = wrapError(`reference "${ref.name}"`, err);
        if (!(wrapped instanceof OpmError)) throw wrapped;
        failures[i] = { reference: ref, error: placedFromCwd(wrapped, baseDir, opts.cwd) };
      }
    }
  };
  // Every worker is waited for, even after one failed (an abort): none may still be writing into
  // the staging folder when it is removed.
  const settled = await Promise.allSettled(Array.from({ length: concurrency }, worker));
  const rejected = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (rejected !== undefined) throw rejected.reason;
  const failed = failures.filter((f): f is ReferenceFailure => f !== undefined);
  if (failed.length > 0) throw new ComposeFailedError(failed, refs.length, shownDir);
  return summaries.map((s) => {
    if (s === undefined) throw new InternalError('a reference was neither rendered nor failed');
    return s;
  });
}

/**
 * `err` with a relative file position (a file of a local reference, named under the reference as
 * the catalog file writes it, relative to the file's folder) made relative to `cwd` instead, so that
 * the position can be opened from where the command was run.
 */
function placedFromCwd(err: OpmError, baseDir: string, cwd: string | undefined): OpmError {
  const at = err.at;
  if (at === undefined || path.isAbsolute(at.file)) return err;
  const from = resolveIn(cwd, '.');
  const file = path.relative(from, path.resolve(baseDir, at.file)) || '.';
  if (file === at.file) return err;
  return new OpmError(err.message, {
    code: err.code,
    at: { ...at, file },
    ...(err.hint === undefined ? {} : { hint: err.hint }),
    cause: err,
  });
}

/** How many references name images (anything that is not a path on disk, as render decides). */
async function countImages(refs: readonly ComposeReference[], baseDir: string): Promise<number> {
  let n = 0;
  // A few stats at a time: a file of ten thousand references opens no ten thousand handles.
  for (let i = 0; i < refs.length; i += 64) {
    const batch = refs.slice(i, i + 64);
    const found = await Promise.all(
      batch.map((r) =>
        stat(path.resolve(baseDir, r.image ?? '.')).then(
          () => true,
          () => false,
        ),
      ),
    );
    n += found.filter((f) => !f).length;
  }
  return n;
}

/** Render one reference as `opm render <image>` does and write it to `staging/<name>/index.yaml`. */
async function renderOne(
  ref: ComposeReference,
  catalogName: string,
  staging: string,
  baseDir: string,
  opts: ComposeOptions,
  onProgress: ProgressSink | undefined,
): Promise<ReferenceSummary> {
  const cfg = await renderReference(ref, baseDir, opts, onProgress);
  const warn = opts.onWarning;
  const dir = path.join(staging, ref.name);
  await mkdir(dir);
  const file = path.join(dir, REFERENCE_FILE);
  const onDropped = (b: DroppedBlob): void => {
    const what = b.name === '' ? b.schema : `${b.schema} "${b.name}"`;
    warn?.(`reference "${ref.name}": ${what} has no package name and is left out of the output, as opm does`);
  };
  const chunks = opts.format === 'yaml' ? writeYaml(cfg, { onDropped }) : writeJsonBytes(cfg, { onDropped });
  const bytes = await writeChunksToFile(file, chunks, opts.signal);
  return {
    name: ref.name,
    ...(ref.image === undefined ? {} : { image: ref.image }),
    ...(ref.template === undefined ? {} : { template: ref.template }),
    file: path.join(catalogName, ref.name, REFERENCE_FILE),
    packages: cfg.packages.map((p) => p.name),
    channels: cfg.channels.length,
    bundles: cfg.bundles.length,
    bytes,
  };
}

/** A reference's catalog: `opm render <image>`, or `opm alpha render-template <template>`. */
async function renderReference(
  ref: ComposeReference,
  baseDir: string,
  opts: ComposeOptions,
  onProgress: ProgressSink | undefined,
): Promise<DeclarativeConfig> {
  const warn = opts.onWarning;
  const common = {
    ...(opts.imageSource === undefined ? {} : { imageSource: opts.imageSource }),
    ...(opts.env === undefined ? {} : { env: opts.env }),
    ...(opts.signal === undefined ? {} : { signal: opts.signal }),
    ...(onProgress === undefined ? {} : { onProgress }),
    ...(warn === undefined ? {} : { onWarning: (m: string) => warn(`reference "${ref.name}": ${m}`) }),
  };
  if (ref.template !== undefined) {
    const file = path.resolve(baseDir, ref.template);
    const text = await readBoundedFile(file).catch((err: unknown) => {
      throw new OpmError(`unable to open "${ref.template ?? ''}": ${errnoText(err)}`, { cause: err });
    });
    const { config } = await renderTemplate({
      text,
      label: ref.template,
      ...(opts.bundleDirs === undefined ? {} : { bundleDirs: opts.bundleDirs }),
      ...common,
    });
    return config;
  }
  return render({
    refs: [ref.image ?? ''],
    cwd: baseDir,
    // Output only: a large local catalog's payloads stay on disk until written.
    deferPayloads: true,
    ...common,
  });
}

export type { ComposeCatalog, ComposeReference } from '../curate/compose-catalog.js';
