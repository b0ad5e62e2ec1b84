/**
 * A gRPC server on node:http2 that answers as grpc-go (opm's server) does, for the methods it is
 * given: what it checks of a request's headers and in which order (content type, method, timeout,
 * path, encoding), how it reads the request's messages (the 4 MiB limit, a unary call answered on
 * its first message, a server stream's handler run once the request has ended with exactly one),
 * and the codes and texts of every refusal (go-status.ts). Handlers see a request's bytes and give
 * back answers' bytes; no gRPC library is involved.
 */
import http2, { type IncomingHttpHeaders, type Http2Session, type ServerHttp2Stream } from 'node:http2';
import { lazyZlib } from './lazy-zlib.js';
import { goneStatus, GrpcCall, type CallStatus } from './grpc-call.js';
import {
  contentSubtype,
  decodeTimeout,
  MessageReader,
  responseContentType,
  type ReadFault,
} from './grpc-wire.js';
import { goRequestStatus, unknownMethodText } from './go-status.js';
import { watchSessions, type Sessions } from './connections.js';

export type MethodKind = 'unary' | 'server_stream' | 'bidi_stream';

/** What a call's log and handler know of it. */
export interface CallInfo {
  service: string;
  method: string;
  kind: MethodKind;
  headers: IncomingHttpHeaders;
  /** The client's address and port. */
  peer: string;
  /** When the call's deadline passes (ms since the epoch), if it has one. */
  deadline: number | undefined;
}

/** Called when a call reaches its handler (grpc-go's interceptors see it); returns the call's end. */
export type CallStarted = (info: CallInfo) => (status: CallStatus) => void;

export type Route =
  | {
      kind: 'unary';
      /**
       * Reads the request as grpc-go's codec does before its interceptors run: throws when it
       * does not decode (the call is refused without a log line, as opm refuses it).
       */
      decode?: (request: Buffer) => void;
      /** The answer framed (frameMessage), or a rejection with the call's status. */
      answer(request: Buffer, info: CallInfo): Promise<Buffer>;
    }
  | { kind: 'server_stream'; messages(request: Buffer, info: CallInfo): AsyncIterable<Uint8Array> }
  | { kind: 'bidi_stream'; answer(request: Buffer): Uint8Array };

export interface GrpcServerOptions {
  /** Methods by path (`/service/Method`). */
  routes: ReadonlyMap<string, Route>;
  /** The longest request message read. */
  maxReceive: number;
  /** A call's start and end, for the log. */
  started: CallStarted;
  /** The status of what a handler threw. */
  statusOf(err: unknown): CallStatus;
  /** How often connections are pinged (connections.ts). */
  keepaliveMs?: number;
}

/** The encodings grpc-go's registry of compressors has in opm: identity and gzip. */
const DECOMPRESSORS = new Set(['gzip']);

const { HTTP_STATUS_BAD_REQUEST, HTTP_STATUS_METHOD_NOT_ALLOWED, HTTP_STATUS_UNSUPPORTED_MEDIA_TYPE } =
  http2.constants;

/** The text of one header (the first, when Node gives several). */
function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function readFaultStatus(fault: ReadFault, max: number): CallStatus {
  if (fault.kind === 'too-large')
    return { code: 8, details: `grpc: received message larger than max (${fault.size} vs. ${max})` };
  if (fault.kind === 'bad-flag')
    return { code: 13, details: `grpc: received unexpected payload format ${fault.flag}` };
  return { code: 13, details: 'grpc: compressed flag set with identity or empty encoding' };
}

/** A compressed message's bytes, or the status grpc-go ends the call with. */
function gunzip(message: Buffer, max: number): Buffer | CallStatus {
  try {
    return lazyZlib().gunzipSync(message, { maxOutputLength: max + 1 });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError)
      return { code: 8, details: `grpc: received message after decompression larger than max ${max}` };
    if (e.code === 'Z_BUF_ERROR')
      return { code: 13, details: 'grpc: failed to read decompressed data: unexpected EOF' };
    if (/header/.test(e.message))
      return { code: 13, details: 'grpc: failed to decompress the message: gzip: invalid header' };
    return { code: 13, details: `grpc: failed to read decompressed data: flate: corrupt input` };
  }
}

function peerOf(session: Http2Session | undefined): string {
  const socket = session?.socket;
  if (socket?.remoteAddress === undefined) return 'unknown';
  const address = socket.remoteAddress.replace(/^::ffff:/, '');
  return socket.remotePort === undefined
    ? address
    : `${address.includes(':') ? `[${address}]` : address}:${socket.remotePort}`;
}

