import {
  createReadStream,
  createWriteStream,
  lstatSync,
  mkdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { OpmError } from '../errors.js';
import { randomHex } from '../util/random-hex.js';
import { hasherFor, parseDigest } from './digest.js';

const BLOB_MODE = 0o444;
/** Blobs up to this size are gathered in memory before they are written. */
const SMALL_BLOB = 16 * 1024 * 1024;

export function digestMismatch(what: string, expected: string, got: string): OpmError {
  return new OpmError(`${what}: digest mismatch: expected ${expected}, got ${got}`, {
    code: 'E_DIGEST_MISMATCH',
    hint: 'the registry, a proxy or the network altered the content; retry, or report it to the registry owner',
  });
}

export function sizeMismatch(what: string, digest: string, expected: number, got: number): OpmError {
  return new OpmError(`${what} ${digest}: size mismatch: expected ${expected} bytes, got ${got}`, {
    code: 'E_DIGEST_MISMATCH',
    hint: 'the download was truncated or padded; retry',
  });
}

/**
 * Content-addressed blob store laid out as `<root>/blobs/<alg>/<hex>`. A blob only ever enters it
 * by an atomic rename after its digest and size were checked, so readers never see partial files and
 * two processes filling the same cache at once at worst both write the same bytes. Blobs are stored
 * read-only: nothing ever changes one in place, so nothing should be able to by accident.
 */
export class BlobStore {
  readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  pathOf(digest: string): string {
    const { algorithm, hex } = parseDigest(digest);
    return path.join(this.root, 'blobs', algorithm, hex);
  }

  /** Path of a stored blob of the expected size, or undefined. */
  async lookup(digest: string, size?: number): Promise<string | undefined> {
    const p = this.pathOf(digest);
    try {
      const st = await stat(p);
      if (!st.isFile() || (size !== undefined && st.size !== size)) return undefined;
      return p;
    } catch {
      return undefined;
    }
  }

  /** Read a small stored blob, re-checking its digest (a damaged cache entry is dropped). */
  async readSmall(digest: string): Promise<Buffer | undefined> {
    const p = this.pathOf(digest);
    let data: Buffer;
    try {
      data = await readFile(p);
    } catch {
      return undefined;
    }
    const got = `${parseDigest(digest).algorithm}:${hasherFor(digest).update(data).digest('hex')}`;
    if (got !== digest) {
      await rm(p, { force: true });
      return undefined;
    }
    return data;
  }

  // Folder creation and the final rename are synchronous: each is one quick system call, where the
  // promise versions wait a thread-pool turn apiece, several times per blob.
  private tmpPath(digest: string): string {
    const dir = path.join(this.root, 'tmp');
    mkdirSync(dir, { recursive: true });
    return path.join(dir, `${parseDigest(digest).hex.slice(0, 16)}.${process.pid}.${randomHex(6)}.partial`);
  }

  private commit(tmp: string, digest: string): string {
    const final = this.pathOf(digest);
    mkdirSync(path.dirname(final), { recursive: true });
    // Something that is not a blob file in the blob's place (a folder, say) is not ours to keep.
    if (lstatSync(final, { throwIfNoEntry: false })?.isFile() === false)
      rmSync(final, { recursive: true, force: true });
    renameSync(tmp, final);
    return final;
  }

  /** Store bytes already verified by the caller (manifests are checked before parsing). */
  async putVerified(digest: string, data: Uint8Array): Promise<string> {
    const tmp = this.tmpPath(digest);
    try {
      writeFileSync(tmp, data, { mode: BLOB_MODE });
      return this.commit(tmp, digest);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  /**
   * Stream a blob in, hashing as it goes. Reading stops as soon as more than `size` bytes arrive;
   * nothing is kept unless digest and size both match.
   */
  async write(
    digest: string,
    size: number,
    source: AsyncIterable<unknown>,
    what: string,
    onBytes?: (n: number) => void,
  ): Promise<string> {
    const tmp = this.tmpPath(digest);
    const hash = hasherFor(digest);
    let n = 0;
    try {
      if (size <= SMALL_BLOB) {
        // Gathered in memory, checked, then written in one call: no stream to a partial file.
        const chunks: Buffer[] = [];
        for await (const c of source) {
          const b = Buffer.isBuffer(c) ? c : Buffer.from(String(c));
          n += b.length;
          if (n > size) throw sizeMismatch(what, digest, size, n);
          hash.update(b);
          onBytes?.(b.length);
          chunks.push(b);
        }
        if (n !== size) throw sizeMismatch(what, digest, size, n);
        const got = `${parseDigest(digest).algorithm}:${hash.digest('hex')}`;
        if (got !== digest) throw digestMismatch(`${what} ${digest}`, digest, got);
        writeFileSync(tmp, Buffer.concat(chunks, n), { mode: BLOB_MODE });
        return this.commit(tmp, digest);
      }
      await pipeline(
        source,
        async function* (chunks: AsyncIterable<unknown>) {
          for await (const c of chunks) {
            const b = Buffer.isBuffer(c) ? c : Buffer.from(String(c));
            n += b.length;
            if (n > size) throw sizeMismatch(what, digest, size, n);
            hash.update(b);
            onBytes?.(b.length);
            yield b;
          }
        },
        createWriteStream(tmp, { mode: BLOB_MODE }),
      );
      if (n !== size) throw sizeMismatch(what, digest, size, n);
      const got = `${parseDigest(digest).algorithm}:${hash.digest('hex')}`;
      if (got !== digest) throw digestMismatch(`${what} ${digest}`, digest, got);
      return this.commit(tmp, digest);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  /** A read stream of a stored blob. */
  open(digest: string): NodeJS.ReadableStream {
    return createReadStream(this.pathOf(digest));
  }
}
