/**
 * The catalog server on one port (plaintext HTTP/2, every interface): `api.Registry`,
 * `api.ExperimentalRegistry`, `grpc.health.v1.Health` and server reflection (v1 and v1alpha), each
 * call logged when it starts and when it finishes, as opm's logging interceptors do. Streams are
 * written as the client reads them: the next message is made when the previous one has drained.
 */
import type { IncomingHttpHeaders } from 'node:http2';
import {
  decodeCustomSchemasRequest,
  decodeEmptyRequest,
  decodeGetAllReplacementsRequest,
  decodeGetBundleInChannelRequest,
  decodeGetBundleRequest,
  decodeGetPackageRequest,
  decodeGetReplacementRequest,
  decodeProvidersRequest,
  encodeBundle,
  encodeChannelEntry,
  encodePackage,
  encodePackageName,
} from '../api-contract/messages.js';
import {
  type DescriptorSet,
  descriptorSet,
  HEALTH_FILE,
  REFLECTION_V1ALPHA_FILE,
  REFLECTION_V1_FILE,
  REGISTRY_FILE,
  STRUCT_FILE,
} from '../api-contract/descriptors.js';
import { RpcError, STATUS, type QueryEngine } from '../catalog-queries/queries.js';
import type { LogFields, LogLevel, ServeLog } from '../util/log.js';
import { rfc3339Local } from '../go/time.js';
import { decodeStrings, ProtoDecodeError, ProtoWriter } from '../protobuf/wire.js';
import { releaseLoadGarbage } from './heap.js';
import { answerReflection } from './reflection.js';
import { AnswerCache } from './answer-cache.js';
import { frameMessage } from './grpc-wire.js';
import type { CallStatus } from './grpc-call.js';
import { listenGrpc, type CallInfo, type Route } from './grpc-http2.js';
import { CODE_NAMES, goErrorText, goUnmarshalText } from './go-status.js';

/** opm's grpc-go: 4 MiB received per message, no limit on what is sent. */
export const MAX_RECEIVE_BYTES = 4 * 1024 * 1024;

/** The level of a finished call's line (go-grpc-middleware's default mapping). */
function levelOf(code: number): LogLevel {
  if (code === 0 || code === 1 || code === 3 || code === 5 || code === 6 || code === 16) return 'info';
  if (code === 4 || code === 7 || code === 8 || code === 9 || code === 10 || code === 11 || code === 14)
    return 'warning';
  return 'error';
}

/** RFC 3339 (seconds) of times that come in order, made once per second: a busy server logs many. */
class SecondStamps {
  private second = Number.NaN;
  private text = '';
  of(ms: number): string {
    const second = Math.floor(ms / 1000);
    if (second !== this.second) {
      this.second = second;
      this.text = rfc3339Local(new Date(ms));
    }
    return this.text;
  }
}
const startStamps = new SecondStamps();
const deadlineStamps = new SecondStamps();

/** Keys of a finished call's line that a started call's line has not, where they go. */
const CODE_KEY = 'grpc.code';
const ERROR_KEY = 'grpc.error';
const TIME_KEY = 'grpc.time_ms';

/** Request headers that are not a call's metadata (grpc-go keeps them apart, or HTTP/2 does). */
const NOT_METADATA = new Set([
  'grpc-timeout',
  'grpc-encoding',
  'grpc-accept-encoding',
  'accept-encoding',
  'te',
  'content-type',
  'host',
]);

/**
 * A call being served: what the log lines say about it. The fields are made in byte order of their
 * keys as far as it is known here (a client's metadata keys are placed by the log's writer), so the
 * log's writer seldom has to sort them.
 */
class CallLog {
  private readonly fields: LogFields;
  private readonly start = performance.now();
  private readonly log: ServeLog;

