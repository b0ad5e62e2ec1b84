/**
 * api.Registry's unary calls answered on Node's HTTP/2 stream itself, beside grpc-js. A catalog
 * server's clients (OLM's resolver, the package server) make unary calls by the thousand, and
 * grpc-js's server call (interceptors, metadata, a decoder, a writable per call, each with listeners
 * and closures) took as much CPU and garbage per call as the HTTP/2 layer under it.
 *
 * Only a plain request takes this path: a registered unary method, a gRPC content type, no encoding
 * but identity, and no `grpc-timeout` or one of at least a second in the form a client writes
 * (LEAN_TIMEOUT; load generators such as ghz set one on every call by default, 20 s). Everything
 * else (shorter or unusual deadlines, compressed requests, unknown methods, other services,
 * streams) goes to grpc-js as before. A request on this path gets
 * what grpc-js and the texts of go-status.ts give it: the same response headers and trailers, the
 * same statuses for a message over the limit, cut short, missing, doubled or flagged compressed,
 * and the same two log lines around the handler (run by the caller, `UnaryRun`).
 *
 * grpc-js has no public hook for this: its server's `_streamHandler` is wrapped, on the server
 * instance before it listens (never on a prototype). When a grpc-js release renames it, nothing is
 * installed and every call takes grpc-js's path (src/server/unary-path.test.ts then fails).
 */
