import { OpmError } from '../../errors.js';
import { isTlsFailure, isUnreachableHost } from '../http/network-errors.js';
import {
  bufferBody,
  readBounded,
  type HttpRequest,
  type HttpResponse,
  type RequestBody,
} from '../http/types.js';
import type { Transport } from '../transport.js';
import { parseChallenges, type Challenge } from './challenge.js';
import { findCredentials, type Credential } from './credentials.js';
import { isRecord } from '../../go/json-value.js';
import { compareUtf8 } from '../../go/utf8.js';

const TOKEN_BODY_LIMIT = 1024 * 1024;
const ERROR_BODY_LIMIT = 64 * 1024;
/** Tokens are reused until shortly before they expire; registries may say less than 60 s, which means 60. */
const MIN_TOKEN_TTL_S = 60;
const TOKEN_MARGIN_MS = 10_000;

interface CachedToken {
  token: string;
  expiresAt: number;
}

export interface SessionOptions {
  transport: Transport;
  /** `host[:port]` the API is served on. */
  host: string;
  /** Registry name used for credential lookup (`docker.io` for Hub). */
  registry: string;
  useHttp: boolean;
  skipTlsVerify: boolean;
  env: NodeJS.ProcessEnv;
  warn: (line: string) => void;
  /** A mirror: a host that cannot be reached is not tried again (the next source is). */
  dialOnce?: boolean;
}

/** The first `{code, message}` of a registry error body, for messages. */
export async function registryError(
  res: HttpResponse,
): Promise<{ code: string; message: string; detail: string }> {
  let text = '';
  try {
    text = (await readBounded(res.body, ERROR_BODY_LIMIT, 'error response')).toString('utf8');
  } catch {
    return { code: '', message: '', detail: '' };
  }
  try {
    const doc: unknown = JSON.parse(text);
    if (isRecord(doc) && Array.isArray(doc.errors)) {
      const first: unknown = doc.errors[0];
      if (isRecord(first)) {
        return {
          code: typeof first.code === 'string' ? first.code : '',
          message: typeof first.message === 'string' ? (first.message.split('\n')[0] ?? '') : '',
          detail:
            typeof first.detail === 'string'
              ? first.detail
              : first.detail === undefined
                ? ''
                : JSON.stringify(first.detail),
        };
      }
    }
  } catch {
    // Not JSON (a proxy's HTML page, say): no detail worth showing.
  }
  return { code: '', message: '', detail: '' };
}

