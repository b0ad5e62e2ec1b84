// What hostile clients send a catalog server, written byte by byte with node:net and node:http2
// (no gRPC library in between), and what the tests read of the server process while it is under
// attack (/proc/<pid>): test/serve/hostile.test.ts runs them against opm-ts,
// test/reference/serve-hostile.test.ts against both servers side by side.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import net from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import { setTimeout as sleep } from 'node:timers/promises';

/** The resident memory of a process, in MiB. */
export function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (m === null) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) / 1024;
}

/** The CPU time a process has used so far, in clock ticks (utime + stime). */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * Whether a thread of the process is running or waiting for a CPU (state R): on a loaded machine a
 * process can wait its turn for a while, using no CPU time and yet not idle.
 */
function runnable(pid: number): boolean {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return false;
  }
  return tasks.some((tid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'R';
    } catch {
      return false;
    }
  });
}

/**
 * Resolves once the process has used no CPU for `quietMs` in a row and none of its threads waits
 * for a CPU: whatever it was making, it has stopped (blocked on a client that does not read, or
 * done), and not merely been kept off the CPU by a busy machine.
 */
export async function untilIdle(pid: number, quietMs = 1000): Promise<void> {
  let last = cpuTicks(pid);
  let quietSince = Date.now();
  for (;;) {
    await sleep(100);
    const now = cpuTicks(pid);
    if (now !== last || runnable(pid)) {
      last = now;
      quietSince = Date.now();
    } else if (Date.now() - quietSince >= quietMs) return;
  }
}

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

/** One HTTP/2 frame (RFC 9113 §4.1); `length` may lie about the payload. */
export function h2frame(
  type: number,
  flags: number,
  stream: number,
  payload: Buffer,
  length?: number,
): Buffer {
  const header = Buffer.alloc(9);
  header.writeUIntBE(length ?? payload.length, 0, 3);
  header[3] = type;
  header[4] = flags;
  header.writeUInt32BE(stream, 5);
  return Buffer.concat([header, payload]);
}
const SETTINGS = h2frame(4, 0, 0, Buffer.alloc(0));
/** The client preface and an empty SETTINGS frame: a well-behaved start of a connection. */
export const GOOD_START = Buffer.concat([PREFACE, SETTINGS]);

/** Bytes that break HTTP/2 on a fresh connection, each in its own way. */
export const FRAME_ATTACKS: Record<string, Buffer> = {
  'garbage instead of the preface': Buffer.from('hello there\r\n\r\n' + 'x'.repeat(64)),
  'a frame over the maximum frame size': Buffer.concat([
    GOOD_START,
    h2frame(0, 0, 1, Buffer.alloc(64), 1 << 20),
  ]),
  'DATA on stream 0': Buffer.concat([GOOD_START, h2frame(0, 0, 0, Buffer.from('abc'))]),
  'a header block HPACK cannot decode': Buffer.concat([
    GOOD_START,
    h2frame(1, 4, 1, Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff])),
  ]),
  'a SETTINGS frame of 5 bytes': Buffer.concat([PREFACE, h2frame(4, 0, 0, Buffer.alloc(5))]),
  'a WINDOW_UPDATE of 0': Buffer.concat([GOOD_START, h2frame(8, 0, 0, Buffer.alloc(4))]),
  'HEADERS on an even stream': Buffer.concat([GOOD_START, h2frame(1, 4, 2, Buffer.from([0x83]))]),
  'CONTINUATION without HEADERS': Buffer.concat([GOOD_START, h2frame(9, 4, 1, Buffer.from([0x83]))]),
};

export interface FrameOutcome {
  /** The server closed the connection. */
  closed: boolean;
  /** The error codes of the GOAWAY frames it sent. */
  goaway: number[];
  /** What it sent starts like an HTTP/1 response. */
  http1: boolean;
}

