/**
 * `opm serve <image reference>` (opm-ts's extension): what `podman run -p 50051:50051 <index>`
 * does, without a container engine. The image is pulled and unpacked into a private temporary
 * directory; a catalog image (label `operators.operatorframework.io.index.configs.v1`) is served
 * from the directory its label names, with the serve cache its command names (`--cache-dir`, as
 * `generate dockerfile` and `image build` lay it out at `/tmp/cache`) when the image has one; a
 * SQLite index image (label `operators.operatorframework.io.index.database.v1`) is served as its
 * entrypoint `registry serve --database` serves it. The directory is removed when serving stops.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { OpmError } from '../errors.js';
import { compareUtf8 } from '../go/utf8.js';
import { CONFIGS_LABEL, DATABASE_LABEL } from '../bundle/labels.js';
import type { ImageSource, PulledImage } from '../oci/image-source.js';
import { parseReference } from '../oci/reference.js';
import { serve, type ServeOptions } from './serve.js';
import { registryServe } from './registry-serve.js';

export interface ServeImageOptions extends Omit<ServeOptions, 'configDir' | 'index'> {
  /** The image reference, as given. */
  image: string;
  imageSource: ImageSource;
}

/**
 * Whether `arg` (a `serve` argument that names nothing on disk) is to be pulled: a reference that
 * names its registry (`quay.io/org/catalog:v4.21`, `localhost:5000/index`, `host:port/x@sha256:…`).
 * A bare name (`catalog`, `org/catalog`) is far more often a misspelt directory than an image on
 * Docker Hub, and stays the missing directory opm reports.
 */
export function isServableReference(arg: string): boolean {
  if (arg.startsWith('.') || arg.startsWith('/') || arg.startsWith('~')) return false;
  const slash = arg.indexOf('/');
  if (slash < 0) return false;
  const first = arg.slice(0, slash);
  if (!(first.includes('.') || first.includes(':') || first === 'localhost')) return false;
  try {
    parseReference(arg);
    return true;
  } catch {
    return false;
  }
}

/** A path a label or command names inside the unpacked image, refused when it leads outside. */
function inside(img: PulledImage, value: string, what: string): string {
  const full = path.join(img.root, value);
  const rel = path.relative(img.root, full);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) {
    throw new OpmError(`serve "${img.ref}": ${what} "${value}" points outside the image`);
  }
  return full;
}

/** The `--cache-dir` of the image's command (`serve /configs --cache-dir=/tmp/cache`). */
export function cacheDirOfCommand(cmd: readonly string[]): string | undefined {
  for (let i = 0; i < cmd.length; i++) {
    const a = cmd[i] as string;
    for (const name of ['--cache-dir', '-cache-dir']) {
      if (a.startsWith(`${name}=`)) return a.slice(name.length + 1);
      if (a === name) return cmd[i + 1];
    }
  }
  return undefined;
}

const isDir = (p: string): Promise<boolean> =>
  stat(p).then(
    (s) => s.isDirectory(),
    () => false,
  );

/** The image's serve cache inside it: named by its command, else `/tmp/cache` when it holds one. */
async function imageCacheDir(img: PulledImage): Promise<string | undefined> {
  const named = cacheDirOfCommand(img.cmd ?? []);
  const candidate = named !== undefined && named !== '' ? named : '/tmp/cache';
  const dir = inside(img, candidate, 'the cache directory');
  return (await isDir(dir)) ? dir : undefined;
}

/** The last part of the image's repository: the catalog API's `<name>` by default. */
function repositoryName(ref: string): string {
  const repo = parseReference(ref).repository;
  return repo.slice(repo.lastIndexOf('/') + 1);
}

/**
 * Pull `opts.image` and serve it until `signal` fires. Failures (a pull, an image that is no
 * catalog, a bad catalog) throw OpmError before anything listens.
 */
export async function serveImage(opts: ServeImageOptions): Promise<void> {
  const { image, imageSource, ...rest } = opts;
  const img = await imageSource.pull(image, opts.signal === undefined ? {} : { signal: opts.signal });
  try {
    opts.log('info', 'pulled image', { digest: img.digest, image });
    const configs = img.labels[CONFIGS_LABEL];
    if (configs !== undefined) {
      const dir = inside(img, configs, `label ${CONFIGS_LABEL}`);
      if (!(await isDir(dir))) {
        throw new OpmError(
          `serve "${image}": label ${CONFIGS_LABEL}="${configs}" names no directory in the image`,
        );
      }
      // A --cache-dir given on the command line is the user's; otherwise the image's own.
      const given = rest.cacheDir !== undefined && rest.cacheDir !== '';
      const cacheDir = given ? rest.cacheDir : await imageCacheDir(img);
      await serve({
        ...rest,
        configDir: dir,
        ...(cacheDir === undefined ? {} : { cacheDir }),
        catalogName: rest.catalogName ?? repositoryName(image),
      });
      return;
    }
    const database = img.labels[DATABASE_LABEL];
    if (database !== undefined) {
      const file = inside(img, database, `label ${DATABASE_LABEL}`);
      if (rest.cacheOnly === true) {
        throw new OpmError(
          `serve "${image}": a SQLite index image has no serve cache to build (--cache-only)`,
        );
      }
      const { cacheDir: _c, cacheOnly: _o, cacheEnforceIntegrity: _e, ...served } = rest;
      await registryServe({ ...served, database: file });
      return;
    }
    const keys = Object.keys(img.labels).sort(compareUtf8);
    const hint = `a catalog image has label ${CONFIGS_LABEL}, a SQLite index image ${DATABASE_LABEL}`;
    const found = keys.length === 0 ? 'image has no labels' : `found labels: ${keys.join(', ')}`;
    throw new OpmError(`serve "${image}": not a catalog image: ${found}`, { hint });
  } finally {
    await img.release();
  }
}
