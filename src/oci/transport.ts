import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type * as Http from 'node:http';
import type { SecureContext } from 'node:tls';
import type * as Undici from 'undici';
import type { Dispatcher } from 'undici';
import { OpmError } from '../errors.js';
import { errnoText } from '../go/errno.js';
import { compareUtf8 } from '../go/utf8.js';
import { homeDir } from '../util/home-dir.js';

/** A response body: read it to the end, `dump()` it, or `destroy()` it. */
export interface Body extends AsyncIterable<Buffer> {
  dump(): Promise<void>;
  destroy(err?: Error): void;
}
type UndiciModule = typeof Undici;
type Headers = Record<string, string | string[] | undefined>;

/** One HTTP exchange without redirects: what both engines below provide. */
interface Engine {
  request(url: URL, method: string, headers: Record<string, string>, body?: string): Promise<RawResponse>;
  close(): Promise<void>;
}

interface RawResponse {
  status: number;
  headers: Headers;
  body: Body;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Body;
  /** Final URL after redirects. */
  url: URL;
}

export interface HttpRequest {
  url: URL;
  method?: 'GET' | 'HEAD' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Skip certificate checks for this request (and its redirects), as `skipTlsVerify` does for all. */
  skipTlsVerify?: boolean;
}

export interface TransportOptions {
  skipTlsVerify: boolean;
  env: NodeJS.ProcessEnv;
  /** Roots holding `<host[:port]>/` folders of CA (`*.crt`) and client (`*.cert`+`*.key`) files. */
  certDirs?: string[];
  log?: (line: string) => void;
  /** Warnings, shown whatever the terminal (default: `log`). */
  warn?: (line: string) => void;
  /** Attempts per request for 429, 5xx and dropped connections. */
  attempts?: number;
  /** First back-off delay; doubles per attempt. */
  backoffMs?: number;
  /**
   * Time-outs in ms; defaults connect 15 s, headers 30 s, body (between chunks) 60 s, whole body
   * 10 min (`OPM_REGISTRY_BODY_DEADLINE`, in seconds, overrides it). Tests shorten them.
   */
  timeouts?: Partial<Timeouts>;
}

export interface Timeouts {
  connectMs: number;
  headersMs: number;
  /** Longest pause between two chunks of a body. */
  bodyMs: number;
  /** Longest time for a whole body: a server trickling a byte now and then never pauses long. */
  bodyDeadlineMs: number;
}

const MAX_REDIRECTS = 5;
const MAX_RETRY_AFTER_MS = 30_000;
const DEFAULT_TIMEOUTS: Timeouts = {
  connectMs: 15_000,
  headersMs: 30_000,
  bodyMs: 60_000,
  bodyDeadlineMs: 600_000,
};

/** The whole-body deadline from the environment (seconds), when set to a positive number. */
function envDeadline(env: NodeJS.ProcessEnv): Partial<Timeouts> {
  const seconds = Number(env.OPM_REGISTRY_BODY_DEADLINE ?? '');
  return Number.isFinite(seconds) && seconds > 0 ? { bodyDeadlineMs: seconds * 1000 } : {};
}
const MAX_CONNECTIONS = 8;

const TLS_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'EPROTO',
]);
const RETRYABLE_NET_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function defaultCertDirs(env: NodeJS.ProcessEnv): string[] {
  const home = homeDir(env);
  return [
    '/etc/containers/certs.d',
    '/etc/docker/certs.d',
    path.join(home, '.config', 'containers', 'certs.d'),
  ];
}

/** Error code of a network failure, looking through undici's wrappers. */
export function networkCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e instanceof Error; depth++) {
    const code: unknown = Reflect.get(e, 'code');
    if (typeof code === 'string' && code !== 'UND_ERR') return code;
    e = e.cause;
  }
  return undefined;
}

