/**
 * The index image `opm index add` builds, made without a container engine (our extension for
 * `--container-tool none`): the binary image, a layer holding `/database/index.db`, and what
 * opm's Dockerfile sets (the database label, port 50051, `ENTRYPOINT ["/bin/opm"]`, `CMD
 * ["registry", "serve", "--database", "/database/index.db"]`). Layers are written reproducibly
 * (SOURCE_DATE_EPOCH, else 1970), so the same database on the same base gives the same digest.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OpmError, UsageError } from '../errors.js';
import type { RegistryPusher } from '../oci/push/pusher.js';
import { parseReference } from '../oci/reference.js';
import { DATABASE_LABEL } from '../bundle/labels.js';
import { assemble, type ConfigEdit } from '../image/assemble.js';
import { sourceDateEpoch, writeLayer } from '../image/layer.js';
import { writeOciLayout } from '../image/layout.js';
import { phase, type ProgressSink } from '../util/progress.js';
import { baseImageOf } from './image-build.js';
import { DEFAULT_BINARY_IMAGE, DEFAULT_DB_LOCATION, INDEX_CMD, INDEX_ENTRYPOINT } from './index-add.js';

export interface IndexImageOptions {
  /** The folder holding `database/index.db`. */
  buildDir: string;
  binaryImage: string;
  tag: string;
  push: boolean;
  ociLayout?: string;
  registry: Pick<RegistryPusher, 'readImage' | 'baseLayer' | 'push'>;
  cwd?: string;
  env?: Record<string, string | undefined>;
  signal?: AbortSignal;
  onProgress?: ProgressSink;
}

export interface IndexImageResult {
  digest: string;
  pushed?: { ref: string; digest: string };
  ociLayout?: { dir: string; digest: string };
}

export async function buildIndexImage(o: IndexImageOptions): Promise<IndexImageResult> {
  if (!o.push && o.ociLayout === undefined)
    throw new UsageError(
      'with --container-tool none the image is built without an engine: say where it goes, --push (to --tag), --oci-layout DIR, or both',
    );
  if (o.push && o.tag === '') throw new UsageError('--push needs --tag');
  const binary = o.binaryImage === '' ? DEFAULT_BINARY_IMAGE : o.binaryImage;
  const epoch = sourceDateEpoch(o.env);
  const work = mkdtempSync(path.join(os.tmpdir(), 'opm-index-image-'));
  try {
    const remote = await phase(o.onProgress, `reading binary image ${binary}`, () =>
      o.registry.readImage(binary, o.signal),
    );
    const base = await baseImageOf(o.registry, remote, o.signal);
    const opts = {
      ...(epoch !== undefined ? { epoch } : {}),
      ...(o.signal !== undefined ? { signal: o.signal } : {}),
    };
    const layer = await writeLayer(
      [{ dir: path.join(o.buildDir, 'database'), at: 'database' }],
      path.join(work, 'database.tar.gz'),
      opts,
    );
    const edit: ConfigEdit = {
      entrypoint: INDEX_ENTRYPOINT,
      cmd: INDEX_CMD,
      labels: { [DATABASE_LABEL]: DEFAULT_DB_LOCATION },
      exposedPorts: ['50051/tcp'],
      history: [`ADD database/index.db ${DEFAULT_DB_LOCATION}`],
      settings: `LABEL ${DATABASE_LABEL}=${DEFAULT_DB_LOCATION} EXPOSE 50051 ENTRYPOINT ${JSON.stringify(INDEX_ENTRYPOINT)} CMD ${JSON.stringify(INDEX_CMD)}`,
      ...(epoch !== undefined ? { epoch } : {}),
    };
    const baseSel = { image: base, platforms: 'all' as const };
    const image = assemble(baseSel, [layer], edit);
    const result: IndexImageResult = { digest: image.top.digest };
    if (o.ociLayout !== undefined) {
      const dir = path.resolve(o.cwd ?? '', o.ociLayout);
      const oci = image.top.mediaType.startsWith('application/vnd.oci.')
        ? image
        : assemble(baseSel, [layer], edit, 'oci');
      const tag = o.tag === '' ? undefined : parseReference(o.tag).tag;
      await phase(o.onProgress, `writing OCI layout ${o.ociLayout}`, () =>
        writeOciLayout(dir, oci, tag, o.signal),
      );
      result.ociLayout = { dir, digest: oci.top.digest };
      if (!o.push) result.digest = oci.top.digest;
    }
    if (o.push) {
      const pushed = await phase(o.onProgress, `pushing ${o.tag}`, () =>
        o.registry.push(o.tag, image.plan, o.signal !== undefined ? { signal: o.signal } : {}),
      );
      if (pushed.digest !== image.top.digest)
        throw new OpmError(`pushed ${o.tag} as ${pushed.digest}, not the built ${image.top.digest}`);
      result.pushed = { ref: o.tag, digest: pushed.digest };
    }
    return result;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
