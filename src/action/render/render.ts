/**
 * `opm render`: turn catalog images, bundle images, bundle directories and FBC directories into
 * one declarative config, ref by ref, in argument order (no validation, no de-duplication).
 */
import { underCatalog, type Finding } from '../../findings.js';
import { Limiter } from '../../util/limit.js';
import {
  expectObject,
  expectOptionalFunction,
  expectOptionalString,
  expectStringArray,
} from '../../util/args.js';
import { stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import path from 'node:path';
import { OpmError, formatPosition, wrapError } from '../../errors.js';
import { emptyConfig, mergeConfigs, type Bundle, type DeclarativeConfig } from '../../declcfg/types.js';
import type { ImageSource, PulledImage } from '../../oci/image-source.js';
import { isBundleDir, parseBundleDir, type ParseOptions } from '../../bundle/parse.js';
import { CONFIGS_LABEL, DATABASE_LABEL, PACKAGE_LABEL } from '../../bundle/labels.js';
import { packageVersionOf, toDeclcfgBundle } from '../../bundle/convert.js';
import { compareUtf8 } from '../../go/utf8.js';
import { parseImageRefTemplate, type ImageRefTemplate } from './image-ref-template.js';
import { migrationsUpTo, runMigrations } from '../../migrations/migrations.js';
import { cleanCatalog, loadCatalogDir, type CatalogDirLoader } from '../../declcfg/load.js';
import type { WalkResult } from '../../declcfg/load-walk.js';
import { putInRenderOrder } from './render-bundle-order.js';
import { looksLikeSqlite, readIndexDatabase, SQLITE_DEPRECATION_NOTICE } from '../../sqlite/read.js';
import { throwIfAborted } from '../../util/abort.js';
import { phase, type ProgressSink } from '../../util/progress.js';

/** Kinds of input render accepts; masks combine them. */
const RefType = {
  DeclcfgImage: 1,
  DeclcfgDir: 2,
  BundleImage: 4,
  BundleDir: 8,
  SqliteFile: 16,
  SqliteImage: 32,
} as const;
export type RefMask = number;
const REF_ALL: RefMask =
  RefType.DeclcfgImage |
  RefType.DeclcfgDir |
  RefType.BundleImage |
  RefType.BundleDir |
  RefType.SqliteFile |
  RefType.SqliteImage;
/** What `migrate`, `alpha list` and `alpha render-graph` accept. */
export const REF_CATALOGS: RefMask =
  RefType.DeclcfgImage | RefType.DeclcfgDir | RefType.SqliteFile | RefType.SqliteImage;
/** What the catalog templates accept. */
export const REF_BUNDLE_IMAGES: RefMask = RefType.BundleImage;

function refAllowed(mask: RefMask, type: number): boolean {
  return (mask & type) === type;
}

/** A ref of a kind the caller does not accept. Messages end in `not allowed`, as opm's do. */
export class NotAllowedError extends OpmError {
  constructor(what: string) {
    super(`${what}: not allowed`);
    this.name = 'NotAllowedError';
  }
}

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
  /**
   * Directory relative paths are resolved against. The command line passes its own; without it,
   * they are resolved as `path.resolve` does (against the working directory of the process).
   */
  cwd?: string;
  /** The environment OPM_THREADS is read from (the command line passes the process's); none by default. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Stops the render (catalog loads, image pulls): the promise rejects with the signal's reason
   * (util/abort.ts).
   */
  signal?: AbortSignal;
  /** FBC directory loader (default: the shared declcfg loader); its error findings are thrown. */
  loadCatalogDir?: CatalogDirLoader;
  /** A walk of a local catalog directory already made (render-output.ts): it is not walked again. */
  walked?: { dir: string; result: WalkResult };
  /** Input problems opm tolerates silently. */
  onWarning?: (message: string) => void;
  /**
   * opm's deprecation notice of SQLite catalogs, given once before the first index database is read
   * (default: onWarning with its text), for a caller that says it as opm does.
   */
  onSqliteNotice?: () => void;
  /**
   * Leave the olm.bundle.object payloads of large local catalog directories on disk (the loader's
   * `deferPayloads`): the returned config's `payloads` gives them back to the writers as each bundle
   * is written. For output only; not done with migrations, which may need the payloads.
   */
  deferPayloads?: boolean | { minBytes: number };
  /** Progress as data: how many images will be pulled, and the loading of each catalog. */
  onProgress?: ProgressSink;
}