export function isTlsFailure(err: unknown): boolean {
  const code = networkCode(err);
  return (
    code !== undefined && (TLS_CODES.has(code) || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_'))
  );
}

/** TLS failure codes in plain words. */
function tlsProblem(code: string): string {
  switch (code) {
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
      return 'the registry certificate is self-signed and not trusted';
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'the registry certificate is signed by an unknown authority';
    case 'CERT_HAS_EXPIRED':
      return 'the registry certificate has expired';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return 'the registry certificate is not valid for this host name';
    default:
      return clientCertificateRefused(code)
        ? 'the registry refused the connection: it asks for a client certificate'
        : 'TLS handshake failed';
  }
}

/**
 * A server's alert against the client's certificate (TLS 1.3 says `certificate required`, TLS 1.2
 * `bad certificate` when none was sent): the registry wants one, or another.
 */
function clientCertificateRefused(code: string): boolean {
  return (
    code === 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED' || code === 'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE'
  );
}

/** Turn a network failure into a one-line user error naming the host. */
function describeNetworkError(err: unknown, host: string): OpmError {
  if (err instanceof OpmError) return err;
  const code = networkCode(err) ?? 'unknown';
  if (isTlsFailure(err)) {
    return new OpmError(`${host}: ${tlsProblem(code)} (${code})`, {
      code: 'E_REGISTRY_TLS',
      hint: clientCertificateRefused(code)
        ? `put the client certificate and its key as /etc/containers/certs.d/${host}/client.cert and client.key`
        : `add the registry's CA as /etc/containers/certs.d/${host}/ca.crt, or use --skip-tls-verify / --use-http if the registry is trusted`,
      cause: err,
    });
  }
  if (code.includes('TIMEOUT') || code === 'ETIMEDOUT') {
    return new OpmError(`${host}: request timed out (${code})`, { code: 'E_REGISTRY_TIMEOUT', cause: err });
  }
  return new OpmError(`${host}: cannot reach registry (${code})`, {
    code: 'E_REGISTRY_UNREACHABLE',
    hint: 'check the registry host and port, and HTTPS_PROXY/NO_PROXY',
    cause: err,
  });
}

function proxyFor(url: URL, env: NodeJS.ProcessEnv): string | undefined {
  const pick = (...names: string[]): string | undefined => {
    for (const n of names) {
      const v = env[n];
      if (v !== undefined && v !== '') return v;
    }
    return undefined;
  };
  const proxy =
    url.protocol === 'https:' ? pick('https_proxy', 'HTTPS_PROXY') : pick('http_proxy', 'HTTP_PROXY');
  if (proxy === undefined) return undefined;
  const noProxy = pick('no_proxy', 'NO_PROXY') ?? '';
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port !== '' ? url.port : url.protocol === 'https:' ? '443' : '80';
  for (const raw of noProxy.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return undefined;
    const m = /^(.*?)(?::(\d+))?$/.exec(entry);
    const eh = (m?.[1] ?? entry).replace(/^\*?\./, '').replace(/^\[|\]$/g, '');
    const ep = m?.[2];
    if (ep !== undefined && ep !== port) continue;
    if (host === eh || host.endsWith(`.${eh}`)) return undefined;
  }
  return proxy;
}

function parseRetryAfter(v: string | string[] | undefined): number | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  if (s === undefined || s.trim() === '') return undefined;
  if (/^\d+$/.test(s.trim())) return Number(s.trim()) * 1000;
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : Math.max(0, t - Date.now());
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface TlsOptions {
  rejectUnauthorized: boolean;
  secureContext?: SecureContext;
}

function undiciEngine(d: Dispatcher): Engine {
  return {
    async request(url, method, headers, body) {
      const res = await d.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: method === 'POST' ? 'POST' : method === 'HEAD' ? 'HEAD' : 'GET',
        headers,
        ...(body !== undefined ? { body } : {}),
      });
      return { status: res.statusCode, headers: res.headers, body: res.body };
    },
    close: () => d.close(),
  };
}

/**
 * A network error carrying a code. Time-outs use undici's codes so that messages and retries are
 * the same whichever engine made the request.
 */
function codedError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

/**
 * Direct requests on node:http/https, with keep-alive and undici's time-outs (connect, headers,
 * body). Only the module the scheme needs is loaded: node:https brings TLS, several milliseconds of
 * start-up that a plain-HTTP registry does not need.
 */
