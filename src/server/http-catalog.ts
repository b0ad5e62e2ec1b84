/**
 * OLM v1's catalog API (catalogd's HTTP server) for the one catalog being served, on its own address:
 *
 * - `GET|HEAD /catalogs/<name>/api/v1/all`: every blob as a line of JSON (`application/jsonl`), with
 *   Last-Modified, conditional requests (304, 412) and single byte ranges, as Go's ServeContent answers;
 * - `GET|HEAD /catalogs/<name>/api/v1/metas?schema=&package=&name=`: the blobs matching every given
 *   field, in catalog order (all of them when no field is given; none is an empty 200); any other
 *   query parameter is a 400.
 *
 * Bodies of 1,024 bytes or more are gzipped for a GET whose Accept-Encoding takes gzip (catalogd's
 * gzhttp rule), and every answer carries `Vary: Accept-Encoding`. Other methods are 405, other
 * paths 404 with Go's texts. Each request is logged once, when its answer is done.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { open } from 'node:fs/promises';
import { Readable, Transform, type Duplex } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { CatalogLines, MetaQuery, Section } from './catalog-lines.js';
import { gzipBounded, wholeGzip } from './http-gzip.js';
import { acceptsGzip, goQuery, ifRangeHolds, parseRange, preconditions } from './http-request.js';
import type { ServeLog } from '../util/log.js';

export interface HttpCatalogOptions {
  /** The host to listen on; empty for every interface. */
  host: string;
  port: number;
  /** The catalog's name: the `<name>` of the paths. */
  name: string;
  /** The catalog's lines; requests wait for them, and a failure answers 500. */
  lines: Promise<CatalogLines>;
  log: ServeLog;
}

export interface RunningHttpCatalog {
  /** The port it listens on. */
  port: number;
  /** Stop taking requests, let running ones finish (for at most 30 s, catalogd's grace), close the listener. */
  stop(): Promise<void>;
}

/** The smallest body gzhttp compresses (its DefaultMinSize). */
export const GZIP_MIN_BYTES = 1024;
/** How long running answers may go on once the server is stopping (catalogd's shutdown timeout). */
const SHUTDOWN_GRACE_MS = 30_000;
const READ_CHUNK = 64 * 1024;
const JSONL = 'application/jsonl';
const META_PARAMS = new Set(['schema', 'package', 'name']);

/** Go's http.StatusText for the statuses answered here. */
const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  404: 'Not Found',
  405: 'Method Not Allowed',
  416: 'Requested Range Not Satisfiable',
  500: 'Internal Server Error',
};

/**
 * The most a request's line and headers may hold: Go's http.Server reads up to MaxHeaderBytes
 * (1 MiB by default) plus 4,096 bytes of slack, and catalogd keeps the default.
 */
const MAX_HEADER_BYTES = (1 << 20) + 4096;
/** How long a refused connection's remaining input is read before it is closed (Go waits 500 ms). */
const REFUSED_LINGER_MS = 500;

/**
 * A request that cannot be read, answered as Go's server answers it: 431 for a line or headers over
 * MAX_HEADER_BYTES, else 400 with the reason. The answer is sent and the rest of what the client
 * sends is read and dropped for a moment before the connection is closed: closing with input unread
 * would reset the connection, and the client would never see the status.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || refused.has(socket)) {
    socket.destroy();
    return;
  }
  refused.add(socket);
  const text =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? '431 Request Header Fields Too Large'
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'HPE_HEADER_TIMEOUT'
        ? '408 Request Timeout'
        : `400 Bad Request: ${lowerFirst((err as { reason?: string }).reason ?? 'malformed HTTP request')}`;
  const status = text.slice(0, text.indexOf(':') < 0 ? undefined : text.indexOf(':'));
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${text}`,
  );
  socket.on('data', () => undefined);
  socket.resume();
  const close = setTimeout(() => socket.destroy(), REFUSED_LINGER_MS);
  socket.once('close', () => clearTimeout(close));
}
const refused = new WeakSet<Duplex>();
/** The parser's reasons (`Invalid method encountered`) worded as Go's errors are, in lower case. */
const lowerFirst = (text: string): string => text.charAt(0).toLowerCase() + text.slice(1);