/** Serve one request stream. */
function serveStream(
  opts: GrpcServerOptions,
  services: ReadonlySet<string>,
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
): void {
  const type = header(headers, 'content-type') ?? '';
  const subtype = contentSubtype(type);
  const contentType = responseContentType(type);
  // The checks grpc-go's transport makes before a call exists, in its order.
  let timeout: number | undefined;
  let fault: { http: number; status: CallStatus } | undefined;
  if (subtype === undefined)
    fault = {
      http: HTTP_STATUS_UNSUPPORTED_MEDIA_TYPE,
      status: { code: 3, details: `invalid gRPC request content-type ${JSON.stringify(type)}` },
    };
  else if (headers[':method'] !== 'POST')
    fault = {
      http: HTTP_STATUS_METHOD_NOT_ALLOWED,
      status: {
        code: 13,
        details: `Received a HEADERS frame with :method ${JSON.stringify(headers[':method'] ?? '')} which should be POST`,
      },
    };
  else {
    const t = header(headers, 'grpc-timeout');
    if (t !== undefined) {
      try {
        timeout = decodeTimeout(t);
      } catch (err) {
        fault = {
          http: HTTP_STATUS_BAD_REQUEST,
          status: { code: 13, details: `malformed grpc-timeout: ${(err as Error).message}` },
        };
      }
    }
  }
  const encoding = header(headers, 'grpc-encoding');
  const encoded = encoding !== undefined && encoding !== '' && encoding !== 'identity';
  const call = new GrpcCall(stream, headers, contentType, encoded && DECOMPRESSORS.has(encoding), timeout);
  if (fault !== undefined) {
    call.abort(fault.http, fault.status);
    return;
  }
  if (timeout !== undefined && timeout <= 0) {
    call.finish({ code: 4, details: 'context deadline exceeded' });
    return;
  }
  const path = header(headers, ':path') ?? '';
  const route = opts.routes.get(path);
  if (route === undefined) {
    call.finish({ code: 12, details: unknownMethodText(path, services) });
    return;
  }
  if (encoded && !DECOMPRESSORS.has(encoding)) {
    call.finish({
      code: 12,
      details: `grpc: Decompressor is not installed for grpc-encoding ${JSON.stringify(encoding)}`,
    });
    return;
  }
  const slash = path.lastIndexOf('/');
  const info: CallInfo = {
    service: path.slice(1, slash),
    method: path.slice(slash + 1),
    kind: route.kind,
    headers,
    peer: peerOf(stream.session),
    deadline: timeout === undefined ? undefined : Date.now() + timeout,
  };
  if (route.kind === 'unary') serveUnary(opts, call, info, route);
  else if (route.kind === 'server_stream') serveServerStream(opts, call, info, route.messages);
  else serveBidi(opts, call, info, route.answer);
}

/** Read the request's messages, each decompressed; `done` is told of the end or of a fault. */
function readRequest(
  opts: GrpcServerOptions,
  call: GrpcCall,
  onMessage: (message: Buffer) => void,
  done: (fault: CallStatus | undefined, reader: MessageReader) => void,
): void {
  const encoded = call.headers['grpc-encoding'] !== undefined && call.headers['grpc-encoding'] !== 'identity';
  let over = false;
  const reader = new MessageReader(opts.maxReceive, encoded, (message, compressed) => {
    if (over) return;
    if (!compressed) {
      onMessage(message);
      return;
    }
    const plain = gunzip(message, opts.maxReceive);
    if (Buffer.isBuffer(plain)) onMessage(plain);
    else stop(plain);
  });
  const stop = (status: CallStatus | undefined): void => {
    if (over) return;
    over = true;
    call.stream.off('data', onData);
    call.stream.off('end', onEnd);
    call.stream.resume();
    done(status, reader);
  };
  const onData = (chunk: Buffer): void => {
    if (over) return;
    const fault = reader.push(chunk);
    if (fault !== undefined) stop(readFaultStatus(fault, opts.maxReceive));
  };
  const onEnd = (): void => stop(undefined);
  call.stream.on('data', onData);
  call.stream.on('end', onEnd);
  // A closed stream lives on until a full collection: let go of what its listeners hold.
  call.stream.once('close', () => stop(undefined));
}

/**
 * A unary call: answered on its first message, as grpc-go reads one message and runs the handler
 * (what follows it is not read). The log sees only calls whose message arrived.
 */
function serveUnary(
  opts: GrpcServerOptions,
  call: GrpcCall,
  info: CallInfo,
  route: Extract<Route, { kind: 'unary' }>,
): void {
  let request: Buffer | undefined;
  const run = (message: Buffer): void => {
    if (route.decode !== undefined) {
      try {
        route.decode(message);
      } catch (err) {
        call.finish(opts.statusOf(err));
        return;
      }
    }
    const finished = opts.started(info);
    let answered: Promise<Buffer>;
    try {
      answered = route.answer(message, info);
    } catch (err) {
      answered = Promise.reject(err);
    }
    // The log has the handler's outcome, as grpc-go's interceptor, whether the answer can still go
    // or not (finish sends nothing on a call that is over).
    answered.then(
      (framed) => {
        finished({ code: 0, details: '' });
        call.finish({ code: 0, details: '' }, call.framedAnswer(framed));
      },
      (err: unknown) => {
        const status = opts.statusOf(err);
        finished(status);
        call.finish(status);
      },
    );
  };
  readRequest(
    opts,
    call,
    (message) => {
      if (request !== undefined) return;
      request = message;
      run(message);
    },
    (fault, reader) => {
      if (request !== undefined || call.over) return;
      if (fault !== undefined) call.finish(goRequestStatus(fault, false, reader.state));
      else call.finish(goRequestStatus(undefined, false, reader.state));
    },
  );
}

