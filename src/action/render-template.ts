/**
 * `opm alpha render-template`: a basic, semver or substitutes template to a catalog
 * (operator-registry `alpha/template/`).
 *
 * Bundle images are rendered concurrently (bounded), each once. An image named in the bundle
 * directory map is read from its directory and keeps the image reference as its `image`; any other
 * image is pulled. Every failure names the template entry at fault, and nothing is returned
 * unless everything rendered.
 */
import { stat } from 'node:fs/promises';
import { OpmError, formatPosition } from '../errors.js';
import { addBlob, emptyConfig, type Bundle, type DeclarativeConfig } from '../declcfg/types.js';
import { decodeBlob } from '../declcfg/decode.js';
import type { ImageSource } from '../oci/image-source.js';
import { Limiter } from '../util/limit.js';
import { throwIfAborted } from '../util/abort.js';
import { expectObject, expectOptionalFunction, expectOptionalString } from '../util/args.js';
import { isBundleDir, parseBundleDir } from '../bundle/parse.js';
import { toDeclcfgBundle } from '../bundle/convert.js';
import { bundleCsv, migrationsUpTo, runMigrations, type Migration } from '../migrations/migrations.js';
import { REF_BUNDLE_IMAGES, render } from './render/render.js';
import { putInRenderOrder } from './render/render-bundle-order.js';
import { readTemplateDocument } from '../template/input.js';
import { detectTemplateType, type TemplateType } from '../template/detect.js';
import { parseBasicTemplate } from '../template/basic.js';
import type { TemplateEntry } from '../template/entries.js';
import {
  buildSemverCatalog,
  DEFAULT_SEMVER_COMPAT,
  parseSemverTemplate,
  semverTemplateImages,
  type RenderedBundle,
  type SemverCompat,
} from '../template/semver-template.js';
import { applySubstitutions, parseSubstitutesTemplate } from '../template/substitutes.js';
import type { BundleDirMap } from '../template/bundle-dirs.js';
import type { ProgressSink } from '../util/progress.js';

/** Images rendered at once by default: enough to overlap registry round trips, few enough to be polite. */
const DEFAULT_TEMPLATE_CONCURRENCY = 4;

export interface RenderTemplateOptions {
  /** The template's text. */
  text: string;
  /** Its name in messages: the path as given, or `<stdin>`. */
  label: string;
  /** The template type; detected from the `schema` when omitted. */
  type?: TemplateType;
  /** Last migration to run on each rendered bundle ('' = none). */
  migrateLevel?: string;
  /** Images to read from bundle directories instead of pulling. */
  bundleDirs?: BundleDirMap;
  /** Where other images are pulled from. */
  imageSource?: ImageSource;
  /** Semver template edge style (default `current`). */
  semverCompat?: SemverCompat;
  /** Images rendered at once. */
  concurrency?: number;
  /** The environment OPM_THREADS is read from; none by default. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Stops the rendering (pulls, bundle directories): the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  onWarning?: (message: string) => void;
  /** Progress as data: how many images will be pulled (the image source reports each pull). */
  onProgress?: ProgressSink;
}

export interface RenderTemplateResult {
  type: TemplateType;
  config: DeclarativeConfig;
}

/** Where in the template an image is used, for errors. */
interface Use {
  image: string;
  line: number;
}

class ImageRenderer {
  private readonly limiter: Limiter;
  private readonly started = new Map<string, Promise<RenderedBundle[]>>();
  private readonly opts: RenderTemplateOptions;
  private readonly migrations: Migration[];

  constructor(opts: RenderTemplateOptions, migrations: Migration[]) {
    this.opts = opts;
    this.migrations = migrations;
    this.limiter = new Limiter(Math.max(1, opts.concurrency ?? DEFAULT_TEMPLATE_CONCURRENCY));
  }

  /** Start rendering every image now; results are awaited (and errors raised) in template order. */
  prefetch(uses: Use[]): void {
    const pulled = new Set(
      uses.map((u) => u.image).filter((image) => this.opts.bundleDirs?.dirs.has(image) !== true),
    );
    if (pulled.size > 0 && this.opts.imageSource !== undefined)
      this.opts.onProgress?.({ type: 'images', total: pulled.size });
    // Started now, awaited by get(): begin() keeps a failure from counting as unhandled till then.
    for (const u of uses) void this.begin(u);
  }

  /** The rendered bundles of an image; a failure is reported at this use's line. */
  async get(u: Use): Promise<RenderedBundle[]> {
    try {
      return await this.begin(u);
    } catch (e) {
      throwIfAborted(this.opts.signal);
      throw this.locate(e, u);
    }
  }