async function nodeEngine(url: URL, tls: TlsOptions, t: Timeouts): Promise<Engine> {
  const secure = url.protocol === 'https:';
  const agentOptions = { keepAlive: true, maxSockets: MAX_CONNECTIONS };
  let agent: Http.Agent;
  let send: typeof Http.request;
  if (secure) {
    const https = await import('node:https');
    agent = new https.Agent({ ...agentOptions, ...tls });
    send = https.request;
  } else {
    const http = await import('node:http');
    agent = new http.Agent(agentOptions);
    send = http.request;
  }
  return {
    request: (target, method, headers, body) =>
      new Promise<RawResponse>((resolve, reject) => {
        let response: Http.IncomingMessage | undefined;
        const req = send(target, { method, headers, agent });
        const fail = (err: Error): void => {
          if (response !== undefined) response.destroy(err);
          else req.destroy(err);
        };
        req.once('socket', (socket) => {
          if (!socket.connecting) return;
          const timer = setTimeout(
            () => fail(codedError(`connect timeout after ${t.connectMs} ms`, 'UND_ERR_CONNECT_TIMEOUT')),
            t.connectMs,
          );
          socket.once(secure ? 'secureConnect' : 'connect', () => clearTimeout(timer));
          socket.once('close', () => clearTimeout(timer));
        });
        // Socket inactivity: first while waiting for the headers, then between body chunks.
        req.setTimeout(t.headersMs, () =>
          fail(
            response === undefined
              ? codedError(`no response headers within ${t.headersMs} ms`, 'UND_ERR_HEADERS_TIMEOUT')
              : codedError(`response body stalled for ${t.bodyMs} ms`, 'UND_ERR_BODY_TIMEOUT'),
          ),
        );
        // `on`, not `once`: a socket can fail again after the first error, and must not crash us.
        req.on('error', reject);
        req.once('response', (res) => {
          response = res;
          req.setTimeout(t.bodyMs);
          const deadline = setTimeout(
            () =>
              fail(
                codedError(
                  `response body not complete within ${t.bodyDeadlineMs} ms`,
                  'UND_ERR_BODY_TIMEOUT',
                ),
              ),
            t.bodyDeadlineMs,
          );
          res.once('close', () => clearTimeout(deadline));
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: nodeBody(res) });
        });
        req.end(body);
      }),
    close: async () => {
      agent.destroy();
    },
  };
}

function nodeBody(res: Http.IncomingMessage): Body {
  return {
    [Symbol.asyncIterator]: () => iterateBuffers(res),
    dump: () =>
      new Promise<void>((resolve) => {
        if (res.destroyed || res.readableEnded) {
          resolve();
          return;
        }
        // Read and drop the rest so the connection can be reused; a failure here changes nothing.
        res.once('end', () => resolve());
        res.once('close', () => resolve());
        res.once('error', () => resolve());
        res.resume();
      }),
    destroy: (err) => {
      res.destroy(err);
    },
  };
}

async function* iterateBuffers(res: Http.IncomingMessage): AsyncGenerator<Buffer> {
  for await (const chunk of res) yield Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
}

/** HTTP for the registry client: per-host TLS, proxies, redirects, retries and time-outs. */
export class Transport {
  private readonly engines = new Map<string, Engine>();
  private undici: UndiciModule | undefined;
  private readonly certDirs: string[];
  private readonly attempts: number;
  private readonly backoffMs: number;
  private readonly timeouts: Timeouts;

  private readonly opts: TransportOptions;
  /** The certificates named by NODE_EXTRA_CA_CERTS, once read ('' when unset or unreadable). */
  private extraCa: string | undefined;
  /** TLS contexts by host (see secureContext). */
  private readonly contexts = new Map<string, SecureContext | undefined>();