/**
 * A server-streaming call: the handler is logged from the start (grpc-go reads a streaming
 * request inside it) and runs once the request has ended with exactly one message.
 */
function serveServerStream(
  opts: GrpcServerOptions,
  call: GrpcCall,
  info: CallInfo,
  messages: (request: Buffer, info: CallInfo) => AsyncIterable<Uint8Array>,
): void {
  const finished = opts.started(info);
  const end = (status: CallStatus): void => {
    finished(status);
    call.finish(status);
  };
  let request: Buffer | undefined;
  let refused = false;
  readRequest(
    opts,
    call,
    (message) => {
      if (request === undefined) request = message;
      else if (!refused) {
        refused = true;
        end(goRequestStatus('second', true, 0));
      }
    },
    (fault, reader) => {
      if (refused) return;
      if (call.goneReason !== undefined) {
        finished(goneStatus(call.goneReason));
        return;
      }
      if (fault !== undefined) return end(goRequestStatus(fault, true, reader.state));
      if (request === undefined) return end(goRequestStatus(undefined, true, reader.state));
      const body = request;
      // The handler may throw at once (a request that does not decode) or while it streams.
      writeAll(call, () => messages(body, info)).then(
        () => {
          if (call.goneReason !== undefined) finished(goneStatus(call.goneReason));
          else end({ code: 0, details: '' });
        },
        (err: unknown) => {
          if (call.goneReason !== undefined) finished(goneStatus(call.goneReason));
          else end(opts.statusOf(err));
        },
      );
    },
  );
}

/** Write each message as the client reads; stop when the call is over. */
async function writeAll(call: GrpcCall, messages: () => AsyncIterable<Uint8Array>): Promise<void> {
  for await (const m of messages()) {
    if (call.over) return;
    await call.write(call.frame(m));
  }
}

/** A bidirectional stream (reflection): each request answered as it comes, OK when the client ends. */
function serveBidi(
  opts: GrpcServerOptions,
  call: GrpcCall,
  info: CallInfo,
  answer: (request: Buffer) => Uint8Array,
): void {
  const finished = opts.started(info);
  let failed = false;
  let writing = Promise.resolve();
  readRequest(
    opts,
    call,
    (message) => {
      if (failed) return;
      try {
        const framed = call.frame(answer(message));
        writing = writing.then(() => call.write(framed));
      } catch (err) {
        failed = true;
        const status = opts.statusOf(err);
        finished(status);
        call.finish(status);
      }
    },
    (fault, reader) => {
      if (failed) return;
      void writing.then(() => {
        if (call.goneReason !== undefined) {
          finished(goneStatus(call.goneReason));
          return;
        }
        const status =
          fault === undefined
            ? reader.state === 2
              ? goRequestStatus(undefined, true, 2)
              : { code: 0, details: '' }
            : goRequestStatus(fault, true, reader.state);
        finished(status);
        call.finish(status);
      });
    },
  );
}

/** A listening gRPC server. */
export interface GrpcServer {
  port: number;
  /**
   * Stop: no new connections or calls (GOAWAY), running calls finish; those still running after
   * `graceMs` are cut with their connections.
   */
  stop(graceMs: number): Promise<void>;
}

/** Listen on `port` of every interface (rejects with the listen error). */
export async function listenGrpc(opts: GrpcServerOptions, port: number): Promise<GrpcServer> {
  const services = new Set([...opts.routes.keys()].map((p) => p.slice(1, p.lastIndexOf('/'))));
  const server = http2.createServer({
    // Node refuses new streams on a connection past this memory (10 MB by default); grpc-go has
    // no such bound, and a client reading slowly must not make others fail.
    maxSessionMemory: Number.MAX_SAFE_INTEGER,
    maxSendHeaderBlockLength: Number.MAX_SAFE_INTEGER,
  });
  const sessions: Sessions = watchSessions(server, opts.keepaliveMs);
  server.on('stream', (stream, headers) => serveStream(opts, services, stream, headers));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : port,
    stop: (graceMs) =>
      new Promise<void>((resolve) => {
        const grace = setTimeout(() => sessions.destroyAll(), graceMs);
        server.close(() => {
          clearTimeout(grace);
          resolve();
        });
        sessions.closeAll();
      }),
  };
}