  private begin(u: Use): Promise<RenderedBundle[]> {
    let p = this.started.get(u.image);
    if (p === undefined) {
      p = this.limiter.run(() => this.renderImage(u));
      // Failures surface when the result is awaited; until then they must not count as unhandled.
      p.catch(() => undefined);
      this.started.set(u.image, p);
    }
    return p;
  }

  private locate(e: unknown, u: Use): unknown {
    if (!(e instanceof OpmError)) return e;
    const inner = e.at === undefined || e.at.file === this.opts.label ? '' : formatPosition(e.at);
    return new OpmError(`${inner}${e.message}`, {
      code: e.code,
      at: { file: this.opts.label, line: u.line },
      ...(e.hint === undefined ? {} : { hint: e.hint }),
      cause: e,
    });
  }

  private async renderImage(u: Use): Promise<RenderedBundle[]> {
    throwIfAborted(this.opts.signal);
    const dirs = this.opts.bundleDirs;
    const dir = dirs?.dirs.get(u.image);
    let rendered: RenderedBundle[];
    if (dirs !== undefined && dir !== undefined) {
      rendered = [await this.renderDir(u.image, dir, dirs.file)];
    } else if (this.opts.imageSource !== undefined) {
      const cfg = await render({
        refs: [u.image],
        allow: REF_BUNDLE_IMAGES,
        imageSource: this.opts.imageSource,
        ...(this.opts.env === undefined ? {} : { env: this.opts.env }),
        ...(this.opts.signal === undefined ? {} : { signal: this.opts.signal }),
        ...(this.opts.onWarning === undefined ? {} : { onWarning: this.opts.onWarning }),
      });
      rendered = cfg.bundles.map((bundle) => ({ bundle, csv: bundleCsv(bundle) }));
    } else {
      throw new OpmError(
        `bundle image "${u.image}" is not in the bundle directory map and cannot be pulled`,
        {
          hint: dirs === undefined ? 'pass --bundle-dirs to render offline' : `add it to ${dirs.file}`,
        },
      );
    }
    // Migrations apply to the rendered bundles only, after their CSV was taken.
    const cfg = emptyConfig();
    cfg.bundles.push(...rendered.map((r) => r.bundle));
    runMigrations(cfg, this.migrations);
    return rendered;
  }

  private async renderDir(image: string, dir: string, mapFile: string): Promise<RenderedBundle> {
    const missing = (why: string): OpmError =>
      new OpmError(`bundle directory "${dir}" for image "${image}" ${why}`, {
        hint: `fix its entry in ${mapFile}`,
      });
    try {
      if (!(await stat(dir)).isDirectory()) throw missing('is not a directory');
    } catch (e) {
      if (e instanceof OpmError) throw e;
      throw missing('does not exist');
    }
    if (!(await isBundleDir(dir))) throw missing('is not a bundle directory (no manifests/ and metadata/)');
    const warn = this.opts.onWarning;
    const parsed = await parseBundleDir(dir, {
      ...(warn === undefined ? {} : { onWarning: warn }),
      ...(this.opts.signal === undefined ? {} : { signal: this.opts.signal }),
    });
    const bundle = toDeclcfgBundle(parsed, image, warn === undefined ? {} : { onWarning: warn });
    putInRenderOrder(bundle);
    return { bundle, csv: parsed.csv.object };
  }
}

/** Decode pass-through template entries into a catalog (opm's LoadSlice), in entry order. */
function addEntry(cfg: DeclarativeConfig, entry: TemplateEntry, label: string, prefix: string): void {
  const { blob, issues } = decodeBlob(entry.value);
  const err = issues.find((i) => i.severity === 'error');
  if (blob === undefined || err !== undefined) {
    throw new OpmError(`${prefix}${err?.message ?? 'invalid entry'}`, {
      at: { file: label, line: entry.line },
    });
  }
  // Entries keep their template position while the catalog is checked (substitutes), then lose it.
  blob.value.loc = { file: label, line: entry.line };
  addBlob(cfg, blob);
}

function stripLoc(cfg: DeclarativeConfig): DeclarativeConfig {
  for (const list of [cfg.packages, cfg.channels, cfg.bundles, cfg.deprecations, cfg.others]) {
    for (const x of list) delete x.loc;
  }
  return cfg;
}

