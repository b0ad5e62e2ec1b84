/**
 * Blobs into the store: each downloaded at most once at a time however many pulls need it, a
 * bounded number at once, dropped connections retried, and one deadline over all the attempts of a
 * blob. A pull that stops (its signal) stops waiting at once; the download itself is stopped when
 * no other pull waits for it, and its partial file removed before the last waiter returns.
 */
import { OpmError } from '../../errors.js';
import { Limiter } from '../../util/limit.js';
import { codedError, type HttpResponse } from '../http/types.js';
import type { Descriptor } from '../manifest.js';
import { statusError } from '../registry-errors.js';
import type { PullTarget } from './target.js';

const BLOB_CONCURRENCY = 6;
const BLOB_ATTEMPTS = 3;

export interface BlobFetcherOptions {
  log: (line: string) => void;
  /** Longest time for all the attempts of one blob, from its first request to its last byte. */
  bodyDeadlineMs: number;
}

/** A download in progress, shared by the pulls waiting for it. */
interface Download {
  done: Promise<void>;
  /** Stops the download; aborted when its last waiter stops. */
  stop: AbortController;
  waiters: number;
  /** Whether it left the queue: before that, nothing was written and nothing needs waiting for. */
  started: boolean;
}

function short(digest: string): string {
  const i = digest.indexOf(':');
  return `${digest.slice(0, i + 13)}`;
}

function humanSize(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

export class BlobFetcher {
  private readonly limiter = new Limiter(BLOB_CONCURRENCY);
  private readonly inflight = new Map<string, Download>();
  private readonly o: BlobFetcherOptions;

  constructor(o: BlobFetcherOptions) {
    this.o = o;
  }

  /** Make sure a blob is in the store, downloading it at most once even when several pulls need it. */
  async ensure(t: PullTarget, d: Descriptor, what = 'layer'): Promise<void> {
    if ((await t.store.lookup(d.digest, d.size)) !== undefined) return;
    t.signal?.throwIfAborted();
    const key = `${t.store.root}|${d.digest}`;
    let job = this.inflight.get(key);
    if (job === undefined) {
      const stop = new AbortController();
      const created: Download = { done: Promise.resolve(), stop, waiters: 0, started: false };
      created.done = this.limiter
        .run(async () => {
          stop.signal.throwIfAborted();
          created.started = true;
          await this.download({ ...t, signal: stop.signal }, d, what);
        })
        .finally(() => {
          if (this.inflight.get(key) === created) this.inflight.delete(key);
        });
      // Its waiters may all be gone when it fails.
      created.done.catch(() => undefined);
      this.inflight.set(key, created);
      job = created;
    }
    await this.wait(job, key, t.signal);
  }

  private wait(job: Download, key: string, signal: AbortSignal | undefined): Promise<void> {
    job.waiters++;
    if (signal === undefined) return job.done;
    return new Promise<void>((resolve, reject) => {
      let left = false;
      const onAbort = (): void => {
        left = true;
        job.waiters--;
        const reason = signal.reason as Error;
        if (job.waiters > 0) {
          reject(reason);
          return;
        }
        // The last one waiting: stop the download, and return once its partial file is gone.
        if (this.inflight.get(key) === job) this.inflight.delete(key);
        job.stop.abort(reason);
        if (!job.started) reject(reason);
        else
          job.done.then(
            () => reject(reason),
            () => reject(reason),
          );
      };
      signal.addEventListener('abort', onAbort, { once: true });
      job.done.then(
        () => {
          if (left) return;
          signal.removeEventListener('abort', onAbort);
          job.waiters--;
          resolve();
        },
        (err: unknown) => {
          if (left) return;
          signal.removeEventListener('abort', onAbort);
          job.waiters--;
          reject(err as Error);
        },
      );
    });
  }

  /** A small stored blob (an image config) of at most `limit` bytes, fetched first when missing. */
  async readSmall(t: PullTarget, d: Descriptor, what: string, limit: number): Promise<Buffer> {
    if (d.size > limit)
      throw new OpmError(`${what} ${d.digest} is too large (${d.size} bytes)`, {
        code: 'E_MANIFEST_INVALID',
      });
    const cached = await t.store.readSmall(d.digest);
    if (cached !== undefined && cached.length === d.size) return cached;
    await this.ensure(t, d, what);
    const b = await t.store.readSmall(d.digest);
    if (b === undefined)
      throw new OpmError(`${what} ${d.digest} vanished from the cache`, { code: 'E_CACHE' });
    return b;
  }

  /**
   * Download a blob into the store, trying again when the connection drops mid-body. The deadline
   * runs from the first request to the last byte, over every attempt: a server trickling the blob
   * cannot hold the pull longer by cutting the connection now and then.
   */
  private async download(t: PullTarget, d: Descriptor, what: string): Promise<void> {
    const limit = this.o.bodyDeadlineMs;
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(codedError(`blob not complete within ${limit} ms`, 'UND_ERR_BODY_TIMEOUT')),
      limit,
    );
    const outer = t.signal;
    const signal = outer !== undefined ? AbortSignal.any([outer, deadline.signal]) : deadline.signal;
    const stopped = (err: unknown): unknown => {
      if (outer?.aborted === true) return outer.reason;
      if (!deadline.signal.aborted) return err;
      return new OpmError(
        `${what} ${d.digest}: download not complete within ${seconds(limit)} (over all attempts)`,
        {
          code: 'E_REGISTRY_TIMEOUT',
          hint: 'the registry sends it too slowly; OPM_REGISTRY_BODY_DEADLINE (seconds) sets the limit',
          cause: deadline.signal.reason,
        },
      );
    };
    try {
      for (let attempt = 1; ; attempt++) {
        let res: HttpResponse;
        try {
          res = await t.session.get(
            `/v2/${t.ref.repository}/blobs/${d.digest}`,
            t.ref.repository,
            '*/*',
            signal,
          );
        } catch (err) {
          throw stopped(err);
        }
        if (res.status !== 200) throw await statusError(res, t.ref, 'blob');
        try {
          const report = t.onBlobBytes;
          let got = 0;
          await t.store.write(
            d.digest,
            d.size,
            res.body,
            what,
            report === undefined ? undefined : (n) => report(d.digest, (got += n)),
          );
          // A progress display says it better than a line per blob.
          if (report === undefined) this.o.log(`fetched ${what} ${short(d.digest)} (${humanSize(d.size)})`);
          return;
        } catch (err) {
          res.body.destroy();
          const end = stopped(err);
          if (end !== err) throw end;
          // A connection dropped mid-body is worth another try; wrong content is not.
          if (err instanceof OpmError || attempt >= BLOB_ATTEMPTS) {
            if (err instanceof OpmError) throw err;
            throw new OpmError(
              `${what} ${d.digest}: download failed: ${err instanceof Error ? err.message : String(err)}`,
              {
                code: 'E_REGISTRY_TRANSFER',
                cause: err,
              },
            );
          }
          this.o.log(`${what} ${short(d.digest)}: download interrupted, retrying`);
        }
      }
    } finally {
      clearTimeout(timer);
    }
  }
}
