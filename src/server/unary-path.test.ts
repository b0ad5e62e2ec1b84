/**
 * api.Registry's plain unary calls, answered beside grpc-js (unary-path.ts) and kept by request
 * bytes (answer-cache.ts): the same bytes, headers, trailers and statuses as grpc-js's path, the
 * same log lines, and answers made once.
 */
import * as grpc from '@grpc/grpc-js';
import http2 from 'node:http2';
import { afterEach, describe, expect, it } from 'vitest';
import type { CatalogQueries } from '../api/queries.js';
import { ProtoWriter } from '../api/wire.js';
import { AnswerCache } from './answer-cache.js';
import { startServer, type RunningServer } from './server.js';
import type { LogFields } from '../util/log.js';
import { chainRegistry } from '../../test/serve/chain-registry.js';
import { frameMessage, installUnaryPath, plainMetadataFields, requestTimeout } from './unary-path.js';

/** One package `p`, channel `c`, bundles b.v0 … b.v2; `made` counts the bundles the store reads. */
function registry(made: { count: number }): CatalogQueries {
  return chainRegistry(3, (key) => {
    made.count++;
    return {
      csvJson: `{"kind":"ClusterServiceVersion","metadata":{"name":"${key.name}"}}`,
      bundlePath: `example.com/b:${key.name}`,
    };
  });
}

interface Line {
  msg: string;
  fields: LogFields;
}

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function serve(made: { count: number }, answerCacheBytes?: number): Promise<Line[]> {
  const lines: Line[] = [];
  server = await startServer({
    registry: registry(made),
    port: '0',
    log: (_level, msg, fields) => lines.push({ msg, fields }),
    ...(answerCacheBytes === undefined ? {} : { answerCacheBytes }),
  });
  return lines;
}

interface Raw {
  headers: http2.IncomingHttpHeaders;
  trailers: http2.IncomingHttpHeaders;
  body: Buffer;
}

/** One call over a raw HTTP/2 client: everything the server sent. */
function rawCall(
  port: number,
  path: string,
  body: Buffer,
  extra: http2.OutgoingHttpHeaders = {},
  end = true,
): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://127.0.0.1:${port}`);
    session.on('error', reject);
    const req = session.request({
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...extra,
    });
    let headers: http2.IncomingHttpHeaders = {};
    let trailers: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    req.on('response', (h) => (headers = h));
    req.on('trailers', (t) => (trailers = t));
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      // A request left open would keep a graceful close (and the server's stop) waiting.
      if (end) session.close();
      else session.destroy();
      resolve({ headers, trailers, body: Buffer.concat(chunks) });
    });
    req.on('error', reject);
    // A request left open: a client that stalls after its message.
    if (end) req.end(body);
    else req.write(body);
  });
}

const getBundle = (csv: string): Buffer =>
  frameMessage(new ProtoWriter().string(1, 'p').string(2, 'c').string(3, csv).finish());

/** Headers and trailers without the date, which changes from second to second. */
function shape(r: Raw): { headers: Record<string, unknown>; trailers: Record<string, unknown> } {
  const { date: _date, ...headers } = r.headers;
  return { headers: { ...headers }, trailers: { ...r.trailers } };
}

