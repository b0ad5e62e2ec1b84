/**
 * Blobs into a repository: a HEAD first (a blob the repository has is never sent again), a mount
 * from another repository of the same registry when the blob is known to be there, else an upload
 * session (POST, then one PUT with the blob, or PATCHes of bounded chunks and a closing PUT), whose
 * `Location` may be relative or absolute and changes after every step. A step cut off (a dropped
 * connection, a 5xx) restarts the upload in a fresh session: a session's state after a failed
 * step is unknown, and the registry keeps nothing of an upload that was not closed.
 */
import { OpmError } from '../../errors.js';
import { networkCode } from '../http/network-errors.js';
import { header, type HttpResponse } from '../http/types.js';
import type { RegistrySession } from '../auth/session.js';
import type { ImageReference } from '../reference.js';
import type { BlobSource } from './blob-source.js';
import { protocolError, pushStatusError } from './push-errors.js';

/** Where blobs and manifests go: one repository of one registry, through its session. */
export interface PushTarget {
  session: RegistrySession;
  ref: ImageReference;
  signal?: AbortSignal;
  /** Bytes of a blob sent so far (the current attempt's). */
  onBytes?: (digest: string, sent: number) => void;
}

export interface BlobUploaderOptions {
  log: (line: string) => void;
  /** Blobs larger than this are sent in PATCHes of this size; smaller ones in one PUT. */
  chunkSize?: number;
  /** Attempts of a whole upload when a step is cut off. */
  attempts?: number;
}

export type BlobOutcome = 'exists' | 'mounted' | 'uploaded';

const DEFAULT_CHUNK = 32 * 1024 * 1024;
const DEFAULT_ATTEMPTS = 3;

function short(digest: string): string {
  return digest.slice(0, digest.indexOf(':') + 13);
}

/** Whether a failure is worth a fresh upload: the connection or the server failed, not a refusal. */
export function retryableFailure(err: unknown): boolean {
  if (err instanceof OpmError) {
    return (
      err.code === 'E_REGISTRY_UNREACHABLE' ||
      err.code === 'E_REGISTRY_TIMEOUT' ||
      err.code === 'E_REGISTRY_RETRY' ||
      networkCode(err.cause) !== undefined
    );
  }
  return networkCode(err) !== undefined;
}

/** A 5xx or 429 at a step of an upload: the upload starts again. */
class RetryableStatus extends OpmError {
  constructor(what: string, status: number) {
    super(`${what}: HTTP ${status}`, { code: 'E_REGISTRY_RETRY' });
  }
}

// eslint-disable-next-line @typescript-eslint/require-await -- a stream of one chunk
async function* once(b: Uint8Array): AsyncGenerator<Uint8Array> {
  yield b;
}

/** Chunks of exactly `size` bytes (the last one shorter) from a stream of any chunking. */
async function* rechunk(source: AsyncIterable<Uint8Array>, size: number): AsyncGenerator<Buffer> {
  let parts: Buffer[] = [];
  let held = 0;
  for await (const c of source) {
    let b = Buffer.isBuffer(c) ? c : Buffer.from(c);
    while (held + b.length >= size) {
      const take = size - held;
      parts.push(b.subarray(0, take));
      yield Buffer.concat(parts, size);
      parts = [];
      held = 0;
      b = b.subarray(take);
    }
    if (b.length > 0) {
      parts.push(b);
      held += b.length;
    }
  }
  if (held > 0) yield Buffer.concat(parts, held);
}

export class BlobUploader {
  private readonly o: Required<BlobUploaderOptions>;

  constructor(o: BlobUploaderOptions) {
    this.o = { chunkSize: DEFAULT_CHUNK, attempts: DEFAULT_ATTEMPTS, ...o };
  }

  /** Whether the repository says it has the blob (HEAD 200). */
  async exists(t: PushTarget, digest: string): Promise<boolean> {
    const res = await t.session.request({
      method: 'HEAD',
      path: `/v2/${t.ref.repository}/blobs/${digest}`,
      repository: t.ref.repository,
      push: true,
      ...(t.signal ? { signal: t.signal } : {}),
    });
    await res.body.dump();
    if (res.status === 200) return true;
    if (res.status === 404) return false;
    throw await pushStatusError(res, t.ref, `checking blob ${digest}`);
  }

