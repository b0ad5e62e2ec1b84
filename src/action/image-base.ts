/**
 * `opm image base` (opm-ts's extension): opm-ts's base image for catalog images
 * (image/base-image.ts), pushed to each tag and/or written as an OCI layout; what `opm image build
 * --base-image` and the Dockerfile of `generate dockerfile` build on.
 */
import os from 'node:os';
import path from 'node:path';
import { rm } from 'node:fs/promises';
import { OpmError } from '../errors.js';
import { buildBaseImage } from '../image/base-image.js';
import { sourceDateEpoch } from '../image/layer.js';
import { writeOciLayout } from '../image/layout.js';
import type { RegistryPusher } from '../oci/push/pusher.js';
import { parseReference } from '../oci/reference.js';
import { checkImageDestination } from './image-destination.js';
import { makeOwnedDir, releaseOwned } from '../util/owned-temp.js';

export interface ImageBaseOptions {
  /** The grpc_health_probe binary that goes to `/bin/grpc_health_probe`. */
  healthProbe: string;
  /** The Node.js binary that runs opm-ts in the image. */
  node: string;
  /** opm-ts's built package folder. */
  opmRoot: string;
  tags: string[];
  push: boolean;
  ociLayout?: string;
  registry: Pick<RegistryPusher, 'push'>;
  workDir?: string;
  cwd?: string;
  env?: Record<string, string | undefined>;
  signal?: AbortSignal;
}

export interface ImageBaseResult {
  digest: string;
  /** Compressed bytes of the image's layers and config. */
  size: number;
  pushed: Array<{ ref: string; digest: string }>;
  ociLayout?: string;
}

export async function imageBase(o: ImageBaseOptions): Promise<ImageBaseResult> {
  checkImageDestination(o);
  const epoch = sourceDateEpoch(o.env);
  const work = await makeOwnedDir(o.workDir ?? os.tmpdir(), 'opm-image-base-');
  try {
    const image = await buildBaseImage({
      node: o.node,
      opmRoot: o.opmRoot,
      healthProbe: path.resolve(o.cwd ?? '', o.healthProbe),
      workDir: work,
      ...(epoch !== undefined ? { epoch } : {}),
      ...(o.signal !== undefined ? { signal: o.signal } : {}),
    });
    const first = image.images[0];
    const size = (first?.blobs ?? []).reduce((n, b) => n + b.length, 0) + (first?.manifest.bytes.length ?? 0);
    const result: ImageBaseResult = { digest: image.top.digest, size, pushed: [] };
    if (o.ociLayout !== undefined) {
      const dir = path.resolve(o.cwd ?? '', o.ociLayout);
      const tag = o.tags[0] !== undefined ? parseReference(o.tags[0]).tag : undefined;
      await writeOciLayout(dir, image, tag, o.signal);
      result.ociLayout = dir;
    }
    if (o.push) {
      for (const t of o.tags) {
        const pushed = await o.registry.push(
          t,
          image.plan,
          o.signal !== undefined ? { signal: o.signal } : {},
        );
        if (pushed.digest !== image.top.digest)
          throw new OpmError(`pushed ${t} as ${pushed.digest}, not the built ${image.top.digest}`);
        result.pushed.push({ ref: t, digest: pushed.digest });
      }
    }
    return result;
  } finally {
    await rm(work, { recursive: true, force: true });
    releaseOwned(work);
  }
}