async function renderBasic(opts: RenderTemplateOptions, renderer: ImageRenderer): Promise<DeclarativeConfig> {
  const doc = readTemplateDocument(opts.text, opts.label, opts.onWarning);
  const t = parseBasicTemplate(doc);
  const uses = t.bundles.map((b) => ({ image: b.image, line: b.entry.line }));
  renderer.prefetch(uses);
  const cfg = emptyConfig();
  const bundleAt = new Map(t.bundles.map((b, i) => [b.entry.index, uses[i]]));
  const ordered = [...t.others, ...t.bundles.map((b) => b.entry)].sort((a, b) => a.index - b.index);
  for (const entry of ordered) {
    const use = bundleAt.get(entry.index);
    if (use === undefined) {
      addEntry(cfg, entry, opts.label, '');
      continue;
    }
    for (const r of await renderer.get(use)) cfg.bundles.push(r.bundle);
  }
  return stripLoc(cfg);
}

async function renderSemver(
  opts: RenderTemplateOptions,
  renderer: ImageRenderer,
): Promise<DeclarativeConfig> {
  const doc = readTemplateDocument(opts.text, opts.label, opts.onWarning);
  const t = parseSemverTemplate(doc);
  const images = semverTemplateImages(t);
  if (images.length === 0) {
    throw new OpmError('render: no bundles specified or no bundles could be rendered', {
      at: { file: opts.label },
    });
  }
  renderer.prefetch(images);
  const rendered: { image: string; bundles: RenderedBundle[] }[] = [];
  for (const img of images) rendered.push({ image: img.image, bundles: await renderer.get(img) });
  return buildSemverCatalog(t, rendered, opts.semverCompat ?? DEFAULT_SEMVER_COMPAT);
}

async function renderSubstitutes(
  opts: RenderTemplateOptions,
  renderer: ImageRenderer,
): Promise<DeclarativeConfig> {
  const doc = readTemplateDocument(opts.text, opts.label, opts.onWarning);
  const t = parseSubstitutesTemplate(doc);
  const cfg = emptyConfig();
  for (const entry of t.entries) addEntry(cfg, entry, opts.label, 'render: unable to parse template: ');
  const uses = t.substitutions.filter((s) => s.name !== '').map((s) => ({ image: s.name, line: s.line }));
  renderer.prefetch(uses);
  const out = await applySubstitutions(t, cfg, async (image, s) => {
    const rendered = await renderer.get({ image, line: s.line });
    const csvs = new Map<Bundle, Record<string, unknown>>();
    for (const r of rendered) if (r.csv !== undefined) csvs.set(r.bundle, r.csv);
    return { bundles: rendered.map((r) => r.bundle), csvs };
  });
  return stripLoc(out);
}

/**
 * Render a template (its text, as `opm alpha render-template` reads it) to a catalog. Errors are
 * OpmErrors positioned at the template entry at fault.
 *
 * @example
 * const { config } = await renderTemplate({ text: readFileSync('template.yaml', 'utf8'), label: 'template.yaml' });
 */
export async function renderTemplate(opts: RenderTemplateOptions): Promise<RenderTemplateResult> {
  expectObject(opts, 'renderTemplate(options)');
  if (typeof opts.text !== 'string') {
    throw new TypeError(
      "renderTemplate(options).text must be the template's text, a string (read the file first)",
    );
  }
  if (typeof opts.label !== 'string') {
    throw new TypeError(
      'renderTemplate(options).label must be a string: the name of the template in messages',
    );
  }
  expectOptionalString(opts.type, 'renderTemplate(options).type');
  expectOptionalString(opts.migrateLevel, 'renderTemplate(options).migrateLevel');
  expectOptionalFunction(opts.onWarning, 'renderTemplate(options).onWarning');
  const migrations = migrationsUpTo(opts.migrateLevel ?? '');
  const type = opts.type ?? detectTemplateType(readTemplateDocument(opts.text, opts.label));
  const renderer = new ImageRenderer(opts, migrations);
  try {
    throwIfAborted(opts.signal);
    const config =
      type === 'basic'
        ? await renderBasic(opts, renderer)
        : type === 'semver'
          ? await renderSemver(opts, renderer)
          : await renderSubstitutes(opts, renderer);
    throwIfAborted(opts.signal);
    return { type, config };
  } catch (e) {
    throwIfAborted(opts.signal);
    if (e instanceof OpmError && !e.message.startsWith('auto-detecting')) {
      throw new OpmError(`rendering template: ${e.message}`, {
        code: e.code,
        ...(e.at === undefined ? {} : { at: e.at }),
        ...(e.hint === undefined ? {} : { hint: e.hint }),
        cause: e,
      });
    }
    throw e;
  }
}
