/**
 * One gRPC call on an HTTP/2 stream, answered as grpc-go answers: response headers `:status` and
 * `content-type` (and `grpc-encoding` when the answer is compressed), the messages, then trailers
 * `grpc-status` and `grpc-message` (empty on OK); a status with nothing before it goes alone in
 * the headers (a trailers-only response). A client still sending when the status goes gets
 * RST_STREAM(NO_ERROR) after it, as grpc-go sends.
 */
import http2, { type Http2Session, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import { lazyZlib } from './lazy-zlib.js';
import { encodeGrpcMessage, frameMessage } from './grpc-wire.js';

const {
  NGHTTP2_NO_ERROR,
  NGHTTP2_CANCEL,
  NGHTTP2_STREAM_STATE_HALF_CLOSED_REMOTE,
  NGHTTP2_STREAM_STATE_CLOSED,
} = http2.constants;

/** A status that ends a call: grpc-go's code and text. */
export interface CallStatus {
  code: number;
  details: string;
}

/** How a call ended without a status of ours: the client went, or its deadline passed. */
export type CallGone = 'cancelled' | 'connection-closed' | 'deadline';

/** What the client went away as, in grpc-go's words (the status its handler sees). */
export function goneStatus(gone: CallGone): CallStatus {
  if (gone === 'deadline') return { code: 4, details: 'context deadline exceeded' };
  if (gone === 'connection-closed') return { code: 14, details: 'transport is closing' };
  return { code: 1, details: 'context canceled' };
}

const ignore = (): void => undefined;

export class GrpcCall {
  readonly stream: ServerHttp2Stream;
  readonly headers: IncomingHttpHeaders;
  private readonly session: Http2Session | undefined;
  private readonly contentType: string;
  /** The answer's messages are gzip-compressed (the request's were: grpc-go answers in kind). */
  private readonly gzip: boolean;
  private headersSent = false;
  private ended = false;
  private goneAs: CallGone | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly onGone = new Set<() => void>();

  constructor(
    stream: ServerHttp2Stream,
    headers: IncomingHttpHeaders,
    contentType: string,
    gzip: boolean,
    deadlineMs: number | undefined,
  ) {
    this.stream = stream;
    this.headers = headers;
    this.session = stream.session;
    this.contentType = contentType;
    this.gzip = gzip;
    stream.on('error', ignore);
    stream.once('close', () => {
      clearTimeout(this.timer);
      if (!this.ended) {
        // The session is marked destroyed or closing before its streams close.
        const closing = this.session === undefined || this.session.destroyed || this.session.closed;
        this.gone(closing ? 'connection-closed' : 'cancelled');
      }
    });
    if (deadlineMs !== undefined) {
      // grpc-go's answer to a passed deadline: DeadlineExceeded when nothing was sent yet, then
      // RST_STREAM(CANCEL).
      this.timer = setTimeout(() => {
        if (this.over) return;
        this.gone('deadline');
        if (!this.headersSent && !stream.destroyed) {
          this.headersSent = true;
          const { code, details } = goneStatus('deadline');
          stream.respond(
            {
              ':status': 200,
              'content-type': contentType,
              'grpc-status': String(code),
              'grpc-message': details,
            },
            { endStream: true },
          );
        }
        stream.close(NGHTTP2_CANCEL);
      }, deadlineMs);
    }
  }

  /** Why the call is over without our status, once it is. */
  get goneReason(): CallGone | undefined {
    return this.goneAs;
  }

  /** Whether nothing more can be sent. */
  get over(): boolean {
    return this.ended || this.goneAs !== undefined;
  }

  private gone(as: CallGone): void {
    if (this.goneAs !== undefined) return;
    this.goneAs = as;
    for (const f of [...this.onGone]) f();
  }

  private sendHeaders(): void {
    if (this.headersSent) return;
    this.headersSent = true;
    this.stream.respond(
      this.gzip
        ? { ':status': 200, 'content-type': this.contentType, 'grpc-encoding': 'gzip' }
        : { ':status': 200, 'content-type': this.contentType },
      { waitForTrailers: true },
    );
  }

  /** A message framed as the answer goes (compressed when the call's answers are). */
  frame(message: Uint8Array): Buffer {
    return this.gzip ? frameMessage(lazyZlib().gzipSync(message), true) : frameMessage(message);
  }

  /** A unary answer kept framed uncompressed (answer-cache.ts), as this call sends it. */
  framedAnswer(framed: Buffer): Buffer {
    return this.gzip ? this.frame(framed.subarray(5)) : framed;
  }

  /**
   * Write one framed message; resolves when HTTP/2 can take the next one (the client reads), or
   * the call is over. At most one message waits in the stream's buffer.
   */
  async write(framed: Buffer): Promise<void> {
    if (this.over) return;
    this.sendHeaders();
    if (this.stream.write(framed)) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        this.stream.off('drain', done);
        this.onGone.delete(done);
        resolve();
      };
      this.stream.on('drain', done);
      this.onGone.add(done);
    });
  }

  /** End the call with `status` (after the messages written, or alone). */
  finish(status: CallStatus, lastFramed?: Buffer): void {
    if (this.over || this.stream.destroyed || this.stream.closed) return;
    this.ended = true;
    clearTimeout(this.timer);
    const trailers = {
      'grpc-status': String(status.code),
      'grpc-message': encodeGrpcMessage(status.details),
    };
    if (!this.headersSent && lastFramed === undefined) {
      this.headersSent = true;
      this.stream.respond(
        { ':status': 200, 'content-type': this.contentType, ...trailers },
        { endStream: true },
      );
    } else {
      this.sendHeaders();
      // A client still sending is not reset here: a reset right after the trailers can overtake
      // them. What it still sends is read and dropped (readRequest resumes the stream).
      this.stream.once('wantTrailers', () => this.stream.sendTrailers(trailers));
      if (lastFramed === undefined) this.stream.end();
      else this.stream.end(lastFramed);
      return;
    }
    this.resetIfSending();
  }

  /**
   * An answer before the request's headers were even read as gRPC's (wrong content type or
   * method, a bad timeout): an HTTP status with the gRPC status, nothing else.
   */
  abort(httpStatus: number, status: CallStatus): void {
    this.ended = true;
    clearTimeout(this.timer);
    this.headersSent = true;
    this.stream.respond(
      {
        ':status': httpStatus,
        'content-type': this.contentType,
        'grpc-status': String(status.code),
        'grpc-message': encodeGrpcMessage(status.details),
      },
      { endStream: true },
    );
    this.resetIfSending();
  }

  /** Whether the client has not finished its request (no END_STREAM yet). */
  private clientSending(): boolean {
    if (this.stream.readableEnded) return false;
    const state = this.stream.state.state;
    return state !== NGHTTP2_STREAM_STATE_HALF_CLOSED_REMOTE && state !== NGHTTP2_STREAM_STATE_CLOSED;
  }

  /**
   * Reset the client's side if it is still sending, once a status alone has gone (looked at on the
   * next turn: an END_STREAM that came with the request's last bytes is known by then).
   */
  private resetIfSending(): void {
    setImmediate(() => {
      if (!this.stream.destroyed && this.clientSending()) this.reset();
    });
  }

  /** The client's side is reset once the answer has gone (RST_STREAM after what was written). */
  private reset(): void {
    this.stream.resume();
    this.stream.close(NGHTTP2_NO_ERROR);
  }
}
