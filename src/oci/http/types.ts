/**
 * The shapes the registry client's HTTP layer speaks in: requests, responses and their bodies,
 * time-outs, and the engine interface the two HTTP engines (node:http/https, undici through a proxy)
 * implement.
 */
import { OpmError } from '../../errors.js';

/** A response body: read it to the end, `dump()` it, or `destroy()` it. */
export interface Body extends AsyncIterable<Buffer> {
  dump(): Promise<void>;
  destroy(err?: Error): void;
}

export type Headers = Record<string, string | string[] | undefined>;

/** What one exchange of an engine may be given besides the request itself. */
export interface ExchangeOptions {
  /** Stops the exchange: a request not answered yet fails, a body being read fails, with its reason. */
  signal?: AbortSignal;
  /** Connect time-out for this exchange, instead of the engine's. */
  connectMs?: number;
}

/** One HTTP exchange without redirects: what both engines provide. */
/**
 * A request body that can be sent again (after a redirect or a fresh challenge): its length and a
 * way to read it from the start, so that a large blob is streamed rather than held in memory.
 */
export interface StreamBody {
  length: number;
  open(): AsyncIterable<Uint8Array>;
}

export type RequestBody = string | Uint8Array | StreamBody;

export function isStreamBody(b: RequestBody | undefined): b is StreamBody {
  return typeof b === 'object' && !(b instanceof Uint8Array);
}

export interface Engine {
  request(
    url: URL,
    method: string,
    headers: Record<string, string>,
    body: RequestBody | undefined,
    options: ExchangeOptions,
  ): Promise<RawResponse>;
  close(): Promise<void>;
}

export interface RawResponse {
  status: number;
  headers: Headers;
  body: Body;
}

export interface HttpResponse {
  status: number;
  headers: Headers;
  body: Body;
  /** Final URL after redirects. */
  url: URL;
}

/** A response header's first value (header names in lower case, as both engines give them). */
export function header(res: Pick<HttpResponse, 'headers'>, name: string): string | undefined {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export interface HttpRequest {
  url: URL;
  method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: RequestBody;
  /**
   * Whether a failed exchange (429, 5xx, a dropped connection) may be sent again as it is: true for
   * GET, HEAD and PUT by default, false for POST and PATCH (an upload's steps are retried by the
   * push, which knows where the upload stands).
   */
  retry?: boolean;
  /** Skip certificate checks for this request (and its redirects), as `skipTlsVerify` does for all. */
  skipTlsVerify?: boolean;
  /** Stops the request, its retries and back-off waits, and the reading of its body. */
  signal?: AbortSignal;
  /**
   * A host that cannot be reached is not tried again and is given a short connect time-out: for
   * mirrors, where the next source is the better retry.
   */
  dialOnce?: boolean;
}

export interface Timeouts {
  connectMs: number;
  /** Connect time-out of requests made with `dialOnce` (mirrors). */
  mirrorConnectMs: number;
  headersMs: number;
  /** Longest pause between two chunks of a body. */
  bodyMs: number;
  /**
   * Longest time for one response body: a server trickling a byte now and then never pauses long.
   * A blob's download applies it to all its attempts together (pull/blob-fetcher.ts).
   */
  bodyDeadlineMs: number;
}

/**
 * A network error carrying a code. Time-outs use undici's codes so that messages and retries are
 * the same whichever engine made the request.
 */
export function codedError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

/** Failures of a request on a connection opened for it, not a reused keep-alive one. */
const firstUse = new WeakSet<object>();

/** Note that `err` ended a request on a connection opened for it. */
export function markFirstUse(err: Error): void {
  firstUse.add(err);
}

/**
 * Whether `err` ended a request on a connection opened for it: a reset there is the server
 * refusing, where on a reused keep-alive connection it is often a server closing an idle one.
 */
export function onFirstUse(err: unknown): boolean {
  return typeof err === 'object' && err !== null && firstUse.has(err);
}

/** Read a body up to `limit` bytes; more is an error (a registry should never send that much here). */
export async function readBounded(body: Body, limit: number, what: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const chunk of body) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    n += b.length;
    if (n > limit) {
      body.destroy();
      throw new OpmError(`${what} is larger than ${limit} bytes`, { code: 'E_REGISTRY_RESPONSE' });
    }
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

/** A body already read, to hand on as if it had not been. */
export function bufferBody(bytes: Buffer): Body {
  let done = false;
  return {
    // eslint-disable-next-line @typescript-eslint/require-await -- an async generator of one chunk
    [Symbol.asyncIterator]: async function* () {
      if (done) return;
      done = true;
      if (bytes.length > 0) yield bytes;
    },
    dump: () => {
      done = true;
      return Promise.resolve();
    },
    destroy: () => {
      done = true;
    },
  };
}

/** Wait `ms`, or less when the signal stops it: then reject with the signal's reason. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
