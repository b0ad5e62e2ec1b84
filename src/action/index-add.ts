/**
 * `opm index add`: bundles added to a copy of an index image's database (or to a new one), then
 * as opm v1.73: `--generate` leaves `database/index.db` and the Dockerfile; otherwise the image is
 * built by the container tool with opm's command line, or — our extension, when no engine is
 * wanted — built here on the binary image, reproducibly, and pushed or written as an OCI layout.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OpmError } from '../errors.js';
import type { ImageSource } from '../oci/image-source.js';
import { CONFIGS_LABEL, DATABASE_LABEL } from '../bundle/labels.js';
import { registryAdd, type AddMode } from './registry-add/registry-add.js';

export const DEFAULT_DB_LOCATION = '/database/index.db';
export const DEFAULT_BINARY_IMAGE = 'quay.io/operator-framework/opm:latest';
export const DEFAULT_DOCKERFILE = 'index.Dockerfile';
export const DEFAULT_IMAGE_TAG = 'operator-registry-index:latest';
export const INDEX_ENTRYPOINT = ['/bin/opm'];
export const INDEX_CMD = ['registry', 'serve', '--database', DEFAULT_DB_LOCATION];

/** The Dockerfile opm writes for an index image whose database is at `databasePath` in the context. */
export function indexDockerfile(binaryImage: string, databasePath: string): string {
  const from = binaryImage === '' ? DEFAULT_BINARY_IMAGE : binaryImage;
  return (
    `FROM ${from}\n` +
    `LABEL ${DATABASE_LABEL}=${DEFAULT_DB_LOCATION}\n` +
    `ADD ${databasePath} ${DEFAULT_DB_LOCATION}\n` +
    'EXPOSE 50051\n' +
    'ENTRYPOINT ["/bin/opm"]\n' +
    `CMD ["registry", "serve", "--database", "${DEFAULT_DB_LOCATION}"]\n`
  );
}

/** The command line opm runs to build the image with `tool` (docker or podman). */
export function buildArgv(tool: 'docker' | 'podman', dockerfile: string, tag: string): string[] {
  const t = tag === '' ? DEFAULT_IMAGE_TAG : tag;
  return tool === 'podman'
    ? ['podman', 'build', '--format', 'docker', '-f', dockerfile, '-t', t, '.']
    : ['docker', 'build', '-f', dockerfile, '-t', t, '.'];
}

/** Copy the database of the index image `ref` to `to`. */
export async function pullIndexDatabase(
  ref: string,
  source: ImageSource,
  to: string,
  signal?: AbortSignal,
): Promise<void> {
  const img = await source.pull(ref, signal === undefined ? {} : { signal });
  try {
    const where = img.labels[DATABASE_LABEL];
    if (where === undefined) {
      if (img.labels[CONFIGS_LABEL] !== undefined)
        throw new OpmError(
          '`opm index prune` only supports sqlite-based catalogs. See https://github.com/redhat-openshift-ecosystem/community-operators-prod/issues/793 for instructions on pruning a plaintext files backed catalog.',
        );
      throw new OpmError(`index image ${ref} missing label ${DATABASE_LABEL}`);
    }
    const file = path.join(img.root, path.normalize(`/${where}`));
    if (!existsSync(file))
      throw new OpmError(
        `index image ${ref}: its label ${DATABASE_LABEL} names ${where}, which the image does not hold`,
      );
    copyFileSync(file, to);
  } finally {
    await img.release();
  }
}

export interface IndexAddOptions {
  bundles: string[];
  fromIndex: string;
  mode: AddMode;
  permissive: boolean;
  /** Replace channel heads of the same CSV names (RegistryAddOptions.overwriteLatest). */
  overwriteLatest?: boolean;
  /** `--enable-alpha` (RegistryAddOptions.enableAlpha). */
  enableAlpha?: boolean;
  imageSource: ImageSource;
  /** Where the database goes: `database/index.db` under this folder. */
  buildDir: string;
  signal?: AbortSignal;
}

export interface IndexAddResult {
  /** The database written (`<buildDir>/database/index.db`). */
  database: string;
  permissiveError?: string;
}

/**
 * The database of a new index: a copy of `fromIndex`'s (or none, for a new one) at a temporary
 * path given to `edit`, then copied to `<buildDir>/database/index.db` once the edit succeeded.
 */
export async function editIndexDatabase<R>(
  o: { fromIndex: string; imageSource: ImageSource; buildDir: string; signal?: AbortSignal },
  edit: (copy: string) => Promise<R> | R,
): Promise<R & { database: string }> {
  const dbDir = path.join(o.buildDir, 'database');
  const work = mkdtempSync(path.join(os.tmpdir(), 'opm-index-'));
  try {
    const copy = path.join(work, 'index.db');
    if (o.fromIndex !== '') await pullIndexDatabase(o.fromIndex, o.imageSource, copy, o.signal);
    const result = await edit(copy);
    mkdirSync(dbDir, { recursive: true });
    const database = path.join(dbDir, 'index.db');
    copyFileSync(copy, database);
    return { ...result, database };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The database of the new index: `--from-index`'s (a copy) or a new one, with the bundles added. */
export async function indexAddDatabase(o: IndexAddOptions): Promise<IndexAddResult> {
  return editIndexDatabase(o, (copy) =>
    registryAdd({
      database: copy,
      bundles: o.bundles,
      mode: o.mode,
      permissive: o.permissive,
      overwriteLatest: o.overwriteLatest === true,
      enableAlpha: o.enableAlpha === true,
      imageSource: o.imageSource,
      ...(o.signal === undefined ? {} : { signal: o.signal }),
    }),
  );
}

/** Write the Dockerfile (opm writes it whole, then builds from it). */
export function writeDockerfile(file: string, text: string): void {
  writeFileSync(file, text);
}