  constructor(log: ServeLog, call: CallInfo) {
    this.log = log;
    const fields: LogFields = {};
    const headers = call.headers;
    // grpc-go hands the interceptor the request's headers as metadata.
    fields[':authority'] = `[${headers[':authority'] ?? headers.host ?? ''}]`;
    fields['content-type'] = '[application/grpc]';
    fields['grpc.component'] = 'server';
    fields['grpc.method'] = call.method;
    fields['grpc.method_type'] = call.kind;
    if (call.deadline !== undefined && Number.isFinite(call.deadline))
      fields['grpc.request.deadline'] = deadlineStamps.of(call.deadline);
    fields['grpc.service'] = call.service;
    fields['grpc.start_time'] = startStamps.of(Date.now());
    fields[TIME_KEY] = '';
    fields['peer.address'] = call.peer;
    fields.protocol = 'grpc';
    for (const key in headers) {
      if (key.startsWith(':') || NOT_METADATA.has(key)) continue;
      const value = headers[key];
      if (value === undefined) continue;
      fields[key] = `[${Array.isArray(value) ? value.join(' ') : value}]`;
    }
    this.fields = fields;
    fields[TIME_KEY] = this.elapsed();
    log('info', 'started call', fields);
  }

  private elapsed(): string {
    return (performance.now() - this.start).toFixed(3);
  }

  finish(code: number, message?: string): void {
    const fields: LogFields = {};
    for (const key in this.fields) {
      if (key === 'grpc.component') {
        fields[CODE_KEY] = CODE_NAMES[code] ?? `Code(${code})`;
        fields[key] = this.fields[key] as string;
        if (code !== 0 && message !== undefined) fields[ERROR_KEY] = goErrorText(code, message);
      } else fields[key] = this.fields[key] as string | number;
    }
    fields[TIME_KEY] = this.elapsed();
    this.log(levelOf(code), 'finished call', fields);
  }
}

function statusOf(err: unknown): CallStatus {
  if (err instanceof RpcError) return { code: err.code, details: err.message };
  if (err instanceof ProtoDecodeError)
    return {
      code: 13,
      details: `grpc: error unmarshalling request: ${goUnmarshalText(err.message)}`,
    };
  // A status already (a method opm does not implement).
  if (typeof err === 'object' && err !== null && 'code' in err && 'details' in err) return err as CallStatus;
  return { code: STATUS.UNKNOWN, details: err instanceof Error ? err.message : String(err) };
}

interface Handlers {
  /** Unary methods: each answers its message framed as on the wire. */
  unary: Record<string, (req: Buffer) => Promise<Buffer>>;
  /** Unary requests read before the call is logged (grpc-go decodes them before its interceptors). */
  decode?: Record<string, (req: Buffer) => void>;
  stream: Record<string, (req: Buffer, headers: IncomingHttpHeaders) => AsyncIterable<Uint8Array>>;
}

function addService(
  routes: Map<string, Route>,
  service: string,
  handlers: Handlers,
  unimplemented: string[] = [],
): void {
  for (const [name, handle] of Object.entries(handlers.unary)) {
    const decode = handlers.decode?.[name];
    routes.set(
      `/${service}/${name}`,
      decode === undefined
        ? { kind: 'unary', answer: (req) => handle(req) }
        : { kind: 'unary', decode, answer: (req) => handle(req) },
    );
  }
  for (const [name, handle] of Object.entries(handlers.stream))
    routes.set(`/${service}/${name}`, {
      kind: 'server_stream',
      messages: (req, info) => handle(req, info.headers),
    });
  for (const name of unimplemented) {
    const details = `method ${name} not implemented`;
    const status: CallStatus = { code: 12, details };
    routes.set(
      `/${service}/${name}`,
      name === 'Watch'
        ? {
            kind: 'server_stream',
            messages: () => ({
              [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(status) }),
            }),
          }
        : { kind: 'unary', answer: () => Promise.reject(status) },
    );
  }
}

async function* each<T>(
  items: Iterable<T> | Promise<Iterable<T>>,
  encode: (item: T) => Uint8Array,
): AsyncIterable<Uint8Array> {
  for (const item of await items) yield encode(item);
}

