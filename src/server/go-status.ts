/**
 * grpc-go's answers to requests that never reach a handler: an unknown service or method, a
 * request message over the 4 MiB limit, a missing, extra or truncated request message, a compressed
 * flag without an encoding. grpc-js refuses the same requests, with its own texts and sometimes
 * another code; clients and people grep for opm's (grpc-go's) words, so they are put back here.
 *
 * grpc-js has no public hook for these answers. Two of its internals are wrapped, per server and
 * per call, never on a prototype: the server's `_respondWithError` (the answer to a path no handler
 * is registered for) and, through a server interceptor (public API) that passes the call through, the innermost call's `sendStatus` and `decompressMessage`. When a grpc-js release renames
 * them, the wrappers are not installed and grpc-js's own texts are sent (src/server/go-status.test.ts
 * and test/serve/hostile.test.ts then fail, so the change is seen).
 */
import * as grpc from '@grpc/grpc-js';
import { goQuote } from '../go/fmt.js';

/** grpc-go's names of the status codes, as `status.Code.String()` spells them. */
export const CODE_NAMES: Record<number, string> = {
  0: 'OK',
  1: 'Canceled',
  2: 'Unknown',
  3: 'InvalidArgument',
  4: 'DeadlineExceeded',
  5: 'NotFound',
  6: 'AlreadyExists',
  7: 'PermissionDenied',
  8: 'ResourceExhausted',
  9: 'FailedPrecondition',
  10: 'Aborted',
  11: 'OutOfRange',
  12: 'Unimplemented',
  13: 'Internal',
  14: 'Unavailable',
  15: 'DataLoss',
  16: 'Unauthenticated',
};

/**
 * The `grpc.error` text of a failed call as opm's logging interceptor writes it: a plain Go error
 * (opm's registry errors, sent as Unknown) is its text; a status error is `rpc error: code = … desc = …`.
 */
export function goErrorText(code: number, message: string): string {
  if (code === grpc.status.UNKNOWN) return message;
  return `rpc error: code = ${CODE_NAMES[code] ?? `Code(${code})`} desc = ${message}`;
}

/**
 * protobuf-go's words for a request that does not decode (`message`: our decoder's): invalid UTF-8
 * in a string field, or, for every other fault, that the wire format cannot be parsed.
 */
export function goUnmarshalText(message: string): string {
  return /invalid UTF-8/.test(message)
    ? 'string field contains invalid UTF-8'
    : 'proto: cannot parse invalid wire-format data';
}

/** grpc-go's answer to a path no handler is registered for (`services`: the registered ones). */
export function unknownMethodText(path: string, services: ReadonlySet<string>): string {
  const sm = path.startsWith('/') ? path.slice(1) : path;
  const pos = sm.lastIndexOf('/');
  if (pos === -1) return `malformed method name: ${goQuote(path)}`;
  const service = sm.slice(0, pos);
  const method = sm.slice(pos + 1);
  return services.has(service)
    ? `unknown method ${method} for service ${service}`
    : `unknown service ${service}`;
}

const GRPC_JS_UNIMPLEMENTED = 'The server does not implement the method ';

interface StatusLike {
  code?: number;
  details?: string;
  metadata?: grpc.Metadata | null;
}

/** Answer unknown services and methods in grpc-go's words (code Unimplemented, as both say). */
export function answerUnknownMethodsAsGo(server: grpc.Server, serviceNames: Iterable<string>): void {
  const services = new Set(serviceNames);
  const internals = server as unknown as {
    _respondWithError?: (err: StatusLike, ...rest: unknown[]) => void;
  };
  const respond = internals._respondWithError;
  if (typeof respond !== 'function') return;
  internals._respondWithError = function (this: unknown, err: StatusLike, ...rest: unknown[]): void {
    const details = err.details;
    if (err.code === grpc.status.UNIMPLEMENTED && details?.startsWith(GRPC_JS_UNIMPLEMENTED) === true) {
      const path = details.slice(GRPC_JS_UNIMPLEMENTED.length);
      respond.call(this, { ...err, details: unknownMethodText(path, services) }, ...rest);
      return;
    }
    respond.call(this, err, ...rest);
  };
}

/** The decoder state grpc-js keeps per call: 1 while a message header is half read, 2 while its body is. */
interface DecoderLike {
  readState?: number;
}

/**
 * The status grpc-go sends where grpc-js sends `status` about a request message, or `status` as it
 * is. `responseStream`: the method streams its answer (grpc-go calls a missing or extra message a
 * cardinality violation there); `partial`: the decoder's state when the request ended.
 */
