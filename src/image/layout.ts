/**
 * An OCI image layout (`oci-layout`, `index.json`, `blobs/sha256/`), for skopeo, signing tools or
 * a later push: written in a staging folder beside the target and renamed into place, so a failed
 * build leaves no half-written layout.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { lstat, mkdir, readdir, readlink, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { OpmError } from '../errors.js';
import { randomHex } from '../util/random-hex.js';
import type { BlobSource } from '../oci/push/blob-source.js';
import type { Assembled } from './assemble.js';

async function writeBlob(blobsDir: string, b: BlobSource, signal: AbortSignal | undefined): Promise<void> {
  const hex = b.digest.slice('sha256:'.length);
  const file = path.join(blobsDir, hex);
  const hash = createHash('sha256');
  let n = 0;
  await pipeline(
    Readable.from(b.open()),
    async function* (chunks: AsyncIterable<Buffer>) {
      for await (const c of chunks) {
        hash.update(c);
        n += c.length;
        yield c;
      }
    },
    createWriteStream(file),
    ...(signal !== undefined ? [{ signal }] : []),
  );
  const got = `sha256:${hash.digest('hex')}`;
  if (got !== b.digest || n !== b.length)
    throw new OpmError(`blob ${b.digest}: read ${n} bytes hashing to ${got}`, { code: 'E_DIGEST_MISMATCH' });
}

/** Links followed before giving up, as Linux does (ELOOP). */
const MAX_LINKS = 40;

/**
 * The path the layout is renamed to: `dir`, or what the symbolic link `dir` leads to (through any
 * chain, to a folder or to nothing yet). A link to an empty folder is that empty folder: the rename
 * must replace the folder, not the link, which it could not (ENOTDIR). A loop is left to readdir.
 */
async function followLinks(dir: string): Promise<string> {
  let at = path.resolve(dir);
  for (let n = 0; n < MAX_LINKS; n++) {
    let link: boolean;
    try {
      link = (await lstat(at)).isSymbolicLink();
    } catch {
      return at;
    }
    if (!link) return at;
    at = path.resolve(path.dirname(at), await readlink(at));
  }
  return dir;
}

/** Where the layout would go: a folder that does not exist yet, or an empty one. */
async function checkTarget(dir: string): Promise<'absent' | 'empty'> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
    throw new OpmError(`--oci-layout ${dir}: not a folder that can be written`, { cause: err });
  }
  if (names.length > 0)
    throw new OpmError(`--oci-layout ${dir}: the folder exists and is not empty`, {
      hint: 'name a new or empty folder; the layout is written whole or not at all',
    });
  return 'empty';
}

/** Write the image as an OCI layout in `dir`, its top named `tag` when one is given. */
export async function writeOciLayout(
  dir: string,
  image: Assembled,
  tag: string | undefined,
  signal?: AbortSignal,
): Promise<void> {
  const state = await checkTarget(dir);
  const target = await followLinks(dir);
  const parent = path.dirname(target);
  try {
    await mkdir(parent, { recursive: true });
  } catch (err) {
    throw new OpmError(`--oci-layout ${dir}: cannot create the folder ${parent}`, { cause: err });
  }
  const staging = path.join(parent, `.${path.basename(target)}.partial-${randomHex(6)}`);
  try {
    const blobsDir = path.join(staging, 'blobs', 'sha256');
    await mkdir(blobsDir, { recursive: true });
    const seen = new Set<string>();
    const manifests = [...image.images.map((i) => i.manifest), ...(image.index ? [image.index] : [])];
    for (const m of manifests) {
      if (seen.has(m.digest)) continue;
      seen.add(m.digest);
      await writeFile(path.join(blobsDir, m.digest.slice(7)), m.bytes);
    }
    for (const i of image.images) {
      for (const b of i.blobs) {
        if (seen.has(b.digest)) continue;
        seen.add(b.digest);
        await writeBlob(blobsDir, b, signal);
      }
    }
    await writeFile(path.join(staging, 'oci-layout'), '{"imageLayoutVersion":"1.0.0"}');
    const top = image.top;
    await writeFile(
      path.join(staging, 'index.json'),
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.index.v1+json',
        manifests: [
          {
            mediaType: top.mediaType,
            digest: top.digest,
            size: top.bytes.length,
            ...(tag !== undefined ? { annotations: { 'org.opencontainers.image.ref.name': tag } } : {}),
          },
        ],
      }),
    );
    if (state === 'empty') await rmdir(target);
    await rename(staging, target);
  } catch (err) {
    await rm(staging, { recursive: true, force: true });
    throw err;
  }
}