function registryHandlers(reg: QueryEngine, answers: AnswerCache): Handlers {
  const gvk = (buf: Buffer) => decodeProvidersRequest(buf);
  // A request whose answer is kept has decoded before: it is not read again.
  const unlessKept =
    (method: string, decode: (buf: Buffer) => unknown) =>
    (buf: Buffer): void => {
      if (!answers.has(method, buf)) decode(buf);
    };
  // The catalog does not change while served: an answer is kept by its method and request bytes
  // (answer-cache.ts bounds them). What fails (not found, a request that does not decode) is not kept:
  // it is made and logged again each time.
  return {
    unary: {
      GetPackage: (buf) =>
        answers.answer('GetPackage', buf, () =>
          encodePackage(reg.getPackage(decodeGetPackageRequest(buf).name)),
        ),
      GetBundle: (buf) =>
        answers.answer('GetBundle', buf, async () => {
          const r = decodeGetBundleRequest(buf);
          return encodeBundle(await reg.getBundle(r.pkgName, r.channelName, r.csvName));
        }),
      GetBundleForChannel: (buf) =>
        answers.answer('GetBundleForChannel', buf, async () => {
          const r = decodeGetBundleInChannelRequest(buf);
          return encodeBundle(await reg.getBundleForChannel(r.pkgName, r.channelName));
        }),
      GetBundleThatReplaces: (buf) =>
        answers.answer('GetBundleThatReplaces', buf, async () => {
          const r = decodeGetReplacementRequest(buf);
          return encodeBundle(await reg.getBundleThatReplaces(r.csvName, r.pkgName, r.channelName));
        }),
      GetDefaultBundleThatProvides: (buf) =>
        answers.answer('GetDefaultBundleThatProvides', buf, async () =>
          encodeBundle(await reg.getDefaultBundleThatProvides(gvk(buf))),
        ),
    },
    decode: {
      GetPackage: unlessKept('GetPackage', decodeGetPackageRequest),
      GetBundle: unlessKept('GetBundle', decodeGetBundleRequest),
      GetBundleForChannel: unlessKept('GetBundleForChannel', decodeGetBundleInChannelRequest),
      GetBundleThatReplaces: unlessKept('GetBundleThatReplaces', decodeGetReplacementRequest),
      GetDefaultBundleThatProvides: unlessKept('GetDefaultBundleThatProvides', gvk),
    },
    stream: {
      ListPackages: (buf) => {
        decodeEmptyRequest(buf);
        return each(reg.listPackages(), encodePackageName);
      },
      GetChannelEntriesThatReplace: (buf) =>
        each(
          reg.getChannelEntriesThatReplace(decodeGetAllReplacementsRequest(buf).csvName),
          encodeChannelEntry,
        ),
      GetChannelEntriesThatProvide: (buf) =>
        each(reg.getChannelEntriesThatProvide(gvk(buf)), encodeChannelEntry),
      GetLatestChannelEntriesThatProvide: (buf) =>
        each(reg.getLatestChannelEntriesThatProvide(gvk(buf)), encodeChannelEntry),
      ListBundles: (buf) => {
        decodeEmptyRequest(buf);
        // One message at a time, as the client reads: messages with manifests are never all held.
        return reg.listedMessages();
      },
    },
  };
}

/** Whether a header says `true` (in any of its values, as grpc-go's metadata lists them). */
function saysTrue(value: string | string[] | undefined): boolean {
  if (value === undefined) return false;
  return (Array.isArray(value) ? value : value.split(', ')).includes('true');
}

function experimentalHandlers(
  customSchemaBlobs: (schema: string, packageName: string) => AsyncIterable<Uint8Array>,
): Handlers {
  return {
    unary: {},
    stream: {
      ExperimentalListPackageCustomSchemas: (buf, headers) => {
        const r = decodeCustomSchemasRequest(buf);
        // The endpoint answers only callers that say they know it may change.
        if (!saysTrue(headers['x-acknowledge-experimental'])) return each([], encodePackageName);
        return customSchemaBlobs(r.schema, r.packageName);
      },
    },
  };
}

const SERVING = frameMessage(new ProtoWriter().uint(1, 1).finish());

function healthHandlers(): Handlers {
  return {
    unary: {
      // SERVING for any service name, as opm's health server answers.
      Check: () => Promise.resolve(SERVING),
    },
    decode: { Check: (buf) => decodeStrings(buf, { 1: 'service' }) },
    stream: {},
  };
}

function addReflection(routes: Map<string, Route>, service: string, set: () => DescriptorSet): void {
  routes.set(`/${service}/ServerReflectionInfo`, {
    kind: 'bidi_stream',
    answer: (req) => answerReflection(set(), req),
  });
}

