import { createPrivateKey, randomUUID, sign, X509Certificate } from 'node:crypto';
import { createReadStream, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import path from 'node:path';

export interface Closable {
  port: number;
  close(): Promise<void>;
}

function listen(server: http.Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
}

function closer(server: http.Server): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

export interface TokenServer extends Closable {
  /** Requests seen: whether Basic credentials came, and the scopes asked. */
  requests: Array<{ user: string | undefined; scopes: string[] }>;
}

/**
 * A token server for distribution's `auth: token`: RS256 JWTs carrying the signing certificate in
 * `x5c`. Anonymous callers may pull anything outside `private/`; `user:pass` may pull and push
 * everywhere; wrong credentials get 401.
 */
export async function startTokenServer(opts: {
  port: number;
  keyFile: string;
  certFile: string;
  issuer: string;
  service: string;
  user: string;
  password: string;
}): Promise<TokenServer> {
  const key = createPrivateKey(readFileSync(opts.keyFile));
  const certDer = new X509Certificate(readFileSync(opts.certFile)).raw.toString('base64');
  const b64url = (s: string | Buffer): string => Buffer.from(s).toString('base64url');
  const requests: TokenServer['requests'] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let user: string | undefined;
      const h = req.headers.authorization ?? '';
      let params = url.searchParams;
      if (req.method === 'POST') params = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      if (h.startsWith('Basic ')) {
        const dec = Buffer.from(h.slice(6), 'base64').toString('utf8');
        if (dec !== `${opts.user}:${opts.password}`) {
          res.writeHead(401, { 'content-type': 'application/json' });
          res.end('{"details":"invalid credentials"}');
          requests.push({ user: 'rejected', scopes: [] });
          return;
        }
        user = opts.user;
      } else if (params.get('grant_type') === 'refresh_token') {
        if (params.get('refresh_token') !== `${opts.password}-refresh`) {
          res.writeHead(401);
          res.end();
          return;
        }
        user = opts.user;
      }
      const scopes = params
        .getAll('scope')
        .flatMap((s) => s.split(' '))
        .filter((s) => s !== '');
      requests.push({ user, scopes });
      const access = scopes.map((s) => {
        const parts = s.split(':');
        const type = parts[0] ?? '';
        const actions = (parts[parts.length - 1] ?? '').split(',');
        const name = parts.slice(1, -1).join(':');
        const anonymousOk = !name.startsWith('private/');
        return {
          type,
          name,
          actions: actions.filter(
            (a) =>
              (a === 'pull' && (user !== undefined || anonymousOk)) || (user !== undefined && a === 'push'),
          ),
        };
      });
      const now = Math.floor(Date.now() / 1000);
      const header = { typ: 'JWT', alg: 'RS256', x5c: [certDer] };
      const claims = {
        iss: opts.issuer,
        sub: user ?? '',
        aud: params.get('service') ?? opts.service,
        exp: now + 300,
        nbf: now - 1,
        iat: now,
        jti: randomUUID(),
        access,
      };
      const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
      const token = `${input}.${b64url(sign('sha256', Buffer.from(input), key))}`;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ token, expires_in: 300, issued_at: new Date(now * 1000).toISOString() }));
    });
  });
  await listen(server, opts.port);
  return { port: opts.port, requests, close: closer(server) };
}

export interface BlobHost extends Closable {
  /** Requests that arrived carrying an Authorization header (each got 400, as S3 answers). */
  withAuthorization: number;
  served: number;
}

