/**
 * The gRPC server (grpc-http2.ts) on the wire, read by a raw HTTP/2 client: grpc-go's response
 * headers and trailers (an empty `grpc-message` on OK, status texts with printable ASCII as it
 * is), a unary call answered on its first message, gzip answered in kind, grpc-go's answers to
 * bad headers, deadlines, and unary answers kept by request bytes (answer-cache.ts).
 */
import http2 from 'node:http2';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import type { CatalogQueries } from '../catalog-queries/queries.js';
import { ProtoWriter } from '../protobuf/wire.js';
import { AnswerCache } from './answer-cache.js';
import { startServer, type RunningServer } from './server.js';
import type { LogFields } from '../util/log.js';
import { chainRegistry } from '../../test/serve/chain-registry.js';
import { decodeTimeout, encodeGrpcMessage, frameMessage } from './grpc-wire.js';

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
  level: string;
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
    log: (level, msg, fields) => lines.push({ level, msg, fields }),
    ...(answerCacheBytes === undefined ? {} : { answerCacheBytes }),
  });
  return lines;
}

interface Raw {
  headers: http2.IncomingHttpHeaders;
  trailers: http2.IncomingHttpHeaders;
  body: Buffer;
  /** The RST_STREAM code the stream closed with (NO_ERROR when it ended). */
  rstCode: number;
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
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      // A request left open would keep a graceful close (and the server's stop) waiting.
      if (end) session.close();
      else session.destroy();
      resolve({ headers, trailers, body: Buffer.concat(chunks), rstCode: req.rstCode });
    };
    // The answer has ended, or the stream was reset.
    req.on('end', finish);
    req.on('close', finish);
    req.on('error', () => undefined);
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
  return {
    headers: Object.fromEntries(Object.entries(headers)),
    trailers: Object.fromEntries(Object.entries(r.trailers)),
  };
}

