/**
 * What a connection may cost. grpc-go (opm) keeps an idle connection for as long as its client
 * wants (no MaxConnectionIdle) and closes a connection at once when the client breaks the HTTP/2
 * protocol. Node's HTTP/2 server sends its GOAWAY on such a connection and then stops reading from
 * it, so it never learns that the client has gone: the socket, its file descriptor and its session
 * stay until the process ends. A keepalive ping finds them: a client that is still there answers
 * it (every HTTP/2 stack does), a connection that does not answer within KEEPALIVE_TIMEOUT_MS is
 * closed. Idle clients that answer pings are kept as long as they like, as opm keeps them.
 */
import type { Http2Server, ServerHttp2Session } from 'node:http2';

/**
 * How often a connection is pinged. grpc-go pings a connection idle for 2 hours; pinging every
 * 5 minutes bounds what broken connections can pile up to what arrives in 5 minutes.
 */
export const KEEPALIVE_MS = 5 * 60 * 1000;
/** How long an answer to a ping may take (grpc-go's default keepalive timeout). */
export const KEEPALIVE_TIMEOUT_MS = 20 * 1000;

/** The server's open connections. */
export interface Sessions {
  /** GOAWAY on each: no new calls, running ones go on, each closes when its calls are done. */
  closeAll(): void;
  /** Close each at once, running calls with it. */
  destroyAll(): void;
}

/** Keep track of `server`'s connections and ping each every `keepaliveMs`. */
export function watchSessions(server: Http2Server, keepaliveMs = KEEPALIVE_MS): Sessions {
  const open = new Set<ServerHttp2Session>();
  let closing = false;
  const timeoutMs = Math.min(KEEPALIVE_TIMEOUT_MS, keepaliveMs);
  server.on('session', (session) => {
    open.add(session);
    session.on('error', () => undefined);
    let unanswered: NodeJS.Timeout | undefined;
    const pinger = setInterval(() => {
      if (unanswered !== undefined || session.destroyed) return;
      unanswered = setTimeout(() => session.destroy(), timeoutMs);
      try {
        session.ping((err) => {
          if (err !== null) return;
          clearTimeout(unanswered);
          unanswered = undefined;
        });
      } catch {
        session.destroy();
      }
    }, keepaliveMs);
    pinger.unref();
    session.once('close', () => {
      clearInterval(pinger);
      clearTimeout(unanswered);
      open.delete(session);
    });
    // A connection that comes while stopping is told to go at once.
    if (closing) session.close();
  });
  return {
    closeAll: () => {
      closing = true;
      for (const s of open) s.close();
    },
    destroyAll: () => {
      for (const s of open) s.destroy();
    },
  };
}
