import path from 'node:path';
import { OpmError } from '../errors.js';
import { nodeEngine } from './http/node-engine.js';
import {
  RETRYABLE_NET_CODES,
  describeNetworkError,
  isDialFailure,
  networkCode,
} from './http/network-errors.js';
import { proxyFor } from './http/proxy-env.js';
import { TlsTrust } from './http/tls-trust.js';
import {
  onFirstUse,
  sleep,
  type Engine,
  type HttpRequest,
  type HttpResponse,
  type Timeouts,
} from './http/types.js';
import { proxyEngine } from './http/undici-engine.js';
import { homeDir } from '../util/home-dir.js';

export interface TransportOptions {
  skipTlsVerify: boolean;
  env: NodeJS.ProcessEnv;
  /** Roots holding `<host[:port]>/` folders of CA (`*.crt`) and client (`*.cert`+`*.key`) files. */
  certDirs?: string[];
  /** CA certificates (PEM) trusted for every host. */
  rootCaPem?: string;
  log?: (line: string) => void;
  /** Warnings, shown whatever the terminal (default: `log`). */
  warn?: (line: string) => void;
  /** Attempts per request for 429, 5xx and dropped connections. */
  attempts?: number;
  /** First back-off delay; doubles per attempt. */
  backoffMs?: number;
  /**
   * Time-outs in ms; defaults connect 15 s (5 s to a mirror), headers 30 s, body (between chunks)
   * 60 s, whole body 10 min (`OPM_REGISTRY_BODY_DEADLINE`, in seconds, overrides it). Tests shorten
   * them.
   */
  timeouts?: Partial<Timeouts>;
}

const MAX_REDIRECTS = 5;
const MAX_RETRY_AFTER_MS = 30_000;
const DEFAULT_TIMEOUTS: Timeouts = {
  connectMs: 15_000,
  mirrorConnectMs: 5_000,
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

function defaultCertDirs(env: NodeJS.ProcessEnv): string[] {
  const home = homeDir(env);
  return [
    '/etc/containers/certs.d',
    '/etc/docker/certs.d',
    path.join(home, '.config', 'containers', 'certs.d'),
  ];
}

function parseRetryAfter(v: string | string[] | undefined): number | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  if (s === undefined || s.trim() === '') return undefined;
  if (/^\d+$/.test(s.trim())) return Number(s.trim()) * 1000;
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : Math.max(0, t - Date.now());
}

/**
 * HTTP for the registry client: an engine per origin (node:http/https directly, undici through a
 * proxy), per-host TLS, redirects, retries and time-outs. Requests are stopped by their signal.
 */
export class Transport {
  private readonly engines = new Map<string, Engine>();
  private readonly trust: TlsTrust;
  private readonly attempts: number;
  private readonly backoffMs: number;
  readonly timeouts: Timeouts;

  private readonly opts: TransportOptions;

  constructor(opts: TransportOptions) {
    this.opts = opts;
    this.trust = new TlsTrust(
      opts.certDirs ?? defaultCertDirs(opts.env),
      opts.env,
      (line) => (this.opts.warn ?? this.opts.log)?.(line),
      opts.rootCaPem,
    );
    this.attempts = opts.attempts ?? 4;
    this.backoffMs = opts.backoffMs ?? 250;
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...envDeadline(opts.env), ...opts.timeouts };
  }

  /**
   * The engine for a URL. Requests through a proxy use undici's ProxyAgent; direct requests use
   * node:http/https, which are part of Node's start-up snapshot, and a render by tag only needs one
   * small request.
   */
  private async engine(url: URL, skipTlsVerify: boolean): Promise<Engine> {
    const proxy = proxyFor(url, this.opts.env);
    const cacheKey = `${url.origin}|${proxy ?? ''}|${skipTlsVerify}`;
    const hit = this.engines.get(cacheKey);
    if (hit !== undefined) return hit;
    let e: Engine;
    if (proxy !== undefined) {
      // A proxy reached over TLS is trusted as registries are, NODE_EXTRA_CA_CERTS included.
      const proxyUrl = URL.canParse(proxy) ? new URL(proxy) : undefined;
      const proxyContext =
        proxyUrl?.protocol === 'https:' ? this.trust.secureContext(proxyUrl.host) : undefined;
      e = await proxyEngine({
        proxy,
        requestTls: this.trust.tlsOptions(url, skipTlsVerify),
        ...(proxyContext !== undefined ? { proxyContext } : {}),
        timeouts: this.timeouts,
        maxConnections: MAX_CONNECTIONS,
      });
    } else {
      e = await nodeEngine(url, this.trust.tlsOptions(url, skipTlsVerify), this.timeouts, MAX_CONNECTIONS);
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
    const exchange = {
      ...(req.signal !== undefined ? { signal: req.signal } : {}),
      ...(req.dialOnce === true ? { connectMs: this.timeouts.mirrorConnectMs } : {}),
    };
    for (let hop = 0; ; hop++) {
      const headers: Record<string, string> = { 'accept-encoding': 'identity', ...req.headers };
      if (url.origin !== origin) {
        delete headers.authorization;
        delete headers.cookie;
      }
      const e = await this.engine(url, skipTlsVerify);
      const res = await e.request(url, method, headers, body, exchange);
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
        if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
        }
        url = next;
        continue;
      }
      return { status: res.status, headers: res.headers, body: res.body, url };
    }
  }

  /**
   * A request with back-off on 429, 5xx and dropped connections, honouring `Retry-After`. A stopped
   * request rejects with its signal's reason, waits included; a `dialOnce` request to a host that
   * cannot be reached (or that resets a connection opened for it) is not tried again.
   */
  async send(req: HttpRequest): Promise<HttpResponse> {
    const { signal } = req;
    const method = req.method ?? 'GET';
    const attempts =
      (req.retry ?? (method === 'GET' || method === 'HEAD' || method === 'PUT')) ? this.attempts : 1;
    for (let attempt = 1; ; attempt++) {
      signal?.throwIfAborted();
      let delay = this.backoffMs * 2 ** (attempt - 1);
      try {
        const res = await this.once(req);
        const retryable = res.status === 429 || res.status >= 500;
        if (!retryable || attempt >= attempts) return res;
        const after = parseRetryAfter(res.headers['retry-after']);
        if (after !== undefined) delay = Math.min(after, MAX_RETRY_AFTER_MS);
        await res.body.dump();
        this.opts.log?.(`${req.url.host}: HTTP ${res.status}, retrying in ${Math.round(delay)} ms`);
      } catch (err) {
        if (signal?.aborted === true) throw signal.reason;
        const code = networkCode(err);
        if (
          err instanceof OpmError ||
          code === undefined ||
          !RETRYABLE_NET_CODES.has(code) ||
          (req.dialOnce === true && (isDialFailure(code) || (code === 'ECONNRESET' && onFirstUse(err)))) ||
          attempt >= attempts
        )
          throw err instanceof OpmError ? err : describeNetworkError(err, req.url.host);
        this.opts.log?.(`${req.url.host}: ${code}, retrying in ${Math.round(delay)} ms`);
      }
      await sleep(delay, signal);
    }
  }

  async close(): Promise<void> {
    const all = [...this.engines.values()];
    this.engines.clear();
    await Promise.all(all.map((e) => e.close().catch(() => undefined)));
  }
}