export function goRequestStatus(
  status: { code: number; details: string },
  responseStream: boolean,
  partial: number,
): { code: number; details: string } {
  const { code, details } = status;
  const tooLarge = /^Received message larger than max \((\d+) vs (\d+)\)$/.exec(details);
  if (code === grpc.status.RESOURCE_EXHAUSTED && tooLarge !== null)
    return { code, details: `grpc: received message larger than max (${tooLarge[1]} vs. ${tooLarge[2]})` };
  const encoding = /^Received message compressed with unsupported encoding (".*")$/.exec(details);
  if (code === grpc.status.UNIMPLEMENTED && encoding !== null)
    return { code, details: `grpc: Decompressor is not installed for grpc-encoding ${encoding[1]}` };
  if (code === grpc.status.UNIMPLEMENTED && details.startsWith('Received no request message for ')) {
    // Go's io.ReadFull: EOF when nothing of a message came, unexpected EOF when part of it did.
    if (partial === 2)
      return { code: responseStream ? grpc.status.INTERNAL : grpc.status.UNKNOWN, details: 'unexpected EOF' };
    if (responseStream)
      return {
        code: grpc.status.INTERNAL,
        details: 'cardinality violation: received no request message from non-client-streaming RPC',
      };
    return { code: grpc.status.UNKNOWN, details: 'EOF' };
  }
  if (
    code === grpc.status.UNIMPLEMENTED &&
    details.startsWith('Received a second request message for ') &&
    responseStream
  )
    return {
      code: grpc.status.INTERNAL,
      details: 'cardinality violation: received multiple request messages for non-client-streaming RPC',
    };
  return status;
}

const COMPRESSED_WITHOUT_ENCODING = {
  code: grpc.status.INTERNAL,
  details: 'grpc: compressed flag set with identity or empty encoding',
};

interface SessionLike {
  destroyed: boolean;
  closed: boolean;
}
/** Each call's HTTP/2 session, by the request metadata its handler is given (see `connectionGone`). */
const sessions = new WeakMap<grpc.Metadata, SessionLike>();

/**
 * Whether the connection of a cancelled call has gone (the client disconnected) rather than the
 * call alone (the client cancelled it): grpc-go reports the first as Unavailable `transport is
 * closing`, the second as Canceled `context canceled`.
 */
export function connectionGone(metadata: grpc.Metadata): boolean {
  const session = sessions.get(metadata);
  return session !== undefined && (session.destroyed || session.closed);
}

/** What a call refused before its handler ran looks like to the log. */
export interface RefusedCall {
  getPeer(): string;
  getHost(): string;
  getDeadline(): grpc.Deadline;
  metadata: grpc.Metadata;
}

/**
 * A server interceptor that changes nothing of a call but the texts (and, where grpc-go differs,
 * the codes) of grpc-js's answers to bad request messages. It must come first (innermost): the
 * call it wraps is grpc-js's own. `onRefused` is told of such an answer on a server-streaming
 * method, which grpc-go's logging interceptor sees as a call (grpc-go reads a unary request
 * before the interceptors run, a streaming one inside the handler).
 */
export const goStatusInterceptor =
  (
    onRefused: (path: string, call: RefusedCall, code: number, details: string) => void,
  ): grpc.ServerInterceptor =>
  (descriptor, call) => {
    const base = call as unknown as {
      sendStatus?: (status: StatusLike) => void;
      decompressMessage?: (message: Buffer, encoding: string) => Promise<Buffer> | Buffer;
      decoder?: DecoderLike;
      metadata?: unknown;
      cancelled?: boolean;
      stream?: { session?: SessionLike };
    };
    // The stream forgets its session once closed: keep it now.
    const session = base.stream?.session;
    if (base.metadata instanceof grpc.Metadata && session !== undefined) sessions.set(base.metadata, session);
    const sendStatus = base.sendStatus;
    const decompress = base.decompressMessage;
    // grpc-js types an interceptor as returning a call of its own; the call it was given serves as
    // well (it has every method grpc-js calls), where a ServerInterceptingCall would add a layer to
    // every call for nothing.
    const passThrough = call as grpc.ServerInterceptingCall;
    if (typeof sendStatus !== 'function' || typeof decompress !== 'function') return passThrough;
    base.sendStatus = function (this: unknown, status: StatusLike): void {
      if (typeof status.code !== 'number' || typeof status.details !== 'string') {
        sendStatus.call(this, status);
        return;
      }
      const plain = { code: status.code, details: status.details };
      const go = goRequestStatus(plain, descriptor.responseStream, base.decoder?.readState ?? 0);
      const refused = go !== plain || status.details === COMPRESSED_WITHOUT_ENCODING.details;
      // Only the first status is sent (grpc-js may try a second, e.g. "no message" after "too large").
      if (
        refused &&
        base.cancelled !== true &&
        descriptor.responseStream &&
        !descriptor.requestStream &&
        base.metadata instanceof grpc.Metadata
      )
        onRefused(
          descriptor.path,
          {
            getPeer: () => call.getPeer(),
            getHost: () => call.getHost(),
            getDeadline: () => call.getDeadline(),
            metadata: base.metadata,
          },
          go.code,
          go.details,
        );
      sendStatus.call(this, go === plain ? status : { ...status, ...go });
    };
    base.decompressMessage = function (this: unknown, message: Buffer, encoding: string) {
      // grpc-js reads a set compressed flag without an encoding as "not compressed"; grpc-go refuses it.
      if (message[0] === 1 && encoding === 'identity') return Promise.reject(COMPRESSED_WITHOUT_ENCODING);
      return decompress.call(this, message, encoding);
    };
    return passThrough;
  };