/**
 * Send `bytes` on a new connection and read until the server closes it, or (unless `untilClosed`)
 * sends a GOAWAY (then go away ourselves); `settleMs` bounds the wait for a server that does neither.
 */
export function attackFrames(
  port: number,
  bytes: Buffer,
  { untilClosed = false, settleMs = 20_000 }: { untilClosed?: boolean; settleMs?: number } = {},
): Promise<FrameOutcome> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let got = Buffer.alloc(0);
    const outcome = (closed: boolean): FrameOutcome => {
      const goaway: number[] = [];
      const http1 = got.subarray(0, 5).toString('latin1') === 'HTTP/';
      for (let off = 0; !http1 && off + 9 <= got.length; off += 9 + got.readUIntBE(off, 3)) {
        if (got[off + 3] === 7 && off + 17 <= got.length) goaway.push(got.readUInt32BE(off + 13));
      }
      return { closed, goaway, http1 };
    };
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(outcome(false));
    }, settleMs);
    socket.on('error', () => undefined);
    socket.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      if (!untilClosed && outcome(false).goaway.length > 0) {
        clearTimeout(timer);
        socket.destroy();
        resolve(outcome(false));
      }
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(outcome(true));
    });
    socket.write(bytes);
  });
}

/** A gRPC message frame: compressed flag, length, bytes. */
export function grpcFrame(message: Buffer, compressed = 0): Buffer {
  const header = Buffer.alloc(5);
  header[0] = compressed;
  header.writeUInt32BE(message.length, 1);
  return Buffer.concat([header, message]);
}

/** A message whose field 1 is a string of `length` bytes (GetPackageRequest{name}, HealthCheckRequest{service}). */
export function nameField(length: number): Buffer {
  const varint: number[] = [];
  for (let v = length; ; v >>>= 7) {
    if (v < 0x80) {
      varint.push(v);
      break;
    }
    varint.push((v & 0x7f) | 0x80);
  }
  return Buffer.concat([Buffer.from([0x0a, ...varint]), Buffer.alloc(length, 0x61)]);
}

export interface GrpcRequestCase {
  path: string;
  body: Buffer;
  headers?: Record<string, string>;
}

/** Requests a gRPC library would never send, each answered with a status by grpc-go. */
export const REQUEST_ATTACKS: Record<string, GrpcRequestCase> = {
  'a message over 4 MiB (unary)': {
    path: '/api.Registry/GetPackage',
    body: grpcFrame(nameField(4 * 1024 * 1024)),
  },
  'a message over 4 MiB (stream)': {
    path: '/api.Registry/ListBundles',
    body: grpcFrame(nameField(4 * 1024 * 1024)),
  },
  'a length prefix of 4 GiB': {
    path: '/api.Registry/GetPackage',
    body: Buffer.from([0, 0xff, 0xff, 0xff, 0xff, 1, 2, 3]),
  },
  'a message cut short (unary)': {
    path: '/api.Registry/GetPackage',
    body: Buffer.from([0, 0, 0, 0, 100, 0x0a, 2, 0x61]),
  },
  'a message cut short (stream)': {
    path: '/api.Registry/ListPackages',
    body: Buffer.from([0, 0, 0, 0, 100, 0x0a]),
  },
  'a length prefix cut short': { path: '/api.Registry/GetPackage', body: Buffer.from([0, 0, 0]) },
  'no message (unary)': { path: '/api.Registry/GetPackage', body: Buffer.alloc(0) },
  'no message (stream)': { path: '/api.Registry/ListPackages', body: Buffer.alloc(0) },
  'two messages (stream)': {
    path: '/api.Registry/ListPackages',
    body: Buffer.concat([grpcFrame(Buffer.alloc(0)), grpcFrame(Buffer.alloc(0))]),
  },
  'the compressed flag without an encoding': {
    path: '/api.Registry/GetPackage',
    body: grpcFrame(Buffer.from([0x0a, 1, 0x61]), 1),
  },
  'an encoding the server lacks': {
    path: '/api.Registry/GetPackage',
    body: grpcFrame(Buffer.from([0x0a, 1, 0x61]), 1),
    headers: { 'grpc-encoding': 'zstd' },
  },
  'bytes that are not protobuf': {
    path: '/api.Registry/GetPackage',
    body: grpcFrame(Buffer.from([0xff, 0xff, 0xff])),
  },
  'invalid UTF-8 in a string field': {
    path: '/api.Registry/GetBundle',
    body: grpcFrame(Buffer.from([0x0a, 0x02, 0xff, 0xfe])),
  },
  'a known field on another wire type': {
    path: '/api.Registry/GetPackage',
    body: grpcFrame(Buffer.from([0x08, 0x01])),
  },
  'a group (wire types 3 and 4)': {
    path: '/api.Registry/GetPackage',
    body: grpcFrame(Buffer.from([0x0b, 0x13, 0x08, 0x01, 0x14, 0x0c, 0x0a, 0x01, 0x61])),
  },
  'the end of a group without its start': {
    path: '/api.Registry/GetPackage',
    body: grpcFrame(Buffer.from([0x0c])),
  },
  'an unknown method': { path: '/api.Registry/Nope', body: grpcFrame(Buffer.alloc(0)) },
  'an unknown service': { path: '/nosuch.Service/X', body: grpcFrame(Buffer.alloc(0)) },
  'a path without a method': { path: '/nope', body: grpcFrame(Buffer.alloc(0)) },
};

