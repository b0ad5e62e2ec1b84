/**
 * A catalog named by a reference, as `render` takes it (image, catalog or bundle directory), and what
 * reading it needs: the options every use case that works on one catalog shares.
 */
import type { DeclarativeConfig } from '../declcfg/types.js';
import type { CatalogDirLoader } from '../declcfg/load.js';
import type { ImageSource } from '../oci/image-source.js';
import type { ProgressSink } from '../util/progress.js';
import { render, type RenderOptions } from './render/render.js';

export interface CatalogSourceOptions {
  ref: string;
  imageSource?: ImageSource;
  /** Directory relative paths are resolved against (RenderOptions.cwd). */
  cwd?: string;
  /** The environment OPM_THREADS is read from; none by default. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Stops the work: nothing is written, and the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  loadCatalogDir?: CatalogDirLoader;
  onWarning?: (message: string) => void;
  /** opm's SQLite deprecation notice (RenderOptions.onSqliteNotice). */
  onSqliteNotice?: () => void;
  /** Progress as data: pulls, loading, and the work on the loaded catalog. */
  onProgress?: ProgressSink;
}

/**
 * Render `ref` as `render` does (every kind of reference it takes, unless `more.allow` narrows them;
 * migrations up to `more.migrateLevel`).
 */
export function renderRef(
  opts: CatalogSourceOptions,
  more: Pick<RenderOptions, 'allow' | 'migrateLevel'> = {},
): Promise<DeclarativeConfig> {
  return render({
    refs: [opts.ref],
    ...more,
    ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
    ...(opts.env === undefined ? {} : { env: opts.env }),
    ...(opts.signal === undefined ? {} : { signal: opts.signal }),
    ...(opts.imageSource === undefined ? {} : { imageSource: opts.imageSource }),
    ...(opts.loadCatalogDir === undefined ? {} : { loadCatalogDir: opts.loadCatalogDir }),
    ...(opts.onWarning === undefined ? {} : { onWarning: opts.onWarning }),
    ...(opts.onSqliteNotice === undefined ? {} : { onSqliteNotice: opts.onSqliteNotice }),
    ...(opts.onProgress === undefined ? {} : { onProgress: opts.onProgress }),
  });
}