/** A failure to listen, in Go's words where the cause is known. */
export class HttpListenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HttpListenError';
  }
}

/** Go's http.Error: a plain-text body of one line. */
function sendError(res: ServerResponse, status: number, text: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  const body = `${text}\n`;
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** catalogd's httpError: the status code and its text as the body. */
function sendStatus(res: ServerResponse, status: number): void {
  sendError(res, status, `${status} ${STATUS_TEXT[status] ?? ''}`);
}

/** RFC 7232 4.1: a 304 carries no representation headers. */
function sendNotModified(res: ServerResponse): void {
  res.removeHeader('Content-Type');
  res.removeHeader('Content-Length');
  res.removeHeader('Content-Encoding');
  res.statusCode = 304;
  res.end();
}

/** The bytes of `sections` of `file`, read a chunk at a time as the client takes them. */
async function* readSections(file: string, sections: readonly Section[]): AsyncGenerator<Buffer> {
  const handle = await open(file, 'r');
  try {
    for (const s of sections) {
      let pos = s.offset;
      const end = s.offset + s.length;
      while (pos < end) {
        const buf = Buffer.allocUnsafe(Math.min(READ_CHUNK, end - pos));
        const { bytesRead } = await handle.read(buf, 0, buf.length, pos);
        if (bytesRead === 0) throw new Error(`${file}: ends before byte ${end}`);
        pos += bytesRead;
        yield bytesRead === buf.length ? buf : buf.subarray(0, bytesRead);
      }
    }
  } finally {
    await handle.close();
  }
}

/** Per-request state: the body bytes sent (after compression), for the log line. */
interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  sent: number;
}

/**
 * Send `sections` of the lines as the body (status and headers already set), gzipped when `gzip`.
 * A HEAD sends the headers alone.
 */
async function sendSections(
  x: Exchange,
  lines: CatalogLines,
  sections: readonly Section[],
  gzip: boolean,
): Promise<void> {
  const { req, res } = x;
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  const count = new Transform({
    transform(chunk: Buffer, _enc, done) {
      x.sent += chunk.length;
      done(null, chunk);
    },
  });
  try {
    await pipeline(Readable.from(await body(lines, sections, gzip), { objectMode: false }), count, res);
  } catch {
    // The client went away (or the file could not be read, which the log line's size shows):
    // pipeline has closed the response and released the file.
  }
}

/**
 * The bytes of an answer: the sections of the lines, gzipped when asked. The whole catalog's gzip
 * is read from the file it was compressed into once; other bodies are compressed as they are read,
 * within the server's bound on compressing (http-gzip.ts).
 */
async function body(
  lines: CatalogLines,
  sections: readonly Section[],
  gzip: boolean,
): Promise<AsyncIterable<Buffer>> {
  if (!gzip) return readSections(lines.file, sections);
  const whole = sections.length === 1 && sections[0]?.offset === 0 && sections[0].length === lines.size;
  const gz = whole ? await wholeGzip(lines) : undefined;
  if (gz === undefined) return gzipBounded(readSections(lines.file, sections));
  return readSections(gz.file, [{ offset: 0, length: gz.size }]);
}

function totalLength(sections: readonly Section[]): number {
  return sections.reduce((n, s) => n + s.length, 0);
}

/** If-Match, If-Unmodified-Since, If-None-Match, If-Modified-Since: a 304 or 412 sent, or false. */
function answeredByPreconditions(x: Exchange, lines: CatalogLines): boolean {
  const pre = preconditions(x.req.headers, lines.modified);
  if (pre === 304) {
    sendNotModified(x.res);
    return true;
  }
  if (pre === 412) {
    x.res.statusCode = 412;
    x.res.end();
    return true;
  }
  return false;
}