export interface GrpcOutcome {
  /** The status code name's number and the decoded grpc-message. */
  code: number | undefined;
  message: string;
}

/** Send one request on its own connection; the gRPC status it ends with. */
export function grpcRequest(port: number, c: GrpcRequestCase): Promise<GrpcOutcome> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://127.0.0.1:${port}`);
    session.on('error', reject);
    const req = session.request({
      ':method': 'POST',
      ':path': c.path,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...c.headers,
    });
    let status: http2.IncomingHttpHeaders = {};
    req.on('response', (h) => (status = h['grpc-status'] === undefined ? status : h));
    req.on('trailers', (h) => (status = h));
    req.on('data', () => undefined);
    req.on('error', () => undefined);
    req.on('close', () => {
      session.close();
      const code = status['grpc-status'];
      const message = status['grpc-message'];
      resolve({
        code: code === undefined ? undefined : Number(code),
        // grpc-go escapes only what is not printable ASCII; grpc-js escapes more: both decode alike.
        message: typeof message === 'string' ? decodeURIComponent(message) : '',
      });
    });
    req.end(c.body);
  });
}

/**
 * A catalog of one package whose `bundles` bundles sit in each of `channels` channels and carry
 * no image, so ListBundles sends each one's manifests (a CSV of `kib` KiB, as csvJson and as
 * object): bundles × channels messages of about 2 × kib KiB.
 */
export function writeHeavyCatalog(dir: string, bundles: number, channels: number, kib: number): string {
  mkdirSync(dir, { recursive: true });
  const name = (i: number): string => `heavy.v${i}.0.0`;
  const blobs: unknown[] = [{ schema: 'olm.package', name: 'heavy', defaultChannel: 'c0' }];
  for (let c = 0; c < channels; c++) {
    blobs.push({
      schema: 'olm.channel',
      package: 'heavy',
      name: `c${c}`,
      entries: Array.from({ length: bundles }, (_, i) =>
        i === 0 ? { name: name(i) } : { name: name(i), replaces: name(i - 1) },
      ),
    });
  }
  const description = 'x'.repeat(kib * 1024);
  for (let i = 0; i < bundles; i++) {
    const csv = {
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'ClusterServiceVersion',
      metadata: { name: name(i) },
      spec: { description },
    };
    blobs.push({
      schema: 'olm.bundle',
      package: 'heavy',
      name: name(i),
      properties: [
        { type: 'olm.package', value: { packageName: 'heavy', version: `${i}.0.0` } },
        { type: 'olm.bundle.object', value: { data: Buffer.from(JSON.stringify(csv)).toString('base64') } },
      ],
    });
  }
  writeFileSync(path.join(dir, 'catalog.json'), blobs.map((b) => JSON.stringify(b)).join('\n') + '\n');
  return dir;
}

