/**
 * Direct requests on node:http/https, with keep-alive and undici's time-outs (connect, headers,
 * body). Only the module the scheme needs is loaded: node:https brings TLS, several milliseconds of
 * start-up that a plain-HTTP registry does not need.
 */
import type * as Http from 'node:http';
import type { TlsOptions } from './tls-trust.js';
import { Readable } from 'node:stream';
import {
  codedError,
  isStreamBody,
  markFirstUse,
  type Body,
  type Engine,
  type RawResponse,
  type Timeouts,
} from './types.js';

export async function nodeEngine(
  url: URL,
  tls: TlsOptions,
  t: Timeouts,
  maxConnections: number,
): Promise<Engine> {
  const secure = url.protocol === 'https:';
  const agentOptions = { keepAlive: true, maxSockets: maxConnections };
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
    request: (target, method, headers, body, { signal, connectMs = t.connectMs }) =>
      new Promise<RawResponse>((resolve, reject) => {
        if (signal?.aborted === true) {
          reject(signal.reason as Error);
          return;
        }
        let response: Http.IncomingMessage | undefined;
        const req = send(target, { method, headers, agent });
        const fail = (err: Error): void => {
          if (response !== undefined) response.destroy(err);
          else req.destroy(err);
        };
        // The signal ends the request, or the body once it is being read, with its own reason.
        const onAbort = (): void => fail(signal?.reason as Error);
        signal?.addEventListener('abort', onAbort, { once: true });
        const done = (): void => signal?.removeEventListener('abort', onAbort);
        req.once('socket', (socket) => {
          if (!socket.connecting) return;
          const timer = setTimeout(
            () => fail(codedError(`connect timeout after ${connectMs} ms`, 'UND_ERR_CONNECT_TIMEOUT')),
            connectMs,
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
        req.on('error', (err) => {
          if (response === undefined) {
            done();
            if (!req.reusedSocket) markFirstUse(err);
          }
          reject(err);
        });
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
          res.once('close', () => {
            clearTimeout(deadline);
            done();
          });
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: nodeBody(res) });
        });
        if (isStreamBody(body)) {
          // Streamed with back-pressure; a failure of the source ends the request with it.
          const source = Readable.from(body.open(), { objectMode: false });
          source.once('error', (err) => fail(err));
          source.pipe(req);
        } else req.end(body);
      }),
    close: () => {
      agent.destroy();
      return Promise.resolve();
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
