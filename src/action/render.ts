/**
 * `opm render`: turn catalog images, bundle images, bundle directories and FBC directories into
 * one declarative config, ref by ref, in argument order (no validation, no de-duplication).
 */
import type { Finding } from '../findings.js';
import { Limiter } from '../util/limit.js';
import { stat } from 'node:fs/promises';
import { isAscii } from 'node:buffer';
import { closeSync, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import path from 'node:path';
import { OpmError, wrapError } from '../errors.js';
import { emptyConfig, mergeConfigs, type Bundle, type DeclarativeConfig } from '../declcfg/types.js';
import type { ImageSource, PulledImage } from '../oci/image-source.js';
import { isBundleDir, parseBundleDir, PACKAGE_ANNOTATION } from '../bundle/parse.js';
import { packageVersionOf, toDeclcfgBundle } from '../bundle/convert.js';
import { compareUtf8 } from '../go/json.js';
import { parseImageRefTemplate, type ImageRefTemplate } from './image-ref-template.js';
import { migrationsUpTo, runMigrations } from './migrations.js';
import { loadCatalogDirOrThrow } from '../declcfg/load.js';
import { LARGE_FILE_BYTES } from '../declcfg/load-large.js';
import { walkCatalogDir } from '../declcfg/load-walk.js';
import { parseCatalogBytes, parseCatalogText } from '../declcfg/parse.js';
import { decodeBlob } from '../declcfg/decode.js';
import { TYPE_BUNDLE_OBJECT, TYPE_CSV_METADATA } from '../property/property.js';

/** Kinds of input render accepts; masks combine them. */
export const RefType = {
  DeclcfgImage: 1,
  DeclcfgDir: 2,
  BundleImage: 4,
  BundleDir: 8,
} as const;
export type RefMask = number;
export const REF_ALL: RefMask =
  RefType.DeclcfgImage | RefType.DeclcfgDir | RefType.BundleImage | RefType.BundleDir;
/** What `migrate`, `alpha list` and `alpha render-graph` accept. */
export const REF_CATALOGS: RefMask = RefType.DeclcfgImage | RefType.DeclcfgDir;
/** What the catalog templates accept. */
export const REF_BUNDLE_IMAGES: RefMask = RefType.BundleImage;

export function refAllowed(mask: RefMask, type: number): boolean {
  return (mask & type) === type;
}

export const CONFIGS_LABEL = 'operators.operatorframework.io.index.configs.v1';
export const DATABASE_LABEL = 'operators.operatorframework.io.index.database.v1';

/** A ref of a kind the caller does not accept. Messages end in `not allowed`, as opm's do. */
export class NotAllowedError extends OpmError {
  constructor(what: string) {
    super(`${what}: not allowed`);
    this.name = 'NotAllowedError';
  }
}

/** Loads an FBC directory (the shared loader; injectable for tests). */
export type CatalogDirLoader = (dir: string) => Promise<DeclarativeConfig>;

export interface RenderOptions {
  refs: readonly string[];
  /** Last migration to run ('' = none, `all` = every one). */
  migrateLevel?: string;
  /** Image reference template for bundle directories: text, or an already parsed template. */
  imageRefTemplate?: string | ImageRefTemplate;
  /** Where image refs are pulled from; without one, image refs are refused. */
  imageSource?: ImageSource;
  /** Accepted kinds of input (default: all). */
  allow?: RefMask;
  /** Directory relative paths are resolved against (default: the process's). */
  cwd?: string;
  /** FBC directory loader (default: the shared declcfg loader). */
  loadCatalogDir?: CatalogDirLoader;
  /** Input problems opm tolerates silently. */
  onWarning?: (message: string) => void;
  /**
   * Leave the olm.bundle.object payloads of large local catalog directories on disk, to be read
   * back as each bundle is written (see DeferredPayloads). Not used with migrations, which may
   * need the payloads.
   */
  deferPayloads?: DeferredPayloads;
}

/** How many refs are rendered at once. */
const RENDER_CONCURRENCY = 4;

/** Render every ref and concatenate the results. Errors name the ref: `render reference "<ref>": …`. */
export async function render(opts: RenderOptions): Promise<DeclarativeConfig> {
  const migrations = migrationsUpTo(opts.migrateLevel ?? '');
  const template =
    typeof opts.imageRefTemplate === 'string'
      ? opts.imageRefTemplate === ''
        ? undefined
        : parseImageRefTemplate(opts.imageRefTemplate)
      : opts.imageRefTemplate;
  const ctx: Context = { opts, template, allow: opts.allow ?? REF_ALL };
  const warn = opts.onWarning;
  // Refs are rendered concurrently (image pulls dominate), and concatenated in argument order.
  const limiter = new Limiter(RENDER_CONCURRENCY);
  const configs = await Promise.all(
    opts.refs.map((ref) =>
      limiter.run(async () => {
        // Bundle warnings name a file inside the bundle; show it under the ref as typed.
        const refCtx: Context =
          warn === undefined ? ctx : { ...ctx, warn: (m) => warn(`${ref.replace(/\/+$/, '')}/${m}`) };
        try {
          const cfg = await renderReference(ref, refCtx);
          for (const b of cfg.bundles) {
            moveObjectPropertiesToEnd(b);
            sortRelatedImages(b);
          }
          runMigrations(cfg, migrations);
          return cfg;
        } catch (err) {
          throw wrapError(`render reference "${ref}"`, err);
        }
      }),
    ),
  );
  return configs.length === 1 && configs[0] !== undefined ? configs[0] : mergeConfigs(configs);
}

interface Context {
  opts: RenderOptions;
  /** Whether a catalog directory stays where it is after rendering (not a pulled image's). */
  local?: boolean;
  warn?: (message: string) => void;
  template: ImageRefTemplate | undefined;
  allow: RefMask;
}

async function renderReference(ref: string, ctx: Context): Promise<DeclarativeConfig> {
  const abs = path.resolve(ctx.opts.cwd ?? process.cwd(), ref);
  let st: Stats;
  try {
    st = await stat(abs);
  } catch (err) {
    // opm treats anything it cannot stat as an image reference.
    return renderImage(ref, ctx, err);
  }
  if (!st.isDirectory()) throw new NotAllowedError(`ref "${ref}" is not a directory`);
  if (await isBundleDir(abs)) {
    if (!refAllowed(ctx.allow, RefType.BundleDir))
      throw new NotAllowedError(`cannot render bundle directory "${ref}"`);
    return renderBundleDir(abs, ref, ctx);
  }
  if (!refAllowed(ctx.allow, RefType.DeclcfgDir))
    throw new NotAllowedError('cannot render declarative config directory');
  return loadCatalog(abs, ref, { ...ctx, local: true });
}

async function loadCatalog(dir: string, display: string, ctx: Context): Promise<DeclarativeConfig> {
  const deferred = ctx.opts.deferPayloads;
  const warn = ctx.opts.onWarning;
  // Problems opm reads past (a nested key written twice, invalid UTF-8 in JSON) are said, under the ref.
  const onLoadWarning =
    warn === undefined
      ? undefined
      : (f: Finding): void =>
          warn(
            `${f.file === undefined ? display : path.posix.join(display, f.file)}${f.line === undefined ? '' : `:${f.line}`}: ${f.message}`,
          );
  const load =
    ctx.opts.loadCatalogDir ??
    (deferred !== undefined && ctx.local && migrationsUpTo(ctx.opts.migrateLevel ?? '').length === 0
      ? (d: string) => deferred.load(d, onLoadWarning)
      : (d: string) => loadCatalogDirOrThrow(d, { onWarning: onLoadWarning }));
  try {
    return await load(dir);
  } catch (err) {
    // Loader positions are relative to the catalog root; show them under the ref as typed.
    if (err instanceof OpmError && err.at !== undefined) {
      throw new OpmError(err.message, {
        code: err.code,
        at: { ...err.at, file: path.posix.join(display, err.at.file) },
        ...(err.hint === undefined ? {} : { hint: err.hint }),
        cause: err,
      });
    }
    throw err;
  }
}

/** A bundle directory renders with `image` '' unless an image reference template is given. */
async function renderBundleDir(dir: string, ref: string, ctx: Context): Promise<DeclarativeConfig> {
  const warn = ctx.warn;
  const parsed = await parseBundleDir(dir, warn === undefined ? {} : { onWarning: warn });
  const template = ctx.template;
  const image =
    template === undefined
      ? ''
      : (b: Bundle): string => {
          try {
            return template.execute({ Package: b.package, Name: b.name, Version: packageVersionOf(b) });
          } catch (err) {
            throw wrapError(`failed templating image reference from bundle for "${ref}"`, err);
          }
        };
  const cfg = emptyConfig();
  cfg.bundles.push(toDeclcfgBundle(parsed, image, warn === undefined ? {} : { onWarning: warn }));
  return cfg;
}

function looksLikePath(ref: string): boolean {
  return (
    ref.startsWith('.') || ref.startsWith('/') || ref.startsWith('~') || ref.includes(path.sep + path.sep)
  );
}

async function renderImage(ref: string, ctx: Context, statError: unknown): Promise<DeclarativeConfig> {
  const source = ctx.opts.imageSource;
  if (looksLikePath(ref)) {
    const why = statError instanceof Error ? statError.message : 'not found';
    throw new OpmError(`cannot read "${ref}": ${why}`);
  }
  if (source === undefined) {
    throw new OpmError(
      `"${ref}" is not a file or directory, and pulling images is not available in this version of opm-ts`,
    );
  }
  // Sources name the image in their errors (`failed to pull image "<ref>": …`), as opm does.
  const img = await source.pull(ref);
  try {
    return await renderPulledImage(ref, img, ctx);
  } finally {
    await img.release();
  }
}

async function renderPulledImage(ref: string, img: PulledImage, ctx: Context): Promise<DeclarativeConfig> {
  const labels = img.labels;
  const configs = labels[CONFIGS_LABEL];
  if (configs !== undefined) {
    if (!refAllowed(ctx.allow, RefType.DeclcfgImage))
      throw new NotAllowedError('cannot render declarative config image');
    const dir = path.join(img.root, configs);
    const rel = path.relative(img.root, dir);
    if (rel.startsWith('..') || path.isAbsolute(rel)) {
      throw new OpmError(`label ${CONFIGS_LABEL}="${configs}" points outside the image`);
    }
    return loadCatalog(dir, `${ref}:${configs}`, ctx);
  }
  if (labels[PACKAGE_ANNOTATION] !== undefined) {
    if (!refAllowed(ctx.allow, RefType.BundleImage)) throw new NotAllowedError('cannot render bundle image');
    const warn = ctx.warn;
    const parsed = await parseBundleDir(img.root, warn === undefined ? {} : { onWarning: warn });
    const cfg = emptyConfig();
    cfg.bundles.push(toDeclcfgBundle(parsed, ref, warn === undefined ? {} : { onWarning: warn }));
    return cfg;
  }
  if (labels[DATABASE_LABEL] !== undefined) {
    throw new NotAllowedError(
      `render "${ref}": sqlite-based index images are no longer supported, migrate to a file-based catalog`,
    );
  }
  const keys = Object.keys(labels).sort(compareUtf8);
  const hint = `a bundle image has label ${PACKAGE_ANNOTATION}, a catalog image ${CONFIGS_LABEL}`;
  if (keys.length === 0)
    throw new OpmError(`render "${ref}": image type could not be determined: image has no labels`, { hint });
  // opm prints one label per line; one line reads better in logs and keeps errors to a line.
  const found = keys.map((k) => `${k}=${labels[k] ?? ''}`).join(', ');
  throw new OpmError(`render "${ref}": image type could not be determined, found labels: ${found}`, { hint });
}

/** opm moves `olm.bundle.object` and `olm.csv.metadata` properties after all others, keeping their order. */
export function moveObjectPropertiesToEnd(b: Bundle): void {
  const props = b.properties;
  if (props === undefined) return;
  const isObj = (t: string): boolean => t === TYPE_BUNDLE_OBJECT || t === TYPE_CSV_METADATA;
  b.properties = [...props.filter((p) => !isObj(p.type)), ...props.filter((p) => isObj(p.type))];
}

/** relatedImages sorted by image (byte order; equal images keep their order). */
export function sortRelatedImages(b: Bundle): void {
  b.relatedImages?.sort((x, y) => compareUtf8(x.image, y.image));
}

/** Catalogs at least this large (all files together) have their payloads deferred. */
const DEFER_PAYLOADS_BYTES = 128 * 1024 * 1024;

/**
 * The olm.bundle.object payloads of large local catalogs, left on disk while the catalog is
 * sorted for output and read back, a file at a time, as each bundle is written. Payloads are
 * nearly all of a large catalog's size and are only copied to the output, so a render then
 * holds the catalog without them. A bundle's file is parsed again when its first deferred
 * bundle is written, and its payloads are let go once the last one is; opm's output groups
 * bundles by package, and packages usually have files of their own, so few files are held.
 */
export class DeferredPayloads {
  /** Catalog file (absolute) of each bundle whose payloads were left out. */
  private readonly fileOf = new Map<Bundle, string>();
  /**
   * Per file, per line where a deferred bundle starts, how many bundles still wait for it: the
   * same directory given twice loads the same blobs twice.
   */
  private readonly waiting = new Map<string, Map<number, number>>();
  /** Per file read back, its waited-for bundles in full, by line. */
  private readonly restored = new Map<string, Map<number, Bundle>>();
  private readonly minBytes: number;
  /** Files are read back into one reused buffer: fresh memory for every file costs more than reading it. */
  private readBuffer: Buffer = Buffer.alloc(0);

  constructor(minBytes = DEFER_PAYLOADS_BYTES) {
    this.minBytes = minBytes;
  }

  /** Load a catalog directory, deferring its payloads when it is large enough and safe to reread. */
  async load(dir: string, onWarning?: (f: Finding) => void): Promise<DeclarativeConfig> {
    const warnings = onWarning === undefined ? {} : { onWarning };
    const walked = await walkCatalogDir(dir);
    let total = 0;
    let rereadable = true;
    for (const f of walked.files) {
      total += f.size;
      // The loader reads larger files in parts; reading them back whole is not worth the risk.
      if (f.size > LARGE_FILE_BYTES) rereadable = false;
    }
    if (!rereadable || total < this.minBytes) return loadCatalogDirOrThrow(dir, warnings);
    const cfg = await loadCatalogDirOrThrow(dir, { elidePayloads: true, ...warnings });
    for (const b of cfg.bundles) {
      // Bundles without a package are left out of the output, so they are never read back.
      if (b.payloadsElided !== true || b.loc === undefined || b.package === '') continue;
      const file = path.join(dir, b.loc.file);
      this.fileOf.set(b, file);
      let lines = this.waiting.get(file);
      if (lines === undefined) {
        lines = new Map();
        this.waiting.set(file, lines);
      }
      lines.set(b.loc.line, (lines.get(b.loc.line) ?? 0) + 1);
    }
    return cfg;
  }

  /**
   * `b` with its payloads back (as render leaves a bundle: object properties last), or `b` itself
   * when nothing of it was deferred. Throws when the file no longer holds the bundle.
   */
  restore(b: Bundle): Bundle {
    const file = this.fileOf.get(b);
    const line = b.loc?.line;
    if (file === undefined || line === undefined) return b;
    this.fileOf.delete(b);
    let bundles = this.restored.get(file);
    if (bundles === undefined) {
      bundles = this.reread(file);
      this.restored.set(file, bundles);
    }
    const full = bundles.get(line);
    if (full === undefined || full.name !== b.name || full.package !== b.package) {
      throw new OpmError(
        `catalog file "${file}" changed while rendering: bundle "${b.name}" is no longer at line ${line}`,
      );
    }
    const lines = this.waiting.get(file);
    const left = (lines?.get(line) ?? 1) - 1;
    if (left > 0) lines?.set(line, left);
    else {
      lines?.delete(line);
      bundles.delete(line);
    }
    if (lines === undefined || lines.size === 0) {
      this.waiting.delete(file);
      this.restored.delete(file);
    }
    const out: Bundle = { ...b };
    delete out.payloadsElided;
    if (full.properties === undefined) delete out.properties;
    else out.properties = full.properties;
    return out;
  }

  private reread(file: string): Map<number, Bundle> {
    const lines = this.waiting.get(file);
    const out = new Map<number, Bundle>();
    let bytes: Buffer;
    try {
      bytes = this.read(file);
    } catch (err) {
      throw wrapError(`catalog file "${file}" cannot be read again while rendering`, err);
    }
    // The loader has checked the file's encoding; ASCII text (the usual) is taken as it is.
    const parsed = isAscii(bytes) ? parseCatalogText(bytes.toString('latin1')) : parseCatalogBytes(bytes);
    for (const raw of parsed.blobs) {
      if (lines?.has(raw.line) !== true) continue;
      const decoded = decodeBlob(raw.value).blob;
      if (decoded?.kind !== 'bundle') continue;
      // As render leaves every bundle (relatedImages are the elided bundle's, sorted already).
      moveObjectPropertiesToEnd(decoded.value);
      out.set(raw.line, decoded.value);
    }
    return out;
  }

  /** The file's bytes, in the reused buffer (valid until the next read). */
  private read(file: string): Buffer {
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      if (this.readBuffer.length < size) this.readBuffer = Buffer.allocUnsafe(size);
      let n = 0;
      while (n < size) {
        const got = readSync(fd, this.readBuffer, n, size - n, n);
        if (got === 0) break;
        n += got;
      }
      return this.readBuffer.subarray(0, n);
    } finally {
      closeSync(fd);
    }
  }
}