/** What a server sent for one request, as on the wire but for the date. */
export interface GrpcExchange {
  /** Response headers without `date` (Node's HTTP/2 server always adds one). */
  headers: Record<string, string | string[] | number | undefined>;
  trailers: Record<string, string | string[] | number | undefined>;
  /** The response's messages, each decompressed when its flag says so. */
  messages: string[];
  /** The RST_STREAM code the server closed the stream with, if it did before the answer ended. */
  reset: number | undefined;
}

/** Requests whose answers grpc-go writes in a known way: headers, trailers and texts. */
export const WIRE_CASES: Record<
  string,
  GrpcRequestCase & {
    open?: boolean;
    /** Why the reference's answer to it depends on timing: left out of the byte comparison. */
    timed?: string;
  }
> = {
  'a unary answer': { path: '/api.Registry/GetPackage', body: grpcFrame(Buffer.from('\n\balpha-op')) },
  'a unary answer, the content type with a subtype': {
    path: '/api.Registry/GetPackage',
    body: grpcFrame(Buffer.from('\n\balpha-op')),
    headers: { 'content-type': 'application/grpc+proto' },
  },
  'a unary error, a text with quotes': {
    path: '/api.Registry/GetPackage',
    body: grpcFrame(Buffer.from('\n\x04nope')),
  },
  'a unary error, a text beyond ASCII and a percent sign': {
    path: '/api.Registry/GetPackage',
    body: grpcFrame(Buffer.concat([Buffer.from([0x0a, 8]), Buffer.from('caf\u00e9 5%', 'utf8')])),
  },
  'two messages on a unary call': {
    path: '/api.Registry/GetPackage',
    body: Buffer.concat([grpcFrame(Buffer.from('\n\balpha-op')), grpcFrame(Buffer.from('\n\x07beta-op'))]),
  },
  'a unary call whose request is left open': {
    path: '/api.Registry/GetPackage',
    body: grpcFrame(Buffer.from('\n\balpha-op')),
    open: true,
  },
  'a stream': {
    path: '/api.Registry/GetChannelEntriesThatReplace',
    body: grpcFrame(Buffer.from('\n\x0falpha-op.v1.0.0')),
  },
  'an empty stream': {
    path: '/api.ExperimentalRegistry/ExperimentalListPackageCustomSchemas',
    body: grpcFrame(Buffer.alloc(0)),
  },
  'a stream error': {
    path: '/api.ExperimentalRegistry/ExperimentalListPackageCustomSchemas',
    body: grpcFrame(Buffer.alloc(0)),
    headers: { 'x-acknowledge-experimental': 'true' },
  },
  'a stream error after no message': {
    path: '/api.Registry/GetChannelEntriesThatReplace',
    body: grpcFrame(Buffer.from('\n\x04nope')),
  },
  'Health Watch': { path: '/grpc.health.v1.Health/Watch', body: grpcFrame(Buffer.alloc(0)) },
  'Health List': { path: '/grpc.health.v1.Health/List', body: grpcFrame(Buffer.alloc(0)) },
  'a gzip request': {
    path: '/api.Registry/GetPackage',
    body: grpcFrame(zlib.gzipSync(Buffer.from('\n\balpha-op')), 1),
    headers: { 'grpc-encoding': 'gzip' },
  },
  'a gzip request to a stream': {
    path: '/api.Registry/GetChannelEntriesThatReplace',
    body: grpcFrame(zlib.gzipSync(Buffer.from('\n\x0falpha-op.v1.0.0')), 1),
    headers: { 'grpc-encoding': 'gzip', 'grpc-accept-encoding': 'gzip' },
  },
  'gzip data that does not inflate': {
    path: '/api.Registry/GetPackage',
    body: grpcFrame(Buffer.alloc(20, 0x78), 1),
    headers: { 'grpc-encoding': 'gzip' },
  },
  'gzip data cut short': {
    path: '/api.Registry/GetPackage',
    body: grpcFrame(zlib.gzipSync(Buffer.from('\n\balpha-op')).subarray(0, 15), 1),
    headers: { 'grpc-encoding': 'gzip' },
  },
  'a deflate request': {
    path: '/api.Registry/GetPackage',
    body: grpcFrame(zlib.deflateSync(Buffer.from('\n\balpha-op')), 1),
    headers: { 'grpc-encoding': 'deflate' },
  },
  'a content type that is not gRPC': {
    path: '/api.Registry/GetPackage',
    body: grpcFrame(Buffer.from('\n\balpha-op')),
    headers: { 'content-type': 'application/json' },
  },
  'a method other than POST': {
    path: '/api.Registry/GetPackage',
    body: grpcFrame(Buffer.from('\n\balpha-op')),
    headers: { ':method': 'PUT' },
  },
  'a malformed grpc-timeout': {
    path: '/api.Registry/GetPackage',
    body: grpcFrame(Buffer.from('\n\balpha-op')),
    headers: { 'grpc-timeout': '5x' },
  },
  'a grpc-timeout of 0': {
    path: '/api.Registry/GetPackage',
    body: grpcFrame(Buffer.from('\n\balpha-op')),
    headers: { 'grpc-timeout': '0S' },
  },
  'a deadline that passes while the request is incomplete': {
    path: '/api.Registry/GetPackage',
    body: Buffer.from([0, 0, 0, 0, 9, 0x0a]),
    headers: { 'grpc-timeout': '300m' },
    open: true,
    timed:
      'grpc-go answers DeadlineExceeded on a quiet machine and closes the stream with nothing under load, as its timer fires against the read',
  },
  'an unknown method': { path: '/api.Registry/Nope', body: grpcFrame(Buffer.alloc(0)) },
};