/** Serves a registry's storage read-only: the target of distribution's `redirect` middleware. */
export async function startBlobHost(port: number, root: string): Promise<BlobHost> {
  const state: BlobHost = { port, withAuthorization: 0, served: 0, close: () => Promise.resolve() };
  const server = http.createServer((req, res) => {
    if (req.headers.authorization !== undefined) {
      state.withAuthorization++;
      res.writeHead(400);
      res.end('Only one auth mechanism allowed');
      return;
    }
    const rel = path.normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    const file = path.join(root, rel);
    if (!file.startsWith(root + path.sep)) {
      res.writeHead(403);
      res.end();
      return;
    }
    let size: number;
    try {
      const st = statSync(file);
      if (!st.isFile()) throw new Error('not a file');
      size = st.size;
    } catch {
      res.writeHead(404);
      res.end();
      return;
    }
    state.served++;
    res.writeHead(200, { 'content-length': size, 'content-type': 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  await listen(server, port);
  state.close = closer(server);
  return state;
}

export type FaultKind =
  | 'status-429'
  | 'status-500'
  | 'truncate'
  | 'drop'
  | 'corrupt'
  | 'redirect-loop'
  | 'alter'
  /** Headers, then the body a byte every 100 ms. */
  | 'trickle'
  /** Headers, then the body at `bytesPerSecond`, a tenth of it every 100 ms. */
  | 'throttle'
  /** Headers and half the body, then nothing more until the client goes away. */
  | 'stall'
  /** A blob HEAD answered 200 without asking the registry: a registry claiming a blob it lacks. */
  | 'claim-blob'
  /** An upload's PUT or PATCH read to half its body, then the connection cut. */
  | 'cut-upload'
  /** The request answered with `status` and a registry error `errorCode`/`message`, unforwarded. */
  | 'refuse'
  /** The registry's `Location` made relative (a path), as some registries send it. */
  | 'relative-location';

export interface Fault {
  kind: FaultKind;
  /** Which requests: `blob`, `manifest`, `upload` (the steps of a blob upload), or any. */
  on: 'blob' | 'manifest' | 'upload' | 'any';
  /** How many matching requests get the fault; then they pass through. */
  times: number;
  /** For status faults: the Retry-After header to send. */
  retryAfter?: string;
  /** For `throttle`: the body's rate. */
  bytesPerSecond?: number;
  /** For `refuse`: the status, error code and message of the answer. */
  status?: number;
  errorCode?: string;
  message?: string;
  /** Only requests of this method (any when unset). */
  method?: string;
}

export interface FaultProxy extends Closable {
  url: string;
  host: string;
  counts: { blob: number; manifest: number; other: number };
  /** Push traffic: blob HEADs, upload steps (POST, PATCH, PUT), bytes of blobs sent, mounts asked. */
  push: { heads: number; uploadSteps: number; uploadedBytes: number; mounts: number };
  /** Responses still open: the client has not read them to the end nor gone away. */
  open: number;
  faults: Fault[];
  reset(): void;
}

/**
 * A plain-HTTP proxy in front of a registry that counts requests and injects faults: status codes,
 * truncated or dropped or corrupted bodies, altered manifests, redirect loops.
 */
export async function startFaultProxy(port: number, upstreamPort: number): Promise<FaultProxy> {
  const proxy: FaultProxy = {
    port,
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    counts: { blob: 0, manifest: 0, other: 0 },
    push: { heads: 0, uploadSteps: 0, uploadedBytes: 0, mounts: 0 },
    open: 0,
    faults: [],
    reset() {
      this.counts = { blob: 0, manifest: 0, other: 0 };
      this.push = { heads: 0, uploadSteps: 0, uploadedBytes: 0, mounts: 0 };
      this.faults = [];
    },
    close: () => Promise.resolve(),
  };
  const server = http.createServer((req, res) => {
    const p = req.url ?? '/';
    const kind =
      /\/blobs\/[a-z0-9]+:/.test(p) && !p.includes('/uploads')
        ? 'blob'
        : /\/manifests\//.test(p)
          ? 'manifest'
          : 'other';
    proxy.counts[kind]++;
    proxy.open++;
    res.once('close', () => proxy.open--);
    const upload = p.includes('/blobs/uploads');
    if (kind === 'blob' && req.method === 'HEAD') proxy.push.heads++;
    if (upload) {
      proxy.push.uploadSteps++;
      if (p.includes('mount=')) proxy.push.mounts++;
      req.on('data', (c: Buffer) => (proxy.push.uploadedBytes += c.length));
    }
    const fault = proxy.faults.find(
      (f) =>
        f.times > 0 &&
        (f.on === 'any' || f.on === kind || (f.on === 'upload' && upload)) &&
        (f.kind !== 'claim-blob' || req.method === 'HEAD') &&
        (f.kind !== 'cut-upload' || req.method === 'PUT' || req.method === 'PATCH') &&
        (f.method === undefined || f.method === req.method),
    );
    if (fault) fault.times--;
    if (fault?.kind === 'claim-blob' && req.method === 'HEAD' && kind === 'blob') {
      const digest = /\/blobs\/([a-z0-9]+:[0-9a-f]+)/.exec(p)?.[1] ?? '';
      res.writeHead(200, {
        'content-length': '1',
        'docker-content-digest': digest,
        'content-type': 'application/octet-stream',
      });
      res.end();
      req.resume();
      return;
    }
    if (fault?.kind === 'cut-upload' && (req.method === 'PUT' || req.method === 'PATCH')) {
      const total = Number(req.headers['content-length'] ?? '0');
      let seen = 0;
      req.on('data', (c: Buffer) => {
        seen += c.length;
        if (seen >= total / 2) req.socket.destroy();
      });
      if (total === 0) req.socket.destroy();
      return;
    }
    if (fault?.kind === 'status-429' || fault?.kind === 'status-500') {
      const status = fault.kind === 'status-429' ? 429 : 500;
      res.writeHead(status, {
        'content-type': 'application/json',
        ...(fault.retryAfter !== undefined ? { 'retry-after': fault.retryAfter } : {}),
      });
      res.end(
        JSON.stringify({
          errors: [{ code: status === 429 ? 'TOOMANYREQUESTS' : 'UNKNOWN', message: 'injected fault' }],
        }),
      );
      req.resume();
      return;
    }
    if (fault?.kind === 'refuse') {
      res.writeHead(fault.status ?? 400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          errors: [{ code: fault.errorCode ?? 'UNKNOWN', message: fault.message ?? 'refused' }],
        }),
      );
      req.resume();
      return;
    }
    if (fault?.kind === 'redirect-loop') {
      res.writeHead(307, { location: p });
      res.end();
      req.resume();
      return;
    }
    const up = http.request(
      {
        host: '127.0.0.1',
        port: upstreamPort,
        method: req.method,
        path: p,
        headers: { ...req.headers, host: `127.0.0.1:${upstreamPort}` },
      },
      (upRes) => {
        const headers = { ...upRes.headers };
        if (headers.location !== undefined)
          headers.location = headers.location.replace(`127.0.0.1:${upstreamPort}`, proxy.host);
        if (fault?.kind === 'relative-location' && headers.location !== undefined)
          headers.location = headers.location.replace(/^https?:\/\/[^/]+/, '');
        if (fault?.kind === 'relative-location') {
          res.writeHead(upRes.statusCode ?? 502, headers);
          upRes.pipe(res);
          return;
        }
        if (fault === undefined || (upRes.statusCode ?? 0) !== 200) {
          res.writeHead(upRes.statusCode ?? 502, headers);
          upRes.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        upRes.on('data', (c: Buffer) => chunks.push(c));
        upRes.on('end', () => {
          let body = Buffer.concat(chunks);
          if (fault.kind === 'drop') {
            // Promise the full length, send half, then cut the connection.
            res.writeHead(200, { ...headers, 'content-length': String(body.length) });
            res.write(body.subarray(0, Math.floor(body.length / 2)));
            setTimeout(() => res.socket?.destroy(), 20);
            return;
          }
          if (fault.kind === 'trickle' || fault.kind === 'throttle') {
            res.writeHead(200, { ...headers, 'content-length': String(body.length) });
            const step =
              fault.kind === 'trickle' ? 1 : Math.max(1, Math.round((fault.bytesPerSecond ?? 10) / 10));
            let i = 0;
            const timer = setInterval(() => {
              if (i >= body.length || res.destroyed) {
                clearInterval(timer);
                res.end();
                return;
              }
              res.write(body.subarray(i, i + step));
              i += step;
            }, 100);
            res.on('close', () => clearInterval(timer));
            return;
          }
          if (fault.kind === 'stall') {
            res.writeHead(200, { ...headers, 'content-length': String(body.length) });
            res.write(body.subarray(0, Math.floor(body.length / 2)));
            return;
          }
          if (fault.kind === 'truncate') body = body.subarray(0, Math.max(0, body.length - 7));
          if (fault.kind === 'corrupt') {
            body = Buffer.from(body);
            const i = Math.floor(body.length / 2);
            body[i] = (body[i] ?? 0) ^ 0xff;
          }
          if (fault.kind === 'alter') body = Buffer.concat([body, Buffer.from('\n')]);
          res.writeHead(200, { ...headers, 'content-length': String(body.length) });
          res.end(body);
        });
      },
    );
    up.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  await listen(server, port);
  proxy.close = closer(server);
  return proxy;
}

export interface ConnectProxy extends Closable {
  url: string;
  /** `host:port` of every CONNECT tunnel opened. */
  tunnels: string[];
}

/** A forward proxy that only speaks CONNECT, recording each tunnel; targets limited to 127.0.0.1. */
export async function startConnectProxy(port: number): Promise<ConnectProxy> {
  const state: ConnectProxy = {
    port,
    url: `http://127.0.0.1:${port}`,
    tunnels: [],
    close: () => Promise.resolve(),
  };
  const server = http.createServer((_req, res) => {
    res.writeHead(405);
    res.end();
  });
  server.on('connect', (req: http.IncomingMessage, client: Duplex, head: Buffer) => {
    const target = req.url ?? '';
    const m = /^127\.0\.0\.1:(\d+)$/.exec(target);
    if (m?.[1] === undefined) {
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    state.tunnels.push(target);
    const up = net.connect(Number(m[1]), '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      up.write(head);
      up.pipe(client);
      client.pipe(up);
    });
    up.on('error', () => client.destroy());
    client.on('error', () => up.destroy());
  });
  await listen(server, port);
  state.close = closer(server);
  return state;
}