/** `/api/v1/all`: Go's ServeContent over the lines file. */
async function serveAll(x: Exchange, lines: CatalogLines): Promise<void> {
  const { req, res } = x;
  res.setHeader('Content-Type', JSONL);
  res.setHeader('Last-Modified', lines.modified.toUTCString());
  if (answeredByPreconditions(x, lines)) return;
  const range = ifRangeHolds(req.headers, lines.modified)
    ? parseRange(req.headers.range, lines.size)
    : ({ kind: 'whole' } as const);
  if (range.kind === 'invalid') {
    res.setHeader('Content-Range', `bytes */${lines.size}`);
    return sendError(res, 416, range.text);
  }
  if (range.kind === 'one') {
    const s = range.section;
    res.statusCode = 206;
    res.setHeader('Accept-Ranges', 'bytes');
    res.setHeader('Content-Range', `bytes ${s.offset}-${s.offset + s.length - 1}/${lines.size}`);
    res.setHeader('Content-Length', s.length);
    return sendSections(x, lines, [s], false);
  }
  const gzip =
    req.method === 'GET' && acceptsGzip(req.headers['accept-encoding']) && lines.size >= GZIP_MIN_BYTES;
  // A gzipped body has no byte ranges to offer (gzhttp drops Accept-Ranges when it compresses).
  if (gzip) res.setHeader('Content-Encoding', 'gzip');
  else {
    res.setHeader('Accept-Ranges', 'bytes');
    res.setHeader('Content-Length', lines.size);
  }
  res.statusCode = 200;
  return sendSections(x, lines, [{ offset: 0, length: lines.size }], gzip);
}

/** `/api/v1/metas`: the blobs matching the query, in catalog order. */
async function serveMetas(x: Exchange, lines: CatalogLines, q: MetaQuery): Promise<void> {
  const { req, res } = x;
  res.setHeader('Last-Modified', lines.modified.toUTCString());
  if (answeredByPreconditions(x, lines)) return;
  const sections =
    q.schema === '' && q.package === '' && q.name === ''
      ? [{ offset: 0, length: lines.size }]
      : lines.sections(q);
  const size = totalLength(sections);
  res.statusCode = 200;
  res.setHeader('Content-Type', JSONL);
  const gzip = req.method === 'GET' && acceptsGzip(req.headers['accept-encoding']) && size >= GZIP_MIN_BYTES;
  if (gzip) res.setHeader('Content-Encoding', 'gzip');
  else res.setHeader('Content-Length', size);
  return sendSections(x, lines, sections, gzip);
}

/** The decoded segments of a path, or undefined when an escape is malformed. */
function segments(pathname: string): string[] | undefined {
  try {
    return pathname.split('/').map((s) => decodeURIComponent(s));
  } catch {
    return undefined;
  }
}

