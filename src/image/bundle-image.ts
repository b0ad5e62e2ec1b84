/**
 * A bundle image without a container engine: what `bundle.Dockerfile` builds (`FROM scratch`, the
 * labels of `metadata/annotations.yaml`, `manifests/` and `metadata/` copied to the root, and
 * `tests/scorecard/` when there is one), one deterministic layer per folder.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { parseBundleDir } from '../bundle/parse.js';
import type { Platform } from '../oci/manifest.js';
import { assemble, type Assembled } from './assemble.js';
import { writeLayer, type BuiltLayer } from './layer.js';

export interface BundleImageOptions {
  /** The bundle folder: `manifests/`, `metadata/annotations.yaml`. */
  bundleDir: string;
  /** Where the layers are written (they stay there until the caller removes the folder). */
  workDir: string;
  /** Default linux/amd64. */
  platform?: Platform;
  /** Labels besides the annotations (added after them; the same key replaces theirs). */
  labels?: Record<string, string>;
  /** Seconds since 1970 for every time in the image (SOURCE_DATE_EPOCH); default 0. */
  epoch?: number;
  /**
   * Copy `tests/scorecard/` when there is one (default true, as operator-sdk's bundle.Dockerfile);
   * false for the image of opm's own bundle.Dockerfile, which copies `manifests/` and `metadata/` only.
   */
  scorecard?: boolean;
  /**
   * Read the folder as a registry+v1 bundle first (its CSV and manifests), its annotations the first
   * labels (default true). False for bundles of other media types (plain, helm): the folders are
   * copied as they are and `labels` are the only labels.
   */
  parse?: boolean;
  signal?: AbortSignal;
}

async function isDir(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Build a bundle image: push its `plan`, or write it as an OCI layout.
 *
 * @example
 * const image = await buildBundleImage({ bundleDir: './bundle', workDir });
 * await new RegistryPusher(registryOptions).push('quay.io/me/bundle:v1', image.plan); // oci/push/pusher.ts
 * await writeOciLayout('./bundle-image', image, 'v1'); // image/layout.ts
 */
export async function buildBundleImage(o: BundleImageOptions): Promise<Assembled> {
  const annotations =
    o.parse === false
      ? {}
      : (await parseBundleDir(o.bundleDir, o.signal !== undefined ? { signal: o.signal } : {})).annotations;
  const folders = ['manifests', 'metadata'];
  if (o.scorecard !== false && (await isDir(path.join(o.bundleDir, 'tests', 'scorecard'))))
    folders.push('tests/scorecard');
  const layers: BuiltLayer[] = [];
  const history: string[] = [];
  for (const [i, f] of folders.entries()) {
    layers.push(
      await writeLayer(
        [{ dir: path.join(o.bundleDir, f), at: f, parents: true }],
        path.join(o.workDir, `bundle-layer-${i}.tar.gz`),
        { ...(o.epoch !== undefined ? { epoch: o.epoch } : {}), ...(o.signal ? { signal: o.signal } : {}) },
      ),
    );
    history.push(`COPY ${f} /${f}/`);
  }
  const labels = { ...annotations, ...o.labels };
  return assemble({ scratch: o.platform ?? { os: 'linux', architecture: 'amd64' } }, layers, {
    labels,
    history,
    settings: 'LABEL (the annotations of metadata/annotations.yaml)',
    ...(o.epoch !== undefined ? { epoch: o.epoch } : {}),
  });
}