/** Send one request on its own connection; everything the server answered. */
export function grpcExchange(port: number, c: GrpcRequestCase & { open?: boolean }): Promise<GrpcExchange> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://127.0.0.1:${port}`);
    session.on('error', reject);
    const req = session.request({
      ':method': 'POST',
      ':path': c.path,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...c.headers,
    });
    const plain = (h: http2.IncomingHttpHeaders): GrpcExchange['headers'] => {
      const { date: _date, ...rest } = h;
      return Object.fromEntries(Object.entries(rest));
    };
    let headers: GrpcExchange['headers'] = {};
    let trailers: GrpcExchange['trailers'] = {};
    const chunks: Buffer[] = [];
    let ended = false;
    req.on('response', (h) => (headers = plain(h)));
    req.on('trailers', (h) => (trailers = plain(h)));
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => (ended = true));
    req.on('error', () => undefined);
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      const body = Buffer.concat(chunks);
      const messages: string[] = [];
      for (let at = 0; at + 5 <= body.length; at += 5 + body.readUInt32BE(at + 1)) {
        const m = body.subarray(at + 5, at + 5 + body.readUInt32BE(at + 1));
        messages.push((body[at] === 1 ? zlib.gunzipSync(m) : m).toString('base64'));
      }
      session.destroy();
      resolve({ headers, trailers, messages, reset: ended ? undefined : req.rstCode });
    };
    // A request left open ends when the answer has (or the server resets the stream).
    req.on('trailers', () => {
      if (c.open === true) setImmediate(finish);
    });
    req.on('close', finish);
    if (c.open === true) req.write(c.body);
    else req.end(c.body);
  });
}
