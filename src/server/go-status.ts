/**
 * grpc-go's words: the names of its status codes, the texts of its answers to requests that never
 * reach a handler (an unknown service or method, a missing, extra or truncated request message),
 * and how opm's logging interceptor writes a failed call's error. Clients and people grep for
 * opm's (grpc-go's) words.
 */
import { goQuote } from '../go/fmt.js';
import type { CallStatus } from './grpc-call.js';

const UNKNOWN = 2;
const INTERNAL = 13;

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
  if (code === UNKNOWN) return message;
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

/**
 * The status grpc-go ends a call with when its request did not bring exactly one message: `fault`,
 * the reader's own status, as it is; 'second' for a second message on a server stream; undefined
 * when the request ended without a whole message. `responseStream`: the method streams its answer
 * (grpc-go reads such a request inside the handler, where a missing or extra message is a
 * cardinality violation); `partial`: where the reader was when the request ended (2: in a body).
 */
export function goRequestStatus(
  fault: CallStatus | 'second' | undefined,
  responseStream: boolean,
  partial: number,
): CallStatus {
  if (fault === 'second')
    return {
      code: INTERNAL,
      details: 'cardinality violation: received multiple request messages for non-client-streaming RPC',
    };
  if (fault !== undefined) return fault;
  // Go's io.ReadFull: EOF when nothing of a message came, unexpected EOF when part of its body did.
  if (partial === 2) return { code: responseStream ? INTERNAL : UNKNOWN, details: 'unexpected EOF' };
  if (responseStream)
    return {
      code: INTERNAL,
      details: 'cardinality violation: received no request message from non-client-streaming RPC',
    };
  return { code: UNKNOWN, details: 'EOF' };
}
