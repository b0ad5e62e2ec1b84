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
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { CatalogLines, MetaQuery, Section } from './catalog-lines.js';
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

/** Whether Accept-Encoding takes gzip, read as gzhttp reads it (gzip with a q above 0). */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  for (const part of header.split(',')) {
    const [coding = '', ...params] = part.split(';');
    if (coding.trim().toLowerCase() !== 'gzip') continue;
    let q = 1;
    for (const p of params) {
      const t = p.trim();
      if (t.startsWith('q=')) q = Math.min(1, Math.max(0, Number.parseFloat(t.slice(2)) || 0));
    }
    return q > 0;
  }
  return false;
}

const DAYS = '(Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAYS = '(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MON = `(${MONTHS.join('|')})`;
const IMF = new RegExp(`^${DAYS}, (\\d{2}) ${MON} (\\d{4}) (\\d{2}):(\\d{2}):(\\d{2}) GMT$`);
const RFC850 = new RegExp(`^${LONG_DAYS}, (\\d{2})-${MON}-(\\d{2}) (\\d{2}):(\\d{2}):(\\d{2}) GMT$`);
const ANSIC = new RegExp(`^${DAYS} ${MON} ([ \\d]\\d) (\\d{2}):(\\d{2}):(\\d{2}) (\\d{4})$`);

function utc(y: number, mon: string, d: number, h: number, m: number, s: number): number | undefined {
  const month = MONTHS.indexOf(mon);
  if (d < 1 || d > 31 || h > 23 || m > 59 || s > 59) return undefined;
  const t = Date.UTC(y, month, d, h, m, s);
  // 31 Feb and the like roll over in Date.UTC; Go refuses them.
  return new Date(t).getUTCDate() === d ? t : undefined;
}

/** An HTTP date in any of the three forms Go's http.ParseTime takes, as milliseconds; undefined when it is none. */
export function parseHttpDate(text: string): number | undefined {
  let m = IMF.exec(text);
  if (m !== null) return utc(Number(m[4]), m[3]!, Number(m[2]), Number(m[5]), Number(m[6]), Number(m[7]));
  m = RFC850.exec(text);
  if (m !== null) {
    // Go reads a two-digit year as 1969–2068.
    const yy = Number(m[4]);
    return utc(
      yy >= 69 ? 1900 + yy : 2000 + yy,
      m[3]!,
      Number(m[2]),
      Number(m[5]),
      Number(m[6]),
      Number(m[7]),
    );
  }
  m = ANSIC.exec(text);
  if (m !== null)
    return utc(Number(m[7]), m[2]!, Number(m[3]!.trim()), Number(m[4]), Number(m[5]), Number(m[6]));
  return undefined;
}

/** Go's scanETag: the entity tag at the start of `s` and what follows it, or undefined. */
function scanEtag(s: string): { rest: string } | undefined {
  const start = s.startsWith('W/') ? 2 : 0;
  if (s.length - start < 2 || s[start] !== '"') return undefined;
  for (let i = start + 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) return { rest: s.slice(i + 1) };
    if (!(c === 0x21 || (c >= 0x23 && c <= 0x7e) || c >= 0x80)) return undefined;
  }
  return undefined;
}

/**
 * Whether a list of entity tags holds `*` (the only tag that can match: these answers have no ETag).
 * Go stops reading at the first malformed tag.
 */
function listHasStar(header: string): boolean {
  let s = header;
  for (;;) {
    s = s.trim();
    if (s === '') return false;
    if (s.startsWith(',')) {
      s = s.slice(1);
      continue;
    }
    if (s.startsWith('*')) return true;
    const tag = scanEtag(s);
    if (tag === undefined) return false;
    s = tag.rest;
  }
}

/** Seconds are all an HTTP date holds, so comparisons drop the milliseconds (as Go does). */
const truncSeconds = (ms: number): number => Math.floor(ms / 1000) * 1000;

/**
 * RFC 7232's preconditions as Go's ServeContent evaluates them for an answer without an ETag:
 * 412 when If-Match or If-Unmodified-Since fails, 304 when If-None-Match is `*` or nothing changed
 * since If-Modified-Since, undefined to answer in full. A date that does not parse is ignored.
 */
export function preconditions(headers: IncomingMessage['headers'], modified: Date): 304 | 412 | undefined {
  const mod = truncSeconds(modified.getTime());
  const ifMatch = headers['if-match'];
  let ok: boolean | undefined;
  if (ifMatch !== undefined && ifMatch !== '') ok = listHasStar(ifMatch);
  else {
    const ius = headers['if-unmodified-since'];
    const t = ius === undefined || ius === '' ? undefined : parseHttpDate(ius);
    if (t !== undefined) ok = mod <= t;
  }
  if (ok === false) return 412;
  const inm = headers['if-none-match'];
  if (inm !== undefined && inm !== '') return listHasStar(inm) ? 304 : undefined;
  const ims = headers['if-modified-since'];
  const t = ims === undefined || ims === '' ? undefined : parseHttpDate(ims);
  if (t !== undefined && mod <= t) return 304;
  return undefined;
}