describe('answers as grpc-go does', () => {
  it('no gRPC library answers: the server imports none', () => {
    const dir = path.dirname(new URL(import.meta.url).pathname);
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
      expect(readFileSync(path.join(dir, file), 'utf8'), file).not.toMatch(
        /from '@grpc\/|from '@connectrpc\//,
      );
    }
  });

  it('a unary answer: headers :status and content-type, trailers grpc-status 0 and an empty grpc-message', async () => {
    await serve({ count: 0 });
    const port = (server as RunningServer).port;
    const r = await rawCall(port, '/api.Registry/GetBundle', getBundle('b.v1'));
    expect(shape(r)).toEqual({
      headers: { ':status': 200, 'content-type': 'application/grpc' },
      trailers: { 'grpc-status': '0', 'grpc-message': '' },
    });
    expect(r.body.readUInt32BE(1)).toBe(r.body.length - 5);
    // The content type's subtype is answered as it came (grpc-go's contentSubtype).
    const proto = await rawCall(port, '/api.Registry/GetBundle', getBundle('b.v1'), {
      'content-type': 'application/grpc+proto',
    });
    expect(proto.headers['content-type']).toBe('application/grpc+proto');
    expect(proto.body).toEqual(r.body);
  });

  it('a failure: a trailers-only answer whose text keeps printable ASCII as it is', async () => {
    const lines = await serve({ count: 0 });
    const port = (server as RunningServer).port;
    const r = await rawCall(port, '/api.Registry/GetBundle', getBundle('b.v9'));
    expect(shape(r)).toEqual({
      headers: {
        ':status': 200,
        'content-type': 'application/grpc',
        'grpc-status': '2',
        'grpc-message': 'package "p", channel "c", bundle "b.v9" not found',
      },
      trailers: {},
    });
    expect(r.body.length).toBe(0);
    expect(lines.map((l) => `${l.level} ${l.msg} ${String(l.fields['grpc.code'])}`)).toEqual([
      'info started call undefined',
      'error finished call Unknown',
    ]);
    const other = await rawCall(
      port,
      '/api.Registry/GetPackage',
      frameMessage(new ProtoWriter().string(1, 'caf\u00e9 100%').finish()),
    );
    expect(other.headers['grpc-message']).toBe('package "caf%C3%A9 100%25" not found');
  });

  it('percent-encodes grpc-message as grpc-go: bytes outside 0x20-0x7E and the percent sign', () => {
    expect(encodeGrpcMessage('package "" not found')).toBe('package "" not found');
    expect(encodeGrpcMessage('a%b\nc\u00e9\u{1F600}')).toBe('a%25b%0Ac%C3%A9%F0%9F%98%80');
    expect(encodeGrpcMessage('')).toBe('');
  });

  it('a unary request that does not decode: Internal, grpc-go’s text, and no log line (grpc-go decodes it before its interceptors)', async () => {
    const lines = await serve({ count: 0 });
    const port = (server as RunningServer).port;
    const r = await rawCall(
      port,
      '/api.Registry/GetBundle',
      frameMessage(Buffer.from([0x0a, 0x02, 0xff, 0xfe])),
    );
    expect(r.headers['grpc-status']).toBe('13');
    expect(r.headers['grpc-message']).toBe(
      'grpc: error unmarshalling request: string field contains invalid UTF-8',
    );
    const health = await rawCall(port, '/grpc.health.v1.Health/Check', frameMessage(Buffer.from([0x0c])));
    expect(health.headers['grpc-status']).toBe('13');
    expect(lines).toEqual([]);
    // Once its answer is kept, a request is not decoded again; it is still answered and logged.
    await rawCall(port, '/api.Registry/GetBundle', getBundle('b.v1'));
    const again = await rawCall(port, '/api.Registry/GetBundle', getBundle('b.v1'));
    expect(again.trailers['grpc-status']).toBe('0');
    expect(lines.filter((l) => l.msg === 'finished call')).toHaveLength(2);
  });

  it('two messages on a unary call: the first is answered', async () => {
    const lines = await serve({ count: 0 });
    const port = (server as RunningServer).port;
    const r = await rawCall(
      port,
      '/api.Registry/GetBundle',
      Buffer.concat([getBundle('b.v1'), getBundle('b.v2')]),
    );
    expect(r.trailers['grpc-status']).toBe('0');
    expect(r.body.includes('b.v1')).toBe(true);
    expect(r.body.includes('b.v2')).toBe(false);
    expect(lines.filter((l) => l.msg === 'finished call')).toHaveLength(1);
  });

  it('a unary call is answered on its message while the client has not ended its request', async () => {
    await serve({ count: 0 });
    const port = (server as RunningServer).port;
    const r = await rawCall(port, '/api.Registry/GetBundle', getBundle('b.v1'), {}, false);
    expect(r.trailers['grpc-status']).toBe('0');
    expect(r.body.includes('b.v1')).toBe(true);
  });

  it('gzip: a compressed request is read, the answer compressed in kind', async () => {
    await serve({ count: 0 });
    const port = (server as RunningServer).port;
    const plain = await rawCall(port, '/api.Registry/GetBundle', getBundle('b.v1'));
    const message = getBundle('b.v1').subarray(5);
    const r = await rawCall(port, '/api.Registry/GetBundle', frameMessage(zlib.gzipSync(message), true), {
      'grpc-encoding': 'gzip',
    });
    expect(r.headers['grpc-encoding']).toBe('gzip');
    expect(r.trailers['grpc-status']).toBe('0');
    expect(r.body[0]).toBe(1);
    expect(zlib.gunzipSync(r.body.subarray(5))).toEqual(plain.body.subarray(5));
  });

  it('encodings grpc-go lacks: Unimplemented, its words', async () => {
    await serve({ count: 0 });
    const port = (server as RunningServer).port;
    const r = await rawCall(port, '/api.Registry/GetBundle', getBundle('b.v1'), {
      'grpc-encoding': 'deflate',
    });
    expect(r.headers['grpc-status']).toBe('12');
    expect(r.headers['grpc-message']).toBe('grpc: Decompressor is not installed for grpc-encoding "deflate"');
  });

  it('requests that are not gRPC: grpc-go’s HTTP status, code and text', async () => {
    await serve({ count: 0 });
    const port = (server as RunningServer).port;
    const text = await rawCall(port, '/api.Registry/GetBundle', getBundle('b.v1'), {
      'content-type': 'text/plain',
    });
    expect(shape(text).headers).toEqual({
      ':status': 415,
      'content-type': 'application/grpc',
      'grpc-status': '3',
      'grpc-message': 'invalid gRPC request content-type "text/plain"',
    });
    const get = await rawCall(port, '/api.Registry/GetBundle', Buffer.alloc(0), { ':method': 'PUT' });
    expect(get.headers[':status']).toBe(405);
    expect(get.headers['grpc-message']).toBe(
      'Received a HEADERS frame with :method "PUT" which should be POST',
    );
    const timeout = await rawCall(port, '/api.Registry/GetBundle', getBundle('b.v1'), {
      'grpc-timeout': '5x',
    });
    expect(timeout.headers[':status']).toBe(400);
    expect(timeout.headers['grpc-status']).toBe('13');
    expect(timeout.headers['grpc-message']).toBe(
      'malformed grpc-timeout: transport: timeout unit is not recognized: "5x"',
    );
  });

  it('reads grpc-timeout as grpc-go: up to 8 digits and a unit', () => {
    expect([decodeTimeout('20S'), decodeTimeout('1000m'), decodeTimeout('2M'), decodeTimeout('1H')]).toEqual([
      20_000, 1000, 120_000, 3_600_000,
    ]);
    expect(() => decodeTimeout('5')).toThrow('transport: timeout string is too short: "5"');
    expect(() => decodeTimeout('123456789S')).toThrow('transport: timeout string is too long: "123456789S"');
    expect(() => decodeTimeout('x5S')).toThrow('strconv.ParseUint: parsing "x5": invalid syntax');
  });

  it('a request that stalls past its deadline: DeadlineExceeded, then RST_STREAM(CANCEL), as grpc-go', async () => {
    const lines = await serve({ count: 0 });
    const port = (server as RunningServer).port;
    // The message's first bytes only: the call waits for the rest until its deadline.
    const part = getBundle('b.v2').subarray(0, 3);
    const r = await rawCall(port, '/api.Registry/GetBundle', part, { 'grpc-timeout': '200m' }, false);
    expect(r.headers['grpc-status']).toBe('4');
    expect(r.headers['grpc-message']).toBe('context deadline exceeded');
    // The handler never ran: nothing logged (grpc-go reads a unary request before its interceptors).
    expect(lines).toEqual([]);
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

  it('logs a call with its metadata and deadline', async () => {
    const lines = await serve({ count: 0 });
    const port = (server as RunningServer).port;
    await rawCall(port, '/api.Registry/GetBundle', getBundle('b.v1'), {
      'grpc-timeout': '20S',
      'user-agent': 'grpc-go/1.82.1',
      'x-acknowledge-experimental': 'true',
    });
    const started = lines[0]?.fields ?? {};
    expect(started['grpc.request.deadline']).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(started['user-agent']).toBe('[grpc-go/1.82.1]');
    expect(started['x-acknowledge-experimental']).toBe('[true]');
    expect(started[':authority']).toBe(`[127.0.0.1:${port}]`);
    expect(started['peer.address']).toMatch(/^127\.0\.0\.1:\d+$/);
    for (const key of ['te', 'grpc-timeout', 'content-type']) expect(started[key], key).not.toBe(`[${key}]`);
    expect(started['content-type']).toBe('[application/grpc]');
    expect(Object.keys(started)).not.toContain('te');
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