  /**
   * Make sure the repository has the blob: checked, mounted or uploaded. `force` skips the check
   * (the registry claimed a blob it then did not have).
   */
  async ensure(t: PushTarget, blob: BlobSource, force = false): Promise<BlobOutcome> {
    if (!force && (await this.exists(t, blob.digest))) return 'exists';
    const mount =
      !force &&
      blob.mountFrom !== undefined &&
      blob.mountFrom.registry === t.ref.registry &&
      blob.mountFrom.repository !== t.ref.repository
        ? blob.mountFrom.repository
        : undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.upload(t, blob, attempt === 1 ? mount : undefined);
      } catch (err) {
        if (t.signal?.aborted === true) throw t.signal.reason;
        if (!retryableFailure(err)) throw err;
        if (attempt >= this.o.attempts) {
          throw new OpmError(
            `upload of blob ${blob.digest} to ${t.ref.registry}/${t.ref.repository} failed after ${attempt} attempt${attempt > 1 ? 's' : ''}: ${err instanceof Error ? err.message : String(err)}`,
            { code: 'E_REGISTRY_TRANSFER', cause: err },
          );
        }
        this.o.log(`upload of ${short(blob.digest)} interrupted, starting it again`);
      }
    }
  }

  private location(res: HttpResponse, what: string, ref: ImageReference): URL {
    const loc = header(res, 'location');
    if (loc === undefined || loc === '') throw protocolError(ref, `${what}: the registry sent no Location`);
    // Relative to where the answer came from (after redirects); absolute ones are taken as they are.
    return new URL(loc, res.url);
  }

  private async upload(t: PushTarget, blob: BlobSource, mount: string | undefined): Promise<BlobOutcome> {
    const { ref } = t;
    const stop = t.signal ? { signal: t.signal } : {};
    const what = `upload of blob ${blob.digest}`;
    const query = mount === undefined ? '' : `?mount=${blob.digest}&from=${encodeURIComponent(mount)}`;
    const start = await t.session.request({
      method: 'POST',
      path: `/v2/${ref.repository}/blobs/uploads/${query}`,
      repository: ref.repository,
      push: true,
      ...(mount !== undefined ? { mountFrom: mount } : {}),
      headers: { 'content-length': '0' },
      ...stop,
    });
    if (mount !== undefined && start.status === 201) {
      await start.body.dump();
      this.verifyDigest(start, blob.digest, ref, what);
      return 'mounted';
    }
    if (start.status >= 500) {
      await start.body.dump();
      throw new RetryableStatus(what, start.status);
    }
    if (start.status !== 202) throw await pushStatusError(start, ref, what);
    await start.body.dump();
    let loc = this.location(start, what, ref);
    const octets = { 'content-type': 'application/octet-stream' };
    let sent = 0;
    const counted = (source: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> => {
      const report = t.onBytes;
      if (report === undefined) return source;
      return (async function* () {
        for await (const c of source) {
          sent += c.length;
          report(blob.digest, sent);
          yield c;
        }
      })();
    };
    if (blob.length > this.o.chunkSize) {
      let offset = 0;
      for await (const chunk of rechunk(blob.open(), this.o.chunkSize)) {
        const res = await t.session.request({
          method: 'PATCH',
          url: loc,
          repository: ref.repository,
          push: true,
          retry: false,
          headers: {
            ...octets,
            'content-length': String(chunk.length),
            'content-range': `${offset}-${offset + chunk.length - 1}`,
          },
          body: { length: chunk.length, open: () => counted(once(chunk)) },
          ...stop,
        });
        if (res.status >= 500 || res.status === 429) {
          await res.body.dump();
          throw new RetryableStatus(what, res.status);
        }
        if (res.status !== 202) throw await pushStatusError(res, ref, what);
        await res.body.dump();
        offset += chunk.length;
        loc = this.location(res, what, ref);
      }
      if (offset !== blob.length)
        throw new OpmError(`${what}: the source gave ${offset} bytes, not ${blob.length}`, {
          code: 'E_DIGEST_MISMATCH',
        });
      loc.searchParams.set('digest', blob.digest);
      const close = await t.session.request({
        method: 'PUT',
        url: loc,
        repository: ref.repository,
        push: true,
        retry: false,
        headers: { ...octets, 'content-length': '0' },
        ...stop,
      });
      return this.closed(close, t, blob, what);
    }
    loc.searchParams.set('digest', blob.digest);
    const put = await t.session.request({
      method: 'PUT',
      url: loc,
      repository: ref.repository,
      push: true,
      retry: false,
      headers: { ...octets, 'content-length': String(blob.length) },
      body: { length: blob.length, open: () => counted(blob.open()) },
      ...stop,
    });
    return this.closed(put, t, blob, what);
  }

  private async closed(
    res: HttpResponse,
    t: PushTarget,
    blob: BlobSource,
    what: string,
  ): Promise<BlobOutcome> {
    if (res.status >= 500 || res.status === 429) {
      await res.body.dump();
      throw new RetryableStatus(what, res.status);
    }
    if (res.status !== 201) throw await pushStatusError(res, t.ref, what);
    await res.body.dump();
    this.verifyDigest(res, blob.digest, t.ref, what);
    return 'uploaded';
  }

  private verifyDigest(res: HttpResponse, digest: string, ref: ImageReference, what: string): void {
    const got = header(res, 'docker-content-digest');
    if (got !== undefined && got !== '' && got !== digest) {
      throw new OpmError(`${what}: ${ref.registry} stored it as ${got}`, {
        code: 'E_DIGEST_MISMATCH',
        hint: 'the registry or a proxy altered the content; retry, or report it to the registry owner',
      });
    }
  }
}