/** RFC 7232 4.1: a 304 carries no representation headers. */
function sendNotModified(res: ServerResponse): void {
  res.removeHeader('Content-Type');
  res.removeHeader('Content-Length');
  res.removeHeader('Content-Encoding');
  res.statusCode = 304;
  res.end();
}

export type RangeAnswer =
  { kind: 'whole' } | { kind: 'one'; section: Section } | { kind: 'invalid'; text: string };

/**
 * A Range header read as Go's ServeContent reads it: one satisfiable range is answered with 206;
 * several, or ranges that add up to more than the body, with the whole body; a malformed header or
 * one whose ranges all start past the end with 416.
 */
export function parseRange(header: string | undefined, size: number): RangeAnswer {
  if (header === undefined || header === '') return { kind: 'whole' };
  const invalid: RangeAnswer = { kind: 'invalid', text: 'invalid range' };
  if (!header.startsWith('bytes=')) return invalid;
  const int = (s: string): number | undefined => (/^\+?\d+$/.test(s) ? Number(s) : undefined);
  const ranges: Section[] = [];
  let noOverlap = false;
  for (const raw of header.slice(6).split(',')) {
    const ra = raw.trim();
    if (ra === '') continue;
    const dash = ra.indexOf('-');
    if (dash < 0) return invalid;
    const first = ra.slice(0, dash).trim();
    const last = ra.slice(dash + 1).trim();
    if (first === '') {
      if (last === '' || last.startsWith('-')) return invalid;
      let n = int(last);
      if (n === undefined) return invalid;
      if (n > size) n = size;
      ranges.push({ offset: size - n, length: n });
      continue;
    }
    const start = int(first);
    if (start === undefined) return invalid;
    if (start >= size) {
      noOverlap = true;
      continue;
    }
    if (last === '') {
      ranges.push({ offset: start, length: size - start });
      continue;
    }
    let end = int(last);
    if (end === undefined || start > end) return invalid;
    if (end >= size) end = size - 1;
    ranges.push({ offset: start, length: end - start + 1 });
  }
  if (noOverlap && ranges.length === 0) return { kind: 'invalid', text: 'invalid range: failed to overlap' };
  const sum = ranges.reduce((n, r) => n + r.length, 0);
  const only = ranges[0];
  if (ranges.length !== 1 || only === undefined || sum > size) return { kind: 'whole' };
  return { kind: 'one', section: only };
}

/** If-Range: a range is served only when the header names the answer's date (there is no ETag to name). */
function ifRangeHolds(headers: IncomingMessage['headers'], modified: Date): boolean {
  const raw = headers['if-range'];
  const v = Array.isArray(raw) ? raw.join(', ') : raw;
  if (v === undefined || v === '') return true;
  if (v.startsWith('"') || v.startsWith('W/')) return false;
  const t = parseHttpDate(v);
  return t !== undefined && t === truncSeconds(modified.getTime());
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
  const source = Readable.from(readSections(lines.file, sections), { objectMode: false });
  try {
    if (gzip) await pipeline(source, createGzip(), count, res);
    else await pipeline(source, count, res);
  } catch {
    // The client went away (or the file could not be read, which the log line's size shows):
    // pipeline has closed the response and released the file.
  }
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
  try {
    // A path is read as a path even when it starts with `//` (which a base URL would take for a host).
    const target = req.url ?? '/';
    url = target.startsWith('/') ? new URL(`http://catalog${target}`) : new URL(target);
  } catch {
    return sendError(res, 400, 'Bad Request');
  }
  const parts = segments(url.pathname);
  if (parts === undefined) return sendError(res, 400, 'Bad Request');
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
  if (endpoint === 'metas') {
    for (const key of url.searchParams.keys()) if (!META_PARAMS.has(key)) return sendStatus(res, 400);
  }
  if (name !== opts.name) return sendStatus(res, 404);
  let lines: CatalogLines;
  try {
    lines = await opts.lines;
  } catch {
    return sendStatus(res, 500);
  }
  if (endpoint === 'all') return serveAll(x, lines);
  const q = url.searchParams;
  return serveMetas(x, lines, {
    schema: q.get('schema') ?? '',
    package: q.get('package') ?? '',
    name: q.get('name') ?? '',
  });
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
  const server = createServer((req, res) => {
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
