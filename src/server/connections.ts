/**
 * What a connection may cost. grpc-go (opm) keeps an idle connection for as long as its client
 * wants (no MaxConnectionIdle) and closes a connection at once when the client breaks the HTTP/2
 * protocol. Node's HTTP/2 server sends its GOAWAY on such a connection and then stops reading from
 * it, so it never learns that the client has gone: the socket, its file descriptor and its session
 * stay until the process ends. A keepalive ping finds them: a client that is still there answers
 * it (every HTTP/2 stack does), a connection that does not answer within KEEPALIVE_TIMEOUT_MS is
 * closed. Idle clients that answer pings are kept as long as they like, as opm keeps them.
 */

/**
 * How often a connection is pinged. grpc-go pings a connection idle for 2 hours; pinging every
 * 5 minutes bounds what broken connections can pile up to what arrives in 5 minutes.
 */
export const KEEPALIVE_MS = 5 * 60 * 1000;
/** How long an answer to a ping may take (grpc-go's default keepalive timeout). */
export const KEEPALIVE_TIMEOUT_MS = 20 * 1000;

/** The grpc-js server options for the keepalive (`keepaliveMs`: tests shorten it). */
export function keepaliveOptions(keepaliveMs = KEEPALIVE_MS): Record<string, number> {
  return {
    'grpc.keepalive_time_ms': keepaliveMs,
    'grpc.keepalive_timeout_ms': Math.min(KEEPALIVE_TIMEOUT_MS, keepaliveMs),
  };
}
