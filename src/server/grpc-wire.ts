/**
 * gRPC over HTTP/2 as grpc-go (opm's server) writes and reads it: length-prefixed messages, the
 * `grpc-timeout` header, the content type, and the percent-encoding of `grpc-message`.
 */
import { goQuote } from '../go/fmt.js';

/** A message in gRPC's length-prefixed framing: flag byte (1: compressed), 4-byte length, bytes. */
export function frameMessage(message: Uint8Array, compressed = false): Buffer {
  const framed = Buffer.allocUnsafe(message.length + 5);
  framed[0] = compressed ? 1 : 0;
  framed.writeUInt32BE(message.length, 1);
  framed.set(message, 5);
  return framed;
}

/**
 * A status text as grpc-go puts it in `grpc-message`: printable ASCII but '%' as it is, every
 * other byte of its UTF-8 as %XX (upper-case hex). Invalid UTF-8 cannot occur: JavaScript strings
 * are encoded well-formed.
 */
export function encodeGrpcMessage(text: string): string {
  if (/^[ -$&-~]*$/.test(text)) return text;
  let out = '';
  for (const byte of Buffer.from(text.toWellFormed(), 'utf8')) {
    out +=
      byte >= 0x20 && byte <= 0x7e && byte !== 0x25
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The response content type grpc-go answers for a request's (`application/grpc` or with its subtype). */
export function responseContentType(requestType: string): string {
  const sub = contentSubtype(requestType);
  return sub === undefined || sub === '' ? 'application/grpc' : `application/grpc+${sub}`;
}

/**
 * The subtype of a gRPC content type (`application/grpc` → '', `application/grpc+proto` →
 * 'proto', also after ';'), lower-cased as grpc-go keeps it; undefined when it is not gRPC's.
 */
export function contentSubtype(type: string): string | undefined {
  const base = 'application/grpc';
  if (!type.startsWith(base)) return undefined;
  if (type.length === base.length) return '';
  const sep = type[base.length];
  if (sep !== '+' && sep !== ';') return undefined;
  return type.slice(base.length + 1).toLowerCase();
}

const UNIT_MS: Readonly<Record<string, number>> = {
  H: 3_600_000,
  M: 60_000,
  S: 1000,
  m: 1,
  u: 0.001,
  n: 0.000001,
};

/** A `grpc-timeout` grpc-go refuses, with its words (sent as Internal `malformed grpc-timeout: …`). */
export class TimeoutError extends Error {}

/** A `grpc-timeout` value in milliseconds, read as grpc-go reads it (at most 8 digits and a unit). */
export function decodeTimeout(value: string): number {
  if (value.length < 2) throw new TimeoutError(`transport: timeout string is too short: ${goQuote(value)}`);
  if (value.length > 9) throw new TimeoutError(`transport: timeout string is too long: ${goQuote(value)}`);
  const unit = UNIT_MS[value[value.length - 1] as string];
  if (unit === undefined)
    throw new TimeoutError(`transport: timeout unit is not recognized: ${goQuote(value)}`);
  const digits = value.slice(0, -1);
  if (!/^\d+$/.test(digits))
    throw new TimeoutError(`strconv.ParseUint: parsing ${goQuote(digits)}: invalid syntax`);
  return Number(digits) * unit;
}

/** What went wrong reading a request's messages. */
export type ReadFault =
  /** A message's length is over the limit (grpc-go reads no further). */
  | { kind: 'too-large'; size: number }
  /** The compressed flag is set but the request names no encoding. */
  | { kind: 'compressed-without-encoding' }
  /** A flag byte neither 0 nor 1. */
  | { kind: 'bad-flag'; flag: number };

/**
 * A request's messages as they arrive, in any chunks: flag byte, 4-byte length, body. `state` is
 * where the reader is: 0 between messages, 1 in a length prefix, 2 in a body (what grpc-go calls
 * EOF or an unexpected EOF when the request ends there).
 */
export class MessageReader {
  state: 0 | 1 | 2 = 0;
  private head = Buffer.alloc(5);
  private headRead = 0;
  private body: Buffer[] = [];
  private bodyLeft = 0;
  private size = 0;
  private readonly max: number;
  private readonly encoded: boolean;
  private readonly onMessage: (message: Buffer, compressed: boolean) => void;

  /**
   * `max`: the longest message taken; `encoded`: the request names an encoding (else a compressed
   * flag is a fault); `onMessage` is given each whole message without its prefix.
   */
  constructor(max: number, encoded: boolean, onMessage: (message: Buffer, compressed: boolean) => void) {
    this.max = max;
    this.encoded = encoded;
    this.onMessage = onMessage;
  }

  /** Reads a chunk; returns the fault that ends the request, if any. */
  push(data: Buffer): ReadFault | undefined {
    // The usual request: one whole message in one chunk.
    if (this.state === 0 && data.length >= 5 && data.readUInt32BE(1) === data.length - 5) {
      return this.tooLarge(data.length - 5) ?? this.emit(data.subarray(5), data[0] as number);
    }
    let at = 0;
    while (at < data.length) {
      if (this.state !== 2) {
        if (this.state === 0) {
          this.state = 1;
          this.headRead = 0;
        }
        const n = Math.min(data.length - at, 5 - this.headRead);
        data.copy(this.head, this.headRead, at, at + n);
        this.headRead += n;
        at += n;
        if (this.headRead < 5) continue;
        this.size = this.head.readUInt32BE(1);
        const fault = this.tooLarge(this.size);
        if (fault !== undefined) return fault;
        if (this.size === 0) {
          this.state = 0;
          const f = this.emit(Buffer.alloc(0), this.head[0] as number);
          if (f !== undefined) return f;
        } else {
          this.state = 2;
          this.body = [];
          this.bodyLeft = this.size;
        }
      } else {
        const n = Math.min(data.length - at, this.bodyLeft);
        this.body.push(data.subarray(at, at + n));
        this.bodyLeft -= n;
        at += n;
        if (this.bodyLeft === 0) {
          this.state = 0;
          const message =
            this.body.length === 1 ? (this.body[0] as Buffer) : Buffer.concat(this.body, this.size);
          this.body = [];
          const f = this.emit(message, this.head[0] as number);
          if (f !== undefined) return f;
        }
      }
    }
    return undefined;
  }

  private tooLarge(size: number): ReadFault | undefined {
    return size > this.max ? { kind: 'too-large', size } : undefined;
  }

  /** As grpc-go: the flag is looked at once the whole message is read. */
  private emit(message: Buffer, flag: number): ReadFault | undefined {
    if (flag !== 0 && flag !== 1) return { kind: 'bad-flag', flag };
    if (flag === 1 && !this.encoded) return { kind: 'compressed-without-encoding' };
    this.onMessage(message, flag === 1);
    return undefined;
  }
}