export interface ServerOptions {
  registry: QueryEngine;
  /** The port as given (`:port` is listened on, every interface). */
  port: string;
  log: ServeLog;
  /** Log each call's start and end (default); `registry serve`'s server logs none. */
  logCalls?: boolean;
  /** How often connections are pinged (src/server/connections.ts); tests shorten it. */
  keepaliveMs?: number;
  /** The load let go of most of what it read: collect once listening, whatever the heap's size (heap.ts). */
  loadLeftGarbage?: boolean;
  /** Bytes of unary answers kept for the next identical request (default ANSWER_CACHE_BYTES). */
  answerCacheBytes?: number;
  /** How long running calls may go on once stopping (default STOP_GRACE_MS); tests shorten it. */
  stopGraceMs?: number;
}

/**
 * What the kept answers may hold: the answers of every package and of the bundles a client asks
 * for most (a bundle's answer carries its manifests: 10–700 KB), small beside the catalog's index.
 */
export const ANSWER_CACHE_BYTES = 8 * 1024 * 1024;

/**
 * How long running calls may go on once the server is stopping, as the catalog HTTP API's
 * (http-catalog.ts): a client that never reads its stream does not keep the process alive.
 */
export const STOP_GRACE_MS = 30_000;

/** A server that is listening. */
export interface RunningServer {
  /** The port it listens on. */
  port: number;
  /** Stop taking calls, let the running ones finish (for at most the grace), close the listener. */
  stop(): Promise<void>;
}

/** A failure to listen, in Go's words where the cause is known. */
export class ListenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ListenError';
  }
}

/** Register every service and listen on `:port`. Rejects with ListenError when the port cannot be had. */
export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const routes = new Map<string, Route>();
  const answers = new AnswerCache(opts.answerCacheBytes ?? ANSWER_CACHE_BYTES);
  addService(routes, 'api.Registry', registryHandlers(opts.registry, answers));
  const reg = opts.registry;
  // `registry serve` (a SQLite database) registers no ExperimentalRegistry, as opm's does not.
  const experimental = reg.customSchemaBlobs?.bind(reg);
  if (experimental !== undefined) {
    addService(routes, 'api.ExperimentalRegistry', experimentalHandlers(experimental));
  }
  addService(routes, 'grpc.health.v1.Health', healthHandlers(), ['List', 'Watch']);
  // Made at the first reflection call: most servers (a catalog pod) are never asked.
  let files: DescriptorSet | undefined;
  const reflected = (): DescriptorSet => {
    if (files !== undefined) return files;
    const all = descriptorSet([
      REGISTRY_FILE,
      STRUCT_FILE,
      HEALTH_FILE,
      REFLECTION_V1_FILE,
      REFLECTION_V1ALPHA_FILE,
    ]);
    // Reflection lists the services registered; the files still describe every symbol.
    files =
      experimental === undefined
        ? { ...all, services: all.services.filter((s) => s !== 'api.ExperimentalRegistry') }
        : all;
    return files;
  };
  addReflection(routes, 'grpc.reflection.v1.ServerReflection', reflected);
  addReflection(routes, 'grpc.reflection.v1alpha.ServerReflection', reflected);
  const portNumber = Number(opts.port);
  let server;
  try {
    server = await listenGrpc(
      {
        routes,
        maxReceive: MAX_RECEIVE_BYTES,
        statusOf,
        started:
          opts.logCalls === false
            ? () => () => undefined
            : (info) => {
                const cl = new CallLog(opts.log, info);
                return (status) => cl.finish(status.code, status.details);
              },
        ...(opts.keepaliveMs === undefined ? {} : { keepaliveMs: opts.keepaliveMs }),
      },
      portNumber,
    );
  } catch (err) {
    throw listenError(opts.port, err instanceof Error ? err : new Error(String(err)));
  }
  // Once the first turn after listening is over: what loading the catalog left goes back now.
  setImmediate(() => releaseLoadGarbage(opts.loadLeftGarbage === true));
  const running = server;
  return { port: running.port, stop: () => running.stop(opts.stopGraceMs ?? STOP_GRACE_MS) };
}

function listenError(port: string, err: Error): ListenError {
  const text = err.message;
  if (/EADDRINUSE/.test(text))
    return new ListenError(`failed to listen: listen tcp :${port}: bind: address already in use`);
  if (/EACCES/.test(text))
    return new ListenError(`failed to listen: listen tcp :${port}: bind: permission denied`);
  return new ListenError(`failed to listen: ${text}`);
}