describe('plain unary calls', () => {
  it('installs on this grpc-js release (when a release renames its stream handler, this fails)', () => {
    const s = new grpc.Server();
    expect(installUnaryPath(s, new Set(['/x/Y']), 16, () => Promise.reject(new Error('unused')))).toBe(true);
  });

  it('a second identical call answers the same bytes without reading the bundle again; both are logged', async () => {
    const made = { count: 0 };
    const lines = await serve(made);
    const port = (server as RunningServer).port;
    const first = await rawCall(port, '/api.Registry/GetBundle', getBundle('b.v1'));
    const second = await rawCall(port, '/api.Registry/GetBundle', getBundle('b.v1'));
    expect(first.trailers['grpc-status']).toBe('0');
    expect(first.body.length).toBeGreaterThan(5);
    expect(second.body).toEqual(first.body);
    expect(made.count).toBe(1);
    expect(
      lines.map((l) => `${l.msg} ${String(l.fields['grpc.method'])} ${String(l.fields['grpc.code'])}`),
    ).toEqual([
      'started call GetBundle undefined',
      'finished call GetBundle OK',
      'started call GetBundle undefined',
      'finished call GetBundle OK',
    ]);
  });

  it('answers as grpc-js does: a call with a short deadline (grpc-js path) and one without get the same bytes, headers and trailers', async () => {
    await serve({ count: 0 });
    const port = (server as RunningServer).port;
    const plain = await rawCall(port, '/api.Registry/GetBundle', getBundle('b.v2'));
    const viaGrpcJs = await rawCall(port, '/api.Registry/GetBundle', getBundle('b.v2'), {
      'grpc-timeout': '900m',
    });
    expect(plain.body).toEqual(viaGrpcJs.body);
    expect(shape(plain)).toEqual(shape(viaGrpcJs));
    // A failure: a trailers-only answer, the same both ways.
    const missing = await rawCall(port, '/api.Registry/GetBundle', getBundle('b.v9'));
    const missingViaGrpcJs = await rawCall(port, '/api.Registry/GetBundle', getBundle('b.v9'), {
      'grpc-timeout': '900m',
    });
    expect(missing.body.length).toBe(0);
    expect(shape(missing)).toEqual(shape(missingViaGrpcJs));
    expect(missing.headers['grpc-status']).toBe('2');
  });

  it('takes deadlines of a second or more in the form clients write them, in milliseconds as grpc-js counts them', () => {
    const t = (v: string | undefined): number | undefined =>
      requestTimeout(v === undefined ? {} : { 'grpc-timeout': v });
    expect(t(undefined)).toBeUndefined();
    expect([t('20S'), t('1S'), t('1000m'), t('1000000u'), t('2M'), t('1H')]).toEqual([
      20_000, 1000, 1000, 1000, 120_000, 3_600_000,
    ]);
    // Shorter, or forms only grpc-js's looser reading accepts: left to grpc-js.
    for (const v of ['999m', '5', '5 S', 'x5S', '123456789S', '1000000000n', '']) expect(t(v), v).toBeNaN();
  });

  it('a call with a deadline of seconds is answered and logged as on the path of grpc-js, its deadline in the log', async () => {
    const lines = await serve({ count: 0 });
    const port = (server as RunningServer).port;
    const lean = await rawCall(port, '/api.Registry/GetBundle', getBundle('b.v2'), { 'grpc-timeout': '20S' });
    const viaGrpcJs = await rawCall(port, '/api.Registry/GetBundle', getBundle('b.v2'), {
      'grpc-timeout': '900m',
    });
    expect(lean.body).toEqual(viaGrpcJs.body);
    expect(shape(lean)).toEqual(shape(viaGrpcJs));
    const started = lines.filter((l) => l.msg === 'started call');
    expect(started).toHaveLength(2);
    for (const l of started) expect(l.fields['grpc.request.deadline']).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('a request that stalls past its deadline ends with DEADLINE_EXCEEDED, as on the path of grpc-js', async () => {
    await serve({ count: 0 });
    const port = (server as RunningServer).port;
    // The message's first bytes only: the call waits for the rest until its deadline.
    const part = getBundle('b.v2').subarray(0, 3);
    const [lean, viaGrpcJs] = await Promise.all([
      rawCall(port, '/api.Registry/GetBundle', part, { 'grpc-timeout': '1S' }, false),
      rawCall(port, '/api.Registry/GetBundle', part, { 'grpc-timeout': '900m' }, false),
    ]);
    expect(lean.headers['grpc-status']).toBe(String(grpc.status.DEADLINE_EXCEEDED));
    expect(shape(lean)).toEqual(shape(viaGrpcJs));
    expect(lean.body.length).toBe(0);
  });

  it('a failure is not kept: the same status every time, each call logged with its error', async () => {
    const made = { count: 0 };
    const lines = await serve(made);
    const client = new grpc.Client(
      `127.0.0.1:${(server as RunningServer).port}`,
      grpc.credentials.createInsecure(),
    );
    const call = (): Promise<grpc.ServiceError | undefined> =>
      new Promise((resolve) =>
        client.makeUnaryRequest(
          '/api.Registry/GetBundle',
          (b: Buffer) => b,
          (b: Buffer) => b,
          getBundle('b.v9').subarray(5),
          (err) => resolve(err ?? undefined),
        ),
      );
    const errors = [await call(), await call()];
    client.close();
    for (const err of errors) {
      expect(err?.code).toBe(grpc.status.UNKNOWN);
      expect(err?.details).toMatch(/b\.v9/);
    }
    expect(errors[1]?.details).toBe(errors[0]?.details);
    const finished = lines.filter((l) => l.msg === 'finished call');
    expect(finished.map((l) => l.fields['grpc.error'])).toEqual([errors[0]?.details, errors[0]?.details]);
    expect(finished.map((l) => l.fields['grpc.code'])).toEqual(['Unknown', 'Unknown']);
  });

  it('logs the metadata of a plain request as grpc-js reads it', () => {
    const headers = {
      ':path': '/api.Registry/GetPackage',
      ':authority': '127.0.0.1:50051',
      'content-type': 'application/grpc',
      te: 'trailers',
      'user-agent': 'grpc-go/1.82.1',
      'x-acknowledge-experimental': 'true',
    };
    const fields = plainMetadataFields(headers);
    const metadata = grpc.Metadata.fromHttp2Headers(headers);
    for (const key of ['te', 'content-type']) metadata.remove(key);
    const expected: Record<string, string> = {};
    for (const [key, values] of Object.entries(metadata.toJSON()))
      expected[key] = `[${values.map(String).join(' ')}]`;
    expect(fields).toEqual(expected);
    expect(Object.keys(fields ?? {})).toEqual(['user-agent', 'x-acknowledge-experimental']);
    // Binary, repeated or illegal headers: grpc-js's Metadata decides.
    expect(plainMetadataFields({ ...headers, 'trace-bin': 'AAE=' })).toBeUndefined();
    expect(plainMetadataFields({ ...headers, 'x-many': ['a', 'b'] })).toBeUndefined();
    expect(plainMetadataFields({ ...headers, 'x-text': 'caf\u00e9' })).toBeUndefined();
  });
});

describe('AnswerCache', () => {
  const bytes = (n: number): Uint8Array => new Uint8Array(n).fill(7);

  it('keeps an answer framed and makes it once; a failure is made again', async () => {
    const cache = new AnswerCache(1024 * 1024);
    let made = 0;
    const make = (): Uint8Array => {
      made++;
      return bytes(10);
    };
    const a = await cache.answer('M', Buffer.from('req'), make);
    const b = await cache.answer('M', Buffer.from('req'), make);
    expect(b).toBe(a);
    expect(made).toBe(1);
    expect([...a.subarray(0, 5)]).toEqual([0, 0, 0, 0, 10]);
    // Another method with the same request bytes is another answer.
    await cache.answer('N', Buffer.from('req'), make);
    expect(made).toBe(2);
    let failed = 0;
    const fail = (): Uint8Array => {
      failed++;
      throw new Error('not found');
    };
    await expect(cache.answer('M', Buffer.from('other'), fail)).rejects.toThrow('not found');
    await expect(cache.answer('M', Buffer.from('other'), fail)).rejects.toThrow('not found');
    expect(failed).toBe(2);
  });

  it('holds at most its bound: the oldest answers go first; an answer over an eighth is not kept', async () => {
    const cache = new AnswerCache(8 * 1000);
    for (let i = 0; i < 20; i++) await cache.answer('M', Buffer.from(`r${i}`), () => bytes(900));
    expect(cache.size).toBeLessThanOrEqual(8 * 1000);
    let made = 0;
    const again = (): Uint8Array => {
      made++;
      return bytes(900);
    };
    await cache.answer('M', Buffer.from('r19'), again);
    expect(made).toBe(0);
    await cache.answer('M', Buffer.from('r0'), again);
    expect(made).toBe(1);
    const before = cache.size;
    await cache.answer('M', Buffer.from('big'), () => bytes(1001));
    expect(cache.size).toBe(before);
  });
});
