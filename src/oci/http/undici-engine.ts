/**
 * Requests through an HTTP(S) proxy, on undici's ProxyAgent (CONNECT tunnels and proxy
 * authentication). Loaded only when a proxy is set: loading undici costs about as much as a whole
 * warm render.
 */
import type { Dispatcher } from 'undici';
import { Readable } from 'node:stream';
import type { SecureContext } from 'node:tls';
import type { TlsOptions } from './tls-trust.js';
import { isStreamBody, type Engine, type Timeouts } from './types.js';

export interface ProxyEngineOptions {
  proxy: string;
  /** TLS towards the registry (through the tunnel). */
  requestTls: TlsOptions;
  /** The context for a proxy reached over TLS, when it trusts more than Node's store. */
  proxyContext?: SecureContext;
  timeouts: Timeouts;
  maxConnections: number;
}

export async function proxyEngine(o: ProxyEngineOptions): Promise<Engine> {
  const undici = await import('undici');
  const d: Dispatcher = new undici.ProxyAgent({
    headersTimeout: o.timeouts.headersMs,
    bodyTimeout: o.timeouts.bodyMs,
    connections: o.maxConnections,
    uri: o.proxy,
    requestTls: { ...o.requestTls, timeout: o.timeouts.connectMs },
    ...(o.proxyContext !== undefined ? { proxyTls: { secureContext: o.proxyContext } } : {}),
  });
  return {
    async request(url, method, headers, body, { signal }) {
      const res = await d.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: method as Dispatcher.HttpMethod,
        headers,
        ...(body !== undefined ? { body: isStreamBody(body) ? Readable.from(body.open()) : body } : {}),
        ...(signal !== undefined ? { signal } : {}),
      });
      return { status: res.statusCode, headers: res.headers, body: res.body };
    },
    close: () => d.close(),
  };
}