  constructor(opts: TransportOptions) {
    this.opts = opts;
    this.certDirs = opts.certDirs ?? defaultCertDirs(opts.env);
    this.attempts = opts.attempts ?? 4;
    this.backoffMs = opts.backoffMs ?? 250;
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...envDeadline(opts.env), ...opts.timeouts };
  }

  private warn(line: string): void {
    (this.opts.warn ?? this.opts.log)?.(line);
  }

  /** Extra CAs and client certificates for a host, from the certs.d folders. */
  private tlsFiles(host: string): { ca: string[]; cert?: string; key?: string } {
    const ca: string[] = [];
    let cert: string | undefined;
    let key: string | undefined;
    for (const root of this.certDirs) {
      const dir = path.join(root, host);
      let names: string[];
      try {
        names = readdirSync(dir).sort(compareUtf8);
      } catch {
        continue;
      }
      for (const n of names) {
        try {
          if (n.endsWith('.crt')) ca.push(readFileSync(path.join(dir, n), 'utf8'));
          else if (n.endsWith('.cert') && cert === undefined) {
            const k = path.join(dir, `${n.slice(0, -'.cert'.length)}.key`);
            cert = readFileSync(path.join(dir, n), 'utf8');
            key = readFileSync(k, 'utf8');
          }
        } catch {
          this.warn(`warning: cannot read ${path.join(dir, n)}; ignored`);
        }
      }
    }
    return cert !== undefined && key !== undefined ? { ca, cert, key } : { ca };
  }

  /**
   * The certificates of the file NODE_EXTRA_CA_CERTS names. `opm` starts Node.js without that
   * variable (bin/opm.js), so Node's own store lacks them: they are added here to every TLS
   * connection, as Node.js would have. A file that cannot be read or holds no certificate is
   * warned about once and ignored, as Node.js does.
   */
  private nodeExtraCa(): string {
    if (this.extraCa !== undefined) return this.extraCa;
    const file = this.opts.env.NODE_EXTRA_CA_CERTS ?? '';
    this.extraCa = '';
    if (file === '') return this.extraCa;
    let problem: string | undefined;
    try {
      const text = readFileSync(file, 'utf8');
      if (text.includes('-----BEGIN CERTIFICATE-----')) this.extraCa = text;
      else problem = 'no PEM certificate in it';
    } catch (err) {
      problem = errnoText(err);
    }
    if (problem !== undefined)
      this.warn(`warning: ignoring extra certificates from NODE_EXTRA_CA_CERTS ${file}: ${problem}`);
    return this.extraCa;
  }

  /**
   * The TLS context for a host, when it trusts more than Node's store (NODE_EXTRA_CA_CERTS, a
   * certs.d CA) or presents a client certificate; undefined otherwise. Built once per host: Node
   * would otherwise build one per connection, parsing every certificate each time.
   */
  private secureContext(host: string): SecureContext | undefined {
    if (this.contexts.has(host)) return this.contexts.get(host);
    const files = this.tlsFiles(host);
    const cas = [this.nodeExtraCa(), ...files.ca].filter((pem) => pem !== '');
    let context: SecureContext | undefined;
    if (cas.length > 0 || files.cert !== undefined) {
      const tls = process.getBuiltinModule('node:tls');
      context = tls.createSecureContext(files.cert !== undefined ? { cert: files.cert, key: files.key } : {});
      // Added to a copy of Node's own store (its bundled roots, or the system's with
      // --use-openssl-ca), which a `ca` option would replace instead; other contexts keep theirs.
      // `context` is the native handle Node's own TLS code adds certificates through; it is not
      // documented, and test/registry/extra-ca.test.ts fails should it change.
      const native = context.context as { addCACert(pem: string): void };
      for (const pem of cas) native.addCACert(pem);
    }
    this.contexts.set(host, context);
    return context;
  }

  private tlsOptions(url: URL, skipTlsVerify: boolean): TlsOptions {
    const context = url.protocol === 'https:' ? this.secureContext(url.host) : undefined;
    return {
      rejectUnauthorized: !skipTlsVerify,
      ...(context !== undefined ? { secureContext: context } : {}),
    };
  }

  /**
   * The engine for a URL. Requests through a proxy use undici's ProxyAgent (CONNECT tunnels and
   * proxy authentication); direct requests use node:http/https, which are part of Node's start-up
   * snapshot: loading undici costs about as much as a whole warm render, and a render by tag only
   * needs one small request.
   */
  private async engine(url: URL, skipTlsVerify: boolean): Promise<Engine> {
    const proxy = proxyFor(url, this.opts.env);
    const cacheKey = `${url.origin}|${proxy ?? ''}|${skipTlsVerify}`;
    const hit = this.engines.get(cacheKey);
    if (hit !== undefined) return hit;
    let e: Engine;
    if (proxy !== undefined) {
      this.undici ??= await import('undici');
      const tls = { ...this.tlsOptions(url, skipTlsVerify), timeout: this.timeouts.connectMs };
      // A proxy reached over TLS is trusted as registries are, NODE_EXTRA_CA_CERTS included.
      const proxyUrl = URL.canParse(proxy) ? new URL(proxy) : undefined;
      const proxyContext = proxyUrl?.protocol === 'https:' ? this.secureContext(proxyUrl.host) : undefined;
      const d: Dispatcher = new this.undici.ProxyAgent({
        headersTimeout: this.timeouts.headersMs,
        bodyTimeout: this.timeouts.bodyMs,
        connections: MAX_CONNECTIONS,
        uri: proxy,
        requestTls: tls,
        ...(proxyContext !== undefined ? { proxyTls: { secureContext: proxyContext } } : {}),
      });
      e = undiciEngine(d);
    } else {
      e = await nodeEngine(url, this.tlsOptions(url, skipTlsVerify), this.timeouts);
    }
    this.engines.set(cacheKey, e);
    return e;
  }

  /**
   * One request with redirects followed (at most 5, no loops). `Authorization` is only ever sent to
   * the origin it was meant for: object stores behind blob redirects reject a second credential.
   */
  private async once(req: HttpRequest): Promise<HttpResponse> {
    let url = req.url;
    const origin = req.url.origin;
    const seen = new Set<string>();
    let method = req.method ?? 'GET';
    let body = req.body;
    const skipTlsVerify = this.opts.skipTlsVerify || req.skipTlsVerify === true;
    for (let hop = 0; ; hop++) {
      const headers: Record<string, string> = { 'accept-encoding': 'identity', ...req.headers };
      if (url.origin !== origin) {
        delete headers.authorization;
        delete headers.cookie;
      }
      const e = await this.engine(url, skipTlsVerify);
      const res = await e.request(url, method, headers, body);
      const location = res.headers.location;
      if (res.status >= 300 && res.status < 400 && res.status !== 304 && location !== undefined) {
        await res.body.dump();
        const next = new URL(Array.isArray(location) ? (location[0] ?? '') : location, url);
        seen.add(url.href);
        if (seen.has(next.href) || hop + 1 > MAX_REDIRECTS) {
          throw new OpmError(`${req.url.host}: too many redirects (last to ${next.host})`, {
            code: 'E_REGISTRY_REDIRECT',
          });
        }
        if (res.status === 303) {
          method = 'GET';
          body = undefined;
        }
        url = next;
        continue;
      }
      return { status: res.status, headers: res.headers, body: res.body, url };
    }
  }

  /** A request with back-off on 429, 5xx and dropped connections, honouring `Retry-After`. */
  async send(req: HttpRequest): Promise<HttpResponse> {
    for (let attempt = 1; ; attempt++) {
      let delay = this.backoffMs * 2 ** (attempt - 1);
      try {
        const res = await this.once(req);
        const retryable = res.status === 429 || res.status >= 500;
        if (!retryable || attempt >= this.attempts) return res;
        const after = parseRetryAfter(res.headers['retry-after']);
        if (after !== undefined) delay = Math.min(after, MAX_RETRY_AFTER_MS);
        await res.body.dump();
        this.opts.log?.(`${req.url.host}: HTTP ${res.status}, retrying in ${Math.round(delay)} ms`);
      } catch (err) {
        const code = networkCode(err);
        if (
          err instanceof OpmError ||
          code === undefined ||
          !RETRYABLE_NET_CODES.has(code) ||
          attempt >= this.attempts
        )
          throw err instanceof OpmError ? err : describeNetworkError(err, req.url.host);
        this.opts.log?.(`${req.url.host}: ${code}, retrying in ${Math.round(delay)} ms`);
      }
      await sleep(delay);
    }
  }

  async close(): Promise<void> {
    const all = [...this.engines.values()];
    this.engines.clear();
    await Promise.all(all.map((e) => e.close().catch(() => undefined)));
  }
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