/** Wait for `done` (which never rejects), or until the signal stops the wait, with its reason. */
function untilDone(done: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return done;
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    void done.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

/** One request of `RegistrySession.request`: a path on the registry, or an absolute URL it gave. */
export interface SessionRequest {
  method?: HttpRequest['method'];
  path?: string;
  url?: URL;
  repository: string;
  headers?: Record<string, string>;
  body?: RequestBody;
  retry?: boolean;
  push?: boolean;
  mountFrom?: string;
  signal?: AbortSignal;
}

/**
 * Talks to one registry host: picks the scheme, answers `WWW-Authenticate` challenges (Bearer with
 * token reuse, or Basic) and keeps credentials out of every message it produces.
 */
export class RegistrySession {
  private scheme: 'http' | 'https';
  private schemeSettled: boolean;
  private pingChallenges: Challenge[] | undefined;
  private bearer: Challenge | undefined;
  private basicHeader: string | undefined;
  private readonly tokens = new Map<string, CachedToken>();
  private readonly creds = new Map<string, Promise<Credential | undefined>>();
  /**
   * For a mirror: the first exchange, which requests made meanwhile wait for, so that a host that
   * cannot be reached is dialled once however many pulls want it at the same time.
   */
  private firstContact: Promise<void> | undefined;
  /** While the scheme is not settled: the request finding it out (see `raw`). */
  private schemeProbe: Promise<void> | undefined;
  /** For a mirror: why it could not be reached, once that is known. */
  private unreachable: OpmError | undefined;

  private readonly o: SessionOptions;

  constructor(o: SessionOptions) {
    this.o = o;
    this.scheme = o.useHttp ? 'http' : 'https';
    this.schemeSettled = o.useHttp || !o.skipTlsVerify;
  }

  get host(): string {
    return this.o.host;
  }

  private credentialsFor(repository: string): Promise<Credential | undefined> {
    let p = this.creds.get(repository);
    if (p === undefined) {
      p = findCredentials(this.o.registry, repository, this.o.env, this.o.warn);
      this.creds.set(repository, p);
    }
    return p;
  }

  /**
   * Plain HTTP sent to a port that speaks HTTPS: Go's servers (distribution, Harbor, Quay) and nginx
   * answer 400 saying so, which is worth one line of its own rather than "unexpected HTTP 400".
   */
  private async refuseHttpsPort(res: HttpResponse): Promise<HttpResponse> {
    if (res.status !== 400 || res.url.protocol !== 'http:') return res;
    let text: Buffer;
    try {
      text = await readBounded(res.body, ERROR_BODY_LIMIT, 'error response');
    } catch {
      text = Buffer.alloc(0);
    }
    if (
      /HTTP request to an HTTPS server|plain HTTP request was sent to HTTPS port/i.test(text.toString('utf8'))
    )
      throw new OpmError(`${res.url.host}: the registry speaks HTTPS, not plain HTTP (HTTP 400)`, {
        code: 'E_REGISTRY_HTTP',
        ...(this.o.useHttp
          ? { hint: 'leave out --use-http; add --skip-tls-verify only if its certificate cannot be trusted' }
          : {}),
      });
    return { ...res, body: bufferBody(text) };
  }

  /** Every request of this session, the token service's included, checks certificates alike. */
  private async send(req: HttpRequest): Promise<HttpResponse> {
    return this.refuseHttpsPort(await this.sendOnce(req));
  }

  private async sendOnce(req: HttpRequest): Promise<HttpResponse> {
    if (this.o.dialOnce !== true)
      return this.o.transport.send({ ...req, skipTlsVerify: this.o.skipTlsVerify });
    if (this.firstContact !== undefined) await this.firstContact;
    if (this.unreachable !== undefined) throw this.unreachable;
    const sent = this.o.transport.send({ ...req, skipTlsVerify: this.o.skipTlsVerify, dialOnce: true });
    this.firstContact ??= sent.then(
      () => undefined,
      (err: unknown) => {
        if (isUnreachableHost(err)) this.unreachable = err as OpmError;
      },
    );
    return sent;
  }

  private url(path: string): URL {
    return new URL(`${this.scheme}://${this.o.host}${path}`);
  }

  /**
   * Send, falling back from HTTPS to plain HTTP once when insecure mode is on and the host does not
   * speak TLS (opm's insecure switch allows both). Until that is settled one request probes and
   * those made meanwhile wait for it: had they all gone out over HTTPS, the ones failing after the
   * first had switched the scheme would be taken for a TLS failure of plain HTTP.
   */
  private async raw(
    path: string | URL,
    headers: Record<string, string>,
    signal: AbortSignal | undefined,
    exchange: Pick<HttpRequest, 'method' | 'body' | 'retry'> = {},
  ): Promise<HttpResponse> {
    const stop = signal !== undefined ? { signal } : {};
    const target = (): URL => (typeof path === 'string' ? this.url(path) : path);
    while (!this.schemeSettled && this.schemeProbe !== undefined && typeof path === 'string')
      await untilDone(this.schemeProbe, signal);
    if (this.schemeSettled || typeof path !== 'string')
      return this.send({ url: target(), headers, ...exchange, ...stop });
    let probed = (): void => undefined;
    this.schemeProbe = new Promise<void>((resolve) => (probed = resolve));
    try {
      const res = await this.send({ url: target(), headers, ...exchange, ...stop });
      this.schemeSettled = true;
      return res;
    } catch (err) {
      const tls = (err instanceof OpmError && err.code === 'E_REGISTRY_TLS') || isTlsFailure(err);
      if (!tls) throw err;
      this.o.warn(`${this.o.host} does not speak TLS; using plain HTTP (insecure mode)`);
      this.scheme = 'http';
      this.schemeSettled = true;
      return await this.send({ url: target(), headers, ...exchange, ...stop });
    } finally {
      // Settled, or not (the host could not be reached): either way the next request decides.
      this.schemeProbe = undefined;
      probed();
    }
  }

  /** An absolute URL on this registry for `path`, in the scheme settled on (for upload locations). */
  resolve(location: string, base?: URL): URL {
    return new URL(location, base ?? this.url('/'));
  }

  private async ping(signal: AbortSignal | undefined): Promise<Challenge[]> {
    if (this.pingChallenges !== undefined) return this.pingChallenges;
    const res = await this.raw('/v2/', {}, signal);
    await res.body.dump();
    this.pingChallenges = res.status === 401 ? parseChallenges(res.headers['www-authenticate']) : [];
    return this.pingChallenges;
  }

  private tokenKey(c: Challenge, scopes: string[]): string {
    return `${c.params.realm ?? ''}|${c.params.service ?? ''}|${[...scopes].sort(compareUtf8).join(' ')}`;
  }

  private async fetchToken(
    c: Challenge,
    scopes: string[],
    repository: string,
    signal: AbortSignal | undefined,
  ): Promise<string> {
    const key = this.tokenKey(c, scopes);
    const hit = this.tokens.get(key);
    if (hit !== undefined && hit.expiresAt > Date.now()) return hit.token;
    const realm = c.params.realm;
    if (realm === undefined || realm === '') {
      throw new OpmError(`${this.o.host}: bearer challenge without a realm`, { code: 'E_REGISTRY_AUTH' });
    }
    let url: URL;
    try {
      url = new URL(realm);
    } catch {
      throw new OpmError(`${this.o.host}: bearer challenge with an invalid realm`, {
        code: 'E_REGISTRY_AUTH',
      });
    }
    const cred = await this.credentialsFor(repository);
    const headers: Record<string, string> = { accept: 'application/json' };
    let res: HttpResponse;
    if (cred?.identityToken !== undefined) {
      // OAuth2 refresh-token grant (docker's identity tokens).
      const form = new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: cred.identityToken,
        client_id: 'opm',
      });
      if (c.params.service !== undefined) form.set('service', c.params.service);
      form.set('scope', scopes.join(' '));
      headers['content-type'] = 'application/x-www-form-urlencoded';
      res = await this.send({
        url,
        method: 'POST',
        // Asking for a token again changes nothing: retried as a GET is.
        retry: true,
        headers,
        body: form.toString(),
        ...(signal !== undefined ? { signal } : {}),
      });
    } else {
      if (c.params.service !== undefined) url.searchParams.set('service', c.params.service);
      for (const s of scopes) url.searchParams.append('scope', s);
      if (cred !== undefined) {
        url.searchParams.set('account', cred.username);
        headers.authorization = `Basic ${Buffer.from(`${cred.username}:${cred.password}`).toString('base64')}`;
      }
      res = await this.send({ url, headers, ...(signal !== undefined ? { signal } : {}) });
    }
    if (res.status === 401 || res.status === 403) {
      await res.body.dump();
      throw this.authError(cred, `token server ${url.host} rejected the credentials (HTTP ${res.status})`);
    }
    if (res.status !== 200) {
      await res.body.dump();
      throw new OpmError(`${this.o.host}: token server ${url.host} answered HTTP ${res.status}`, {
        code: 'E_REGISTRY_AUTH',
      });
    }
    const body = await readBounded(res.body, TOKEN_BODY_LIMIT, 'token response');
    let doc: unknown;
    try {
      doc = JSON.parse(body.toString('utf8'));
    } catch {
      doc = undefined;
    }
    const token = isRecord(doc)
      ? typeof doc.token === 'string' && doc.token !== ''
        ? doc.token
        : doc.access_token
      : undefined;
    if (!isRecord(doc) || typeof token !== 'string' || token === '') {
      throw new OpmError(`${this.o.host}: token server ${url.host} sent no token`, {
        code: 'E_REGISTRY_AUTH',
      });
    }
    const ttl = Math.max(
      typeof doc.expires_in === 'number' ? doc.expires_in : MIN_TOKEN_TTL_S,
      MIN_TOKEN_TTL_S,
    );
    const issued = typeof doc.issued_at === 'string' ? Date.parse(doc.issued_at) : Number.NaN;
    const start = Number.isNaN(issued) ? Date.now() : Math.min(issued, Date.now());
    this.tokens.set(key, { token, expiresAt: start + ttl * 1000 - TOKEN_MARGIN_MS });
    return token;
  }

  private authError(cred: Credential | undefined, what: string): OpmError {
    const hint =
      cred === undefined
        ? `no credentials found for ${this.o.registry}; log in (REGISTRY_AUTH_FILE, $DOCKER_CONFIG/config.json, ~/.docker/config.json)`
        : `credentials came from ${cred.source}`;
    return new OpmError(`${this.o.host}: ${what}`, { code: 'E_REGISTRY_AUTH', hint });
  }

  private async authHeader(
    repository: string,
    base: string,
    extraScopes: string[],
    signal: AbortSignal | undefined,
  ): Promise<string | undefined> {
    if (this.bearer !== undefined) {
      const scopes = [base, ...extraScopes.filter((s) => s !== base)];
      return `Bearer ${await this.fetchToken(this.bearer, scopes, repository, signal)}`;
    }
    return this.basicHeader;
  }

  /**
   * GET a registry path for `repository`, authenticating as the registry asks. At most one retry per
   * kind of 401 (first challenge, stale token, wider scope), so a refusing registry ends the loop.
   * The signal stops it, token requests included.
   */
  get(path: string, repository: string, accept: string, signal?: AbortSignal): Promise<HttpResponse> {
    return this.request({ path, repository, headers: { accept }, ...(signal ? { signal } : {}) });
  }

  /**
   * Any registry request for `repository`, authenticated as `get` is. `push` asks for a token that
   * may push there (`pull,push`); `mountFrom` adds pull access to the repository a blob is mounted
   * from. A body is sent again from its start on each round.
   */
  async request(r: SessionRequest): Promise<HttpResponse> {
    const { repository, signal } = r;
    const base = `repository:${repository}:${r.push === true ? 'pull,push' : 'pull'}`;
    const extraScopes: string[] =
      r.mountFrom !== undefined && r.mountFrom !== repository ? [`repository:${r.mountFrom}:pull`] : [];
    let retriedStale = false;
    for (let round = 0; round < 4; round++) {
      const auth = await this.authHeader(repository, base, extraScopes, signal);
      const headers: Record<string, string> = { ...r.headers };
      if (auth !== undefined) headers.authorization = auth;
      const res = await this.raw(r.url ?? r.path ?? '/v2/', headers, signal, {
        ...(r.method !== undefined ? { method: r.method } : {}),
        ...(r.body !== undefined ? { body: r.body } : {}),
        ...(r.retry !== undefined ? { retry: r.retry } : {}),
      });
      if (res.status !== 401) return res;
      await res.body.dump();
      let challenges = parseChallenges(res.headers['www-authenticate']);
      // Some registries send 401 without a challenge on real requests; the ping's challenge applies.
      if (challenges.length === 0) challenges = await this.ping(signal);
      const bearer = challenges.find((c) => c.scheme === 'bearer');
      const basic = challenges.find((c) => c.scheme === 'basic');
      const cred = await this.credentialsFor(repository);
      if (bearer !== undefined) {
        if (this.bearer === undefined) {
          this.bearer = bearer;
          continue;
        }
        const wanted = (bearer.params.scope ?? '').split(' ').filter((x) => x !== '');
        const fresh = wanted.filter((x) => x !== base && !extraScopes.includes(x));
        if (bearer.params.error === 'insufficient_scope' && fresh.length > 0) {
          extraScopes.push(...fresh);
          continue;
        }
        if (!retriedStale) {
          // A cached token may have been revoked early; get a fresh one once.
          retriedStale = true;
          this.tokens.clear();
          continue;
        }
        throw this.authError(
          cred,
          cred === undefined
            ? 'authentication required (HTTP 401)'
            : 'access denied with the given credentials (HTTP 401)',
        );
      }
      if (basic !== undefined) {
        if (cred === undefined) throw this.authError(cred, 'authentication required (HTTP 401)');
        // A request sent before another one of this session learnt the challenge tries again with it.
        if (this.basicHeader === undefined || auth !== this.basicHeader) {
          this.basicHeader ??= `Basic ${Buffer.from(`${cred.username}:${cred.password}`).toString('base64')}`;
          continue;
        }
        throw this.authError(cred, 'the registry rejected the credentials (HTTP 401)');
      }
      throw this.authError(
        cred,
        'authentication required, with no challenge this client can answer (HTTP 401)',
      );
    }
    throw this.authError(await this.credentialsFor(repository), 'authentication failed (HTTP 401)');
  }
}