/** How many refs are rendered at once. */
const RENDER_CONCURRENCY = 4;

/** The image reference template of `opts`, parsed (throws on a bad one, whether used or not). */
export function imageRefTemplateOf(opts: RenderOptions): ImageRefTemplate | undefined {
  const t = opts.imageRefTemplate;
  if (typeof t !== 'string') return t;
  return t === '' ? undefined : parseImageRefTemplate(t);
}

/** `p` resolved against `cwd` when given, else as `path.resolve` does (RenderOptions.cwd). */
export function resolveIn(cwd: string | undefined, p: string): string {
  return cwd === undefined ? path.resolve(p) : path.resolve(cwd, p);
}

/** The options of a library call checked, for callers no compiler checks (`fn` names the call). */
export function checkSourceOptions(opts: unknown, fn: string): void {
  expectObject(opts, `${fn}(options)`);
  const o = opts as Partial<RenderOptions>;
  expectOptionalString(o.cwd, `${fn}(options).cwd`);
  expectOptionalFunction(o.onWarning, `${fn}(options).onWarning`);
  expectOptionalFunction(o.onSqliteNotice, `${fn}(options).onSqliteNotice`);
  const source: unknown = o.imageSource;
  if (
    source !== undefined &&
    (typeof source !== 'object' ||
      source === null ||
      typeof (source as { pull?: unknown }).pull !== 'function')
  ) {
    throw new TypeError(`${fn}(options).imageSource must be an ImageSource, as createImageSource() returns`);
  }
}

/**
 * Render every ref (catalog or bundle directories, catalog or bundle images) and concatenate the
 * results, as `opm render` does. Errors name the ref: `render reference "<ref>": …`; an abort
 * rejects with the signal's reason as it is. Image refs need an `imageSource` (createImageSource()).
 *
 * @example
 * const cfg = await render({ refs: ['catalog'] });
 */