async function route(x: Exchange, opts: HttpCatalogOptions): Promise<void> {
  const { req, res } = x;
  res.setHeader('Vary', 'Accept-Encoding');
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendError(res, 405, 'Method Not Allowed');
  let url: URL;
  const target = req.url ?? '/';
  try {
    // A path is read as a path even when it starts with `//` (which a base URL would take for a host).
    url = target.startsWith('/') ? new URL(`http://catalog${target}`) : new URL(target);
  } catch {
    return sendError(res, 400, `400 Bad Request: malformed request target ${JSON.stringify(target)}`);
  }
  const parts = segments(url.pathname);
  if (parts === undefined) {
    const bad = /%(?![0-9a-fA-F]{2})[^/]{0,2}/.exec(url.pathname)?.[0] ?? '%';
    return sendError(res, 400, `400 Bad Request: invalid URL escape ${JSON.stringify(bad)}`);
  }
  const [empty, catalogs, name, api, v1, endpoint, ...more] = parts;
  const known =
    empty === '' &&
    catalogs === 'catalogs' &&
    name !== undefined &&
    name !== '' &&
    api === 'api' &&
    v1 === 'v1' &&
    (endpoint === 'all' || endpoint === 'metas') &&
    more.length === 0;
  if (!known) return sendError(res, 404, '404 page not found');
  // The query as sent (the URL parser would re-encode it), up to the end of the target as in Go.
  const q = target.indexOf('?');
  const query = goQuery(q < 0 ? '' : target.slice(q + 1));
  if (endpoint === 'metas') {
    for (const key of query.keys())
      if (!META_PARAMS.has(key))
        return sendError(
          res,
          400,
          `400 Bad Request: unknown query parameter ${JSON.stringify(key)} (metas takes schema, package and name)`,
        );
  }
  if (name !== opts.name) return sendStatus(res, 404);
  let lines: CatalogLines;
  try {
    lines = await opts.lines;
  } catch {
    return sendStatus(res, 500);
  }
  if (endpoint === 'all') return serveAll(x, lines);
  const first = (key: string): string => query.get(key)?.[0] ?? '';
  return serveMetas(x, lines, { schema: first('schema'), package: first('package'), name: first('name') });
}

function listenError(addr: string, err: NodeJS.ErrnoException): HttpListenError {
  const reason: Record<string, string> = {
    EADDRINUSE: 'bind: address already in use',
    EACCES: 'bind: permission denied',
    EADDRNOTAVAIL: 'bind: cannot assign requested address',
  };
  const why = err.code === undefined ? undefined : reason[err.code];
  if (why !== undefined) return new HttpListenError(`failed to listen: listen tcp ${addr}: ${why}`);
  if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN')
    return new HttpListenError(
      `failed to listen: listen tcp ${addr}: lookup ${err.message.split(' ').pop() ?? ''}: no such host`,
    );
  return new HttpListenError(`failed to listen: listen tcp ${addr}: ${err.message}`);
}

/** Listen on `host:port` and answer the catalog API. Rejects with HttpListenError when the address cannot be had. */
export async function startHttpCatalog(opts: HttpCatalogOptions): Promise<RunningHttpCatalog> {
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => {
    const start = performance.now();
    const x: Exchange = { req, res, sent: 0 };
    // Read now: a socket the client has closed no longer knows its peer.
    const host = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    res.on('close', () => {
      opts.log('info', 'handled request', {
        host,
        method: req.method ?? '',
        protocol: `HTTP/${req.httpVersion}`,
        size: x.sent,
        status: res.statusCode,
        time_ms: (performance.now() - start).toFixed(3),
        uri: req.url ?? '',
        username: '-',
      });
    });
    // Error and HEAD bodies are counted as Go's logging handler counts them: what was written.
    const end = res.end.bind(res);
    res.end = ((...args: Parameters<ServerResponse['end']>) => {
      const body = args[0];
      if (req.method !== 'HEAD' && (typeof body === 'string' || Buffer.isBuffer(body)))
        x.sent += Buffer.byteLength(body);
      return end(...args);
    }) as ServerResponse['end'];
    route(x, opts).catch(() => {
      if (!res.headersSent) sendStatus(res, 500);
      else res.destroy();
    });
  });
  server.on('clientError', answerClientError);
  // catalogd's server reads a request for at most 5 s.
  server.headersTimeout = 5_000;
  server.requestTimeout = 5_000;
  const addr = `${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${opts.port}`;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(listenError(addr, err)));
    if (opts.host === '') server.listen(opts.port, resolve);
    else server.listen(opts.port, opts.host, resolve);
  });
  const bound = server.address();
  const port = typeof bound === 'object' && bound !== null ? bound.port : opts.port;
  return {
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        const grace = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
        server.close(() => {
          clearTimeout(grace);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