import type { IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import { goRequestStatus } from './go-status.js';

/** What the log of a call on this path reads (the shape grpc-js's call gives it). */
export interface UnaryCallInfo {
  getPeer(): string;
  getHost(): string;
  getDeadline(): grpc.Deadline;
  metadata: grpc.Metadata;
  /** The metadata's fields as the log writes them (`[value]`), or undefined where grpc-js's rules are needed. */
  metadataFields(): Readonly<Record<string, string>> | undefined;
}

/** A status that ends a call: grpc-go's code and text. */
export interface CallStatus {
  code: number;
  details: string;
}

/**
 * Runs the handler of `path` on a request that arrived whole: resolves with the answer framed as
 * on the wire (flag byte, length, message), rejects with the call's status (logging is its part).
 */
export type UnaryRun = (path: string, request: Buffer, call: UnaryCallInfo) => Promise<Buffer>;

// The headers and trailers grpc-js sends (server-interceptors.js), so that a client sees no change.
const RESPONSE_HEADERS = {
  ':status': 200,
  'content-type': 'application/grpc+proto',
  'grpc-accept-encoding': 'identity,deflate,gzip',
  'grpc-encoding': 'identity',
};
const OK_TRAILERS = { 'grpc-status': 0, 'grpc-message': 'OK' };

/** grpc-js's rules for a metadata key and a text value (others are refused or decoded). */
const LEGAL_KEY = /^[:0-9a-z_.-]+$/;
const LEGAL_TEXT = /^[ -~]*$/;

/**
 * The request's metadata as the log writes it, `key: [value]`, when every header is one text value
 * grpc-js keeps as it is (the usual case: `user-agent` and little else); undefined otherwise
 * (binary keys, repeated or illegal headers), where grpc-js's Metadata says what is kept.
 */
export function plainMetadataFields(headers: IncomingHttpHeaders): Record<string, string> | undefined {
  const fields: Record<string, string> = {};
  for (const key of Object.keys(headers)) {
    if (key.startsWith(':') || NOT_METADATA.includes(key)) continue;
    const value = headers[key];
    if (typeof value !== 'string' || key.endsWith('-bin') || !LEGAL_KEY.test(key) || !LEGAL_TEXT.test(value))
      return undefined;
    fields[key] = `[${value}]`;
  }
  return fields;
}

/** The request headers grpc-js keeps out of a call's metadata. */
const NOT_METADATA = [
  'grpc-timeout',
  'grpc-encoding',
  'grpc-accept-encoding',
  'accept-encoding',
  'te',
  'content-type',
];

/** The answer of a message in gRPC's length-prefixed framing (one copy, made once per answer). */
export function frameMessage(message: Uint8Array): Buffer {
  const framed = Buffer.allocUnsafe(message.length + 5);
  framed[0] = 0;
  framed.writeUInt32BE(message.length, 1);
  framed.set(message, 5);
  return framed;
}

/** A `grpc-timeout` as clients write it: up to 8 digits and a unit. */
const TIMEOUT = /^(\d{1,8})([HMSmun])$/;
const TIMEOUT_UNIT_MS: Readonly<Record<string, number>> = {
  H: 3_600_000,
  M: 60_000,
  S: 1000,
  m: 1,
  u: 0.001,
  n: 0.000001,
};

/**
 * Deadlines from this many milliseconds on take this path. A call here is answered from memory or
 * one read of the cache, far within a second, so such a deadline does not pass before the answer
 * (its timer still ends a call whose request stalls, as grpc-js's does); shorter ones, where the
 * race with the answer is grpc-js's to decide, and forms grpc-js's looser reading accepts, stay on
 * its path.
 */
export const LEAN_TIMEOUT_MS = 1000;

/**
 * The timeout in milliseconds `headers` give (as grpc-js computes it: truncated to an integer), or
 * undefined for none, or NaN for one this path leaves to grpc-js.
 */
export function requestTimeout(headers: IncomingHttpHeaders): number | undefined {
  const header = headers['grpc-timeout'];
  if (header === undefined) return undefined;
  const m = typeof header === 'string' ? TIMEOUT.exec(header) : null;
  if (m === null) return NaN;
  const ms = (Number(m[1]) * (TIMEOUT_UNIT_MS[m[2] as string] as number)) | 0;
  return ms >= LEAN_TIMEOUT_MS ? ms : NaN;
}

/**
 * Whether `headers`, whose timeout is `timeout` (requestTimeout), ask for a call this path takes
 * (the method is checked by the caller).
 */
export function plainRequest(headers: IncomingHttpHeaders, timeout: number | undefined): boolean {
  const type = headers['content-type'];
  if (typeof type !== 'string' || !type.startsWith('application/grpc')) return false;
  if (Number.isNaN(timeout)) return false;
  const encoding = headers['grpc-encoding'];
  return encoding === undefined || encoding === 'identity';
}

/**
 * The request's messages as grpc-js's decoder reads them: flag byte, 4-byte length, body. `state`
 * is grpc-js's: 0 between messages, 1 in a length prefix, 2 in a body.
 */
class RequestReader {
  state = 0;
  readonly messages: Buffer[] = [];
  private head = Buffer.alloc(0);
  private headRead = 0;
  private body: Buffer[] = [];
  private bodyLeft = 0;
  private size = 0;
  private readonly max: number;

  constructor(max: number) {
    this.max = max;
  }

  /** Reads a chunk; returns grpc-js's text when a message is over the limit. */
  push(data: Buffer): string | undefined {
    // The usual request: one whole message in one chunk, kept as it came.
    if (this.state === 0 && data.length >= 5 && data.readUInt32BE(1) === data.length - 5) {
      if (data.length - 5 > this.max)
        return `Received message larger than max (${data.length - 5} vs ${this.max})`;
      this.messages.push(data);
      return undefined;
    }
    let at = 0;
    while (at < data.length) {
      if (this.state !== 2) {
        if (this.state === 0) {
          this.state = 1;
          this.headRead = 0;
          this.head = Buffer.alloc(5);
        }
        const n = Math.min(data.length - at, 5 - this.headRead);
        data.copy(this.head, this.headRead, at, at + n);
        this.headRead += n;
        at += n;
        if (this.headRead < 5) continue;
        this.size = this.head.readUInt32BE(1);
        if (this.size > this.max) return `Received message larger than max (${this.size} vs ${this.max})`;
        if (this.size === 0) {
          this.messages.push(this.head);
          this.state = 0;
        } else {
          this.state = 2;
          this.body = [this.head];
          this.bodyLeft = this.size;
        }
      } else {
        const n = Math.min(data.length - at, this.bodyLeft);
        this.body.push(data.subarray(at, at + n));
        this.bodyLeft -= n;
        at += n;
        if (this.bodyLeft === 0) {
          this.messages.push(
            this.body.length === 2 ? Buffer.concat(this.body, this.size + 5) : Buffer.concat(this.body),
          );
          this.body = [];
          this.state = 0;
        }
      }
    }
    return undefined;
  }
}

/** A status sent as grpc-js sends one before any message: headers that end the stream. */
function sendStatus(stream: ServerHttp2Stream, status: CallStatus): void {
  if (stream.destroyed || stream.closed || stream.headersSent) return;
  stream.respond(
    {
      'grpc-status': status.code,
      'grpc-message': encodeURI(status.details),
      ':status': 200,
      'content-type': 'application/grpc+proto',
    },
    { endStream: true },
  );
}

function sendAnswer(stream: ServerHttp2Stream, framed: Buffer): void {
  if (stream.destroyed || stream.closed || stream.headersSent) return;
  stream.respond(RESPONSE_HEADERS, { waitForTrailers: true });
  stream.once('wantTrailers', () => stream.sendTrailers(OK_TRAILERS));
  stream.end(framed);
}

function callInfo(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, deadline: number): UnaryCallInfo {
  let metadata: grpc.Metadata | undefined;
  return {
    getPeer: () => {
      const socket = stream.session?.socket;
      if (socket?.remoteAddress === undefined) return 'unknown';
      return socket.remotePort === undefined
        ? socket.remoteAddress
        : `${socket.remoteAddress}:${socket.remotePort}`;
    },
    getHost: () => headers[':authority'] ?? headers.host ?? '',
    getDeadline: () => deadline,
    get metadata(): grpc.Metadata {
      if (metadata === undefined) {
        metadata = grpc.Metadata.fromHttp2Headers(headers);
        for (const key of NOT_METADATA) metadata.remove(key);
      }
      return metadata;
    },
    metadataFields: () => plainMetadataFields(headers),
  };
}

const ignore = (): void => undefined;

/**
 * Serve one plain unary call on `stream` (`path` is a method `run` knows; `timeout`, in
 * milliseconds, the request's, as requestTimeout reads it).
 */
export function serveUnary(
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
  timeout: number | undefined,
  path: string,
  maxReceive: number,
  run: UnaryRun,
): void {
  const reader = new RequestReader(maxReceive);
  let ended = false;
  const refuse = (status: CallStatus): void => {
    ended = true;
    sendStatus(stream, status);
  };
  // As grpc-js: the deadline counts from the call's start, and its timer ends the call with
  // DEADLINE_EXCEEDED unless an answer or a status went first (sendStatus checks).
  const deadline = timeout === undefined ? Infinity : Date.now() + timeout;
  const timer =
    timeout === undefined
      ? undefined
      : setTimeout(() => {
          ended = true;
          sendStatus(stream, { code: grpc.status.DEADLINE_EXCEEDED, details: 'Deadline exceeded' });
        }, timeout);
  const onData = (chunk: Buffer): void => {
    if (ended) return;
    const tooLarge = reader.push(chunk);
    if (tooLarge !== undefined) {
      refuse(
        goRequestStatus({ code: grpc.status.RESOURCE_EXHAUSTED, details: tooLarge }, false, reader.state),
      );
      return;
    }
    const first = reader.messages[0];
    if (first !== undefined && first[0] === 1)
      refuse({
        code: grpc.status.INTERNAL,
        details: 'grpc: compressed flag set with identity or empty encoding',
      });
    else if (reader.messages.length > 1)
      refuse({
        code: grpc.status.UNIMPLEMENTED,
        details: `Received a second request message for server streaming method ${path}`,
      });
  };
  const onEnd = (): void => {
    if (ended) return;
    ended = true;
    if (stream.destroyed || stream.closed) return;
    const request = reader.messages[0];
    if (request === undefined) {
      const missing = {
        code: grpc.status.UNIMPLEMENTED,
        details: `Received no request message for server streaming method ${path}`,
      };
      sendStatus(stream, goRequestStatus(missing, false, reader.state));
      return;
    }
    run(path, request.subarray(5), callInfo(stream, headers, deadline)).then(
      (framed) => sendAnswer(stream, framed),
      (status: CallStatus) => sendStatus(stream, status),
    );
  };
  stream.on('data', onData);
  stream.on('end', onEnd);
  // A closed stream lives on until a full collection (it outlives the scavenges), and with it
  // whatever its listeners hold: let go of the call's state.
  stream.once('close', () => {
    clearTimeout(timer);
    stream.removeListener('data', onData);
    stream.removeListener('end', onEnd);
  });
}

interface StreamHandlerOwner {
  _streamHandler?: (
    this: unknown,
    extra: unknown,
    stream: ServerHttp2Stream,
    headers: IncomingHttpHeaders,
  ) => void;
  onStreamOpened?: (this: unknown, stream: ServerHttp2Stream) => void;
}

/**
 * Take the plain unary calls of `paths` off grpc-js's path (call before the server listens).
 * Returns false when grpc-js's internals are not where this expects them (nothing installed).
 */
export function installUnaryPath(
  server: grpc.Server,
  paths: ReadonlySet<string>,
  maxReceive: number,
  run: UnaryRun,
): boolean {
  const owner = server as unknown as StreamHandlerOwner;
  const original = owner._streamHandler;
  const opened = owner.onStreamOpened;
  if (typeof original !== 'function' || typeof opened !== 'function') return false;
  owner._streamHandler = function (this: unknown, extra, stream, headers): void {
    const path = headers[':path'];
    const timeout = requestTimeout(headers);
    if (typeof path !== 'string' || !paths.has(path) || !plainRequest(headers, timeout)) {
      original.call(this, extra, stream, headers);
      return;
    }
    // As grpc-js does for every stream: errors end in 'close'; the idle timer counts the stream.
    stream.once('error', ignore);
    opened.call(this, stream);
    serveUnary(stream, headers, timeout, path, maxReceive, run);
  };
  return true;
}