export async function render(opts: RenderOptions): Promise<DeclarativeConfig> {
  checkSourceOptions(opts, 'render');
  expectStringArray(opts.refs, 'render(options).refs', "for one ref, write refs: ['<ref>']");
  expectOptionalString(opts.migrateLevel, 'render(options).migrateLevel');
  const signal = opts.signal;
  throwIfAborted(signal);
  const migrations = migrationsUpTo(opts.migrateLevel ?? '');
  const template = imageRefTemplateOf(opts);
  const ctx: Context = {
    opts,
    template,
    allow: opts.allow ?? REF_ALL,
    migrating: migrations.length > 0,
    notice: { given: false },
  };
  const warn = opts.onWarning;
  // What each ref is: opm treats anything it cannot stat as an image reference.
  const found = await Promise.all(
    opts.refs.map((ref) =>
      stat(resolveIn(opts.cwd, ref)).then(
        (st): Found => ({ st }),
        (err: unknown): Found => ({ err }),
      ),
    ),
  );
  const images = opts.refs.filter((ref, i) => found[i]?.st === undefined && !looksLikePath(ref)).length;
  if (images > 0 && opts.imageSource !== undefined) opts.onProgress?.({ type: 'images', total: images });
  // Refs are rendered concurrently (image pulls dominate), and concatenated in argument order.
  const limiter = new Limiter(RENDER_CONCURRENCY);
  const configs = await Promise.all(
    opts.refs.map((ref, i) =>
      limiter.run(async () => {
        // Bundle warnings name a file inside the bundle; show it under the ref as typed.
        const refCtx: Context =
          warn === undefined ? ctx : { ...ctx, warn: (m) => warn(`${ref.replace(/\/+$/, '')}/${m}`) };
        try {
          throwIfAborted(signal);
          const cfg = await renderReference(ref, refCtx, found[i] ?? { err: undefined });
          throwIfAborted(signal);
          for (const b of cfg.bundles) putInRenderOrder(b);
          runMigrations(cfg, migrations);
          return cfg;
        } catch (err) {
          if (signal?.aborted === true) throw signal.reason;
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
  /** Whether migrations run on the result (they may read payloads, so none are deferred). */
  migrating: boolean;
  /** Whether the SQLite deprecation notice was given (once per render, as opm gives it once). */
  notice: { given: boolean };
}

/** A ref's stat, or why there is none. */
interface Found {
  st?: Stats;
  err?: unknown;
}

async function renderReference(ref: string, ctx: Context, found: Found): Promise<DeclarativeConfig> {
  const abs = resolveIn(ctx.opts.cwd, ref);
  const st = found.st;
  if (st === undefined) return renderImage(ref, ctx, found.err);
  if (!st.isDirectory()) return renderDatabaseFile(abs, ref, ctx);
  if (await isBundleDir(abs)) {
    if (!refAllowed(ctx.allow, RefType.BundleDir))
      throw new NotAllowedError(`cannot render bundle directory "${ref}"`);
    return renderBundleDir(abs, ref, ctx);
  }
  if (!refAllowed(ctx.allow, RefType.DeclcfgDir))
    throw new NotAllowedError('cannot render declarative config directory');
  return loadCatalog(abs, ref, { ...ctx, local: true });
}

/**
 * A problem opm reads past in a catalog directory (a nested key written twice, invalid UTF-8 in JSON),
 * as render says it: positioned under the ref as typed (`display`).
 */
export function loadWarningText(display: string, f: Finding): string {
  const file = f.file === undefined ? display : underCatalog(display, f.file);
  return `${formatPosition({ file, line: f.line })}${f.message}`;
}

async function loadCatalog(dir: string, display: string, ctx: Context): Promise<DeclarativeConfig> {
  const warn = ctx.opts.onWarning;
  const onLoadWarning =
    warn === undefined ? undefined : (f: Finding): void => warn(loadWarningText(display, f));
  // Only a local directory is sure to be there still when the payloads are read back.
  const defer = ctx.local === true && !ctx.migrating ? ctx.opts.deferPayloads : undefined;
  const load =
    ctx.opts.loadCatalogDir ??
    ((d: string) =>
      loadCatalogDir(d, {
        ...(ctx.opts.signal === undefined ? {} : { signal: ctx.opts.signal }),
        ...(ctx.opts.env === undefined ? {} : { env: ctx.opts.env }),
        ...(defer === undefined ? {} : { deferPayloads: defer }),
        ...(ctx.opts.walked?.dir === d ? { walked: ctx.opts.walked.result } : {}),
      }));
  try {
    return cleanCatalog(
      await phase(ctx.opts.onProgress, `loading catalog ${display}`, () => load(dir)),
      onLoadWarning,
    );
  } catch (err) {
    // Loader positions are relative to the catalog root; show them under the ref as typed.
    if (err instanceof OpmError && err.at !== undefined) {
      throw new OpmError(err.message, {
        code: err.code,
        at: { ...err.at, file: underCatalog(display, err.at.file) },
        ...(err.hint === undefined ? {} : { hint: err.hint }),
        cause: err,
      });
    }
    throw err;
  }
}

/** A file: opm reads it as an index database when it is a SQLite file, and refuses anything else. */
async function renderDatabaseFile(abs: string, ref: string, ctx: Context): Promise<DeclarativeConfig> {
  if (!looksLikeSqlite(abs)) {
    throw new OpmError(`ref "${ref}" has unsupported file type: not a directory or a SQLite database`, {
      hint: 'render takes a catalog or bundle directory, a SQLite index database, or an image reference',
    });
  }
  if (!refAllowed(ctx.allow, RefType.SqliteFile)) throw new NotAllowedError('cannot render sqlite file');
  return readDatabase(abs, ref, ctx);
}

/** An index database read (never written), with opm's deprecation notice before the first. */
async function readDatabase(file: string, display: string, ctx: Context): Promise<DeclarativeConfig> {
  const warn = ctx.opts.onWarning;
  if (!ctx.notice.given) {
    ctx.notice.given = true;
    if (ctx.opts.onSqliteNotice !== undefined) ctx.opts.onSqliteNotice();
    else warn?.(SQLITE_DEPRECATION_NOTICE);
  }
  // For output of one ref, the objects stay bytes until written (nothing to merge them with).
  const defer = ctx.opts.deferPayloads !== undefined && ctx.opts.deferPayloads !== false;
  const deferObjects = defer && !ctx.migrating && ctx.opts.refs.length === 1;
  return phase(ctx.opts.onProgress, `reading index database ${display}`, () =>
    Promise.resolve(
      readIndexDatabase(file, { ...(warn === undefined ? {} : { onWarning: warn }), deferObjects }),
    ),
  );
}

/** A bundle directory renders with `image` '' unless an image reference template is given. */
async function renderBundleDir(dir: string, ref: string, ctx: Context): Promise<DeclarativeConfig> {
  const warn = ctx.warn;
  const parsed = await parseBundleDir(dir, parseOptions(ctx));
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

/** How a bundle directory of a ref is read: warnings under the ref, stopped by the signal. */
function parseOptions(ctx: Context): ParseOptions {
  return {
    ...(ctx.warn === undefined ? {} : { onWarning: ctx.warn }),
    ...(ctx.opts.signal === undefined ? {} : { signal: ctx.opts.signal }),
  };
}

function looksLikePath(ref: string): boolean {
  return (
    ref.startsWith('.') || ref.startsWith('/') || ref.startsWith('~') || ref.includes(path.sep + path.sep)
  );
}

/**
 * A ref without a registry host, or without a tag or digest (`goood`, `catalog/fooo`), is as likely
 * a misspelt directory as an image: a failed pull of one also says that no such directory exists.
 */
function mayBeMisspeltPath(ref: string, err: unknown): unknown {
  if (!(err instanceof OpmError)) return err;
  const slash = ref.indexOf('/');
  const first = slash < 0 ? '' : ref.slice(0, slash);
  const host = first.includes('.') || first.includes(':') || first === 'localhost';
  const tagged = ref.includes('@') || ref.slice(ref.lastIndexOf('/') + 1).includes(':');
  if (host && tagged) return err;
  const hint = `no such directory: ${ref}${err.hint === undefined ? '' : `; ${err.hint}`}`;
  return new OpmError(err.message, {
    code: err.code,
    hint,
    ...(err.at === undefined ? {} : { at: err.at }),
    cause: err,
  });
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
  const signal = ctx.opts.signal;
  let img: PulledImage;
  try {
    img = await source.pull(ref, { signal });
  } catch (err) {
    throw signal?.aborted === true ? signal.reason : mayBeMisspeltPath(ref, err);
  }
  try {
    throwIfAborted(signal);
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
  if (labels[PACKAGE_LABEL] !== undefined) {
    if (!refAllowed(ctx.allow, RefType.BundleImage)) throw new NotAllowedError('cannot render bundle image');
    const warn = ctx.warn;
    const parsed = await parseBundleDir(img.root, parseOptions(ctx));
    const cfg = emptyConfig();
    cfg.bundles.push(toDeclcfgBundle(parsed, ref, warn === undefined ? {} : { onWarning: warn }));
    return cfg;
  }
  const database = labels[DATABASE_LABEL];
  if (database !== undefined) {
    if (!refAllowed(ctx.allow, RefType.SqliteImage)) throw new NotAllowedError('cannot render sqlite image');
    const file = path.join(img.root, database);
    const rel = path.relative(img.root, file);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) {
      throw new OpmError(`label ${DATABASE_LABEL}="${database}" points outside the image`);
    }
    const found = await stat(file).catch(() => undefined);
    if (found?.isFile() !== true) {
      throw new OpmError(`render "${ref}": label ${DATABASE_LABEL}="${database}" names no file in the image`);
    }
    return readDatabase(file, `${ref}:${database}`, ctx);
  }
  const keys = Object.keys(labels).sort(compareUtf8);
  const hint = `a bundle image has label ${PACKAGE_LABEL}, a catalog image ${CONFIGS_LABEL}`;
  if (keys.length === 0)
    throw new OpmError(`render "${ref}": image type could not be determined: image has no labels`, { hint });
  // opm prints one label per line; one line reads better in logs and keeps errors to a line.
  const found = keys.map((k) => `${k}=${labels[k] ?? ''}`).join(', ');
  throw new OpmError(`render "${ref}": image type could not be determined, found labels: ${found}`, { hint });
}
