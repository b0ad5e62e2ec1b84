/**
 * The catalog server on one port (plaintext HTTP/2, every interface): `api.Registry`,
 * `api.ExperimentalRegistry`, `grpc.health.v1.Health` and server reflection (v1 and v1alpha), each
 * call logged when it starts and when it finishes, as opm's logging interceptors do. Streams are
 * written as the client reads them: the next message is made when the previous one has drained.
 */
import * as grpc from '@grpc/grpc-js';
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
} from '../api/messages.js';
import {
  type DescriptorSet,
  descriptorSet,
  HEALTH_FILE,
  REFLECTION_V1ALPHA_FILE,
  REFLECTION_V1_FILE,
  REGISTRY_FILE,
  STRUCT_FILE,
} from '../api/descriptors.js';
import { RpcError, STATUS, type CatalogQueries } from '../api/queries.js';
import type { LogFields, LogLevel, ServeLog } from '../util/log.js';
import { rfc3339Local } from '../go/time.js';
import { decodeStrings, ProtoDecodeError, ProtoWriter } from '../api/wire.js';
import { releaseLoadGarbage } from './heap.js';
import { answerReflection } from './reflection.js';
import { keepaliveOptions } from './connections.js';
import { writeStream } from './stream-writer.js';
import { AnswerCache } from './answer-cache.js';
import { frameMessage, installUnaryPath, type CallStatus, type UnaryRun } from './unary-path.js';
import {
  answerUnknownMethodsAsGo,
  CODE_NAMES,
  connectionGone,
  goErrorText,
  goStatusInterceptor,
  goUnmarshalText,
} from './go-status.js';

/** opm's grpc-go: 4 MiB received per message, no limit on what is sent. */
export const MAX_RECEIVE_BYTES = 4 * 1024 * 1024;

/** The level of a finished call's line (go-grpc-middleware's default mapping). */
function levelOf(code: number): LogLevel {
  if (code === 0 || code === 1 || code === 3 || code === 5 || code === 6 || code === 16) return 'info';
  if (code === 4 || code === 7 || code === 8 || code === 9 || code === 10 || code === 11 || code === 14)
    return 'warning';
  return 'error';
}

type MethodType = 'unary' | 'server_stream' | 'bidi_stream';

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

/**
 * A call being served: what the log lines say about it. The fields are made in byte order of their
 * keys as far as it is known here (a client's metadata keys are placed by the log's writer), so the
 * log's writer seldom has to sort them.
 */
class CallLog {
  private readonly fields: LogFields;
  private readonly start = performance.now();
  private readonly log: ServeLog;

  constructor(
    log: ServeLog,
    service: string,
    method: string,
    type: MethodType,
    call: {
      getPeer(): string;
      getHost(): string;
      getDeadline(): grpc.Deadline;
      metadata: grpc.Metadata;
      /** The metadata's fields as the log writes them, where known without a Metadata (unary-path.ts). */
      metadataFields?: () => Readonly<Record<string, string>> | undefined;
    },
  ) {
    this.log = log;
    const fields: LogFields = {};
    // grpc-go hands the interceptor the request's headers as metadata; grpc-js keeps these apart.
    fields[':authority'] = `[${call.getHost()}]`;
    fields['content-type'] = '[application/grpc]';
    fields['grpc.component'] = 'server';
    fields['grpc.method'] = method;
    fields['grpc.method_type'] = type;
    const deadline = call.getDeadline();
    if (deadline instanceof Date || (typeof deadline === 'number' && Number.isFinite(deadline))) {
      fields['grpc.request.deadline'] = deadlineStamps.of(
        deadline instanceof Date ? deadline.getTime() : deadline,
      );
    }
    fields['grpc.service'] = service;
    fields['grpc.start_time'] = startStamps.of(Date.now());
    fields[TIME_KEY] = '';
    fields['peer.address'] = call.getPeer().replace(/^::ffff:/, '');
    fields.protocol = 'grpc';
    const known = call.metadataFields?.();
    if (known !== undefined) {
      for (const key in known) fields[key] = known[key] as string;
    } else {
      const map = call.metadata.getMap();
      for (const key in map) {
        const all = call.metadata.get(key).map((v) => (typeof v === 'string' ? v : v.toString('base64')));
        fields[key] = `[${all.join(' ')}]`;
      }
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

function statusOf(err: unknown): { code: number; details: string } {
  if (err instanceof RpcError) return { code: err.code, details: err.message };
  if (err instanceof ProtoDecodeError)
    return {
      code: grpc.status.INTERNAL,
      details: `grpc: error unmarshalling request: ${goUnmarshalText(err.message)}`,
    };
  return { code: STATUS.UNKNOWN, details: err instanceof Error ? err.message : String(err) };
}

const identity = (b: Buffer): Buffer => b;
const asBuffer = (b: Uint8Array): Buffer =>
  Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.length);

function method(path: string, type: MethodType): grpc.MethodDefinition<Buffer, Uint8Array> {
  return {
    path,
    requestStream: type === 'bidi_stream',
    responseStream: type !== 'unary',
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: asBuffer,
    responseDeserialize: identity,
  };
}

interface Handlers {
  /** Unary methods: each answers its message framed as on the wire (unary-path.ts writes it as it is). */
  unary: Record<string, (req: Buffer) => Promise<Buffer>>;
  stream: Record<
    string,
    (req: Buffer, call: grpc.ServerWritableStream<Buffer, Uint8Array>) => AsyncIterable<Uint8Array>
  >;
}

/**
 * Run a unary handler with its call's log: the answer framed, or the call's status (both logged),
 * for grpc-js's path and unary-path.ts's alike.
 */
function loggedUnary(
  cl: CallLog,
  handle: (req: Buffer) => Promise<Buffer>,
  request: Buffer,
): Promise<Buffer> {
  return handle(request).then(
    (framed) => {
      cl.finish(0);
      return framed;
    },
    (err: unknown) => {
      const s = statusOf(err);
      cl.finish(s.code, s.details);
      throw s;
    },
  );
}

/** A unary method that plain requests reach without grpc-js (unary-path.ts), by its path. */
interface UnaryRoute {
  service: string;
  method: string;
  handle: (req: Buffer) => Promise<Buffer>;
}

function addService(
  server: grpc.Server,
  log: ServeLog,
  service: string,
  handlers: Handlers,
  unimplemented: string[] = [],
  routes?: Map<string, UnaryRoute>,
): void {
  const definition: Record<string, grpc.MethodDefinition<Buffer, Uint8Array>> = {};
  const impl: grpc.UntypedServiceImplementation = {};
  for (const [name, handle] of Object.entries(handlers.unary)) {
    definition[name] = method(`/${service}/${name}`, 'unary');
    routes?.set(`/${service}/${name}`, { service, method: name, handle });
    impl[name] = (
      call: grpc.ServerUnaryCall<Buffer, Uint8Array>,
      callback: grpc.sendUnaryData<Uint8Array>,
    ) => {
      loggedUnary(new CallLog(log, service, name, 'unary', call), handle, call.request).then(
        (framed) => callback(null, framed.subarray(5)),
        (s: CallStatus) => callback({ code: s.code, details: s.details }),
      );
    };
  }
  for (const [name, handle] of Object.entries(handlers.stream)) {
    definition[name] = method(`/${service}/${name}`, 'server_stream');
    impl[name] = (call: grpc.ServerWritableStream<Buffer, Uint8Array>) => {
      const cl = new CallLog(log, service, name, 'server_stream', call);
      const run = async (): Promise<void> => writeStream(call, handle(call.request, call));
      run().then(
        () => {
          if (!call.cancelled) cl.finish(0);
          else if (connectionGone(call.metadata)) cl.finish(grpc.status.UNAVAILABLE, 'transport is closing');
          else cl.finish(grpc.status.CANCELLED, 'context canceled');
          call.end();
        },
        (err: unknown) => {
          const s = statusOf(err);
          cl.finish(s.code, s.details);
          call.emit('error', { code: s.code, details: s.details });
        },
      );
    };
  }
  for (const name of unimplemented) {
    const type = name === 'Watch' ? 'server_stream' : 'unary';
    definition[name] = method(`/${service}/${name}`, type);
    const details = `method ${name} not implemented`;
    impl[name] =
      type === 'unary'
        ? (call: grpc.ServerUnaryCall<Buffer, Uint8Array>, callback: grpc.sendUnaryData<Uint8Array>) => {
            new CallLog(log, service, name, type, call).finish(grpc.status.UNIMPLEMENTED, details);
            callback({ code: grpc.status.UNIMPLEMENTED, details });
          }
        : (call: grpc.ServerWritableStream<Buffer, Uint8Array>) => {
            new CallLog(log, service, name, type, call).finish(grpc.status.UNIMPLEMENTED, details);
            call.emit('error', { code: grpc.status.UNIMPLEMENTED, details });
          };
  }
  server.addService(definition, impl);
}

async function* each<T>(
  items: Iterable<T> | Promise<Iterable<T>>,
  encode: (item: T) => Uint8Array,
): AsyncIterable<Uint8Array> {
  for (const item of await items) yield encode(item);
}

function registryHandlers(reg: CatalogQueries, answers: AnswerCache): Handlers {
  const gvk = (buf: Buffer) => decodeProvidersRequest(buf);
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

function experimentalHandlers(reg: CatalogQueries): Handlers {
  return {
    unary: {},
    stream: {
      ExperimentalListPackageCustomSchemas: (buf, call) => {
        const r = decodeCustomSchemasRequest(buf);
        // The endpoint answers only callers that say they know it may change.
        if (!call.metadata.get('x-acknowledge-experimental').includes('true'))
          return each([], encodePackageName);
        return reg.customSchemaBlobs(r.schema, r.packageName);
      },
    },
  };
}

const SERVING = frameMessage(new ProtoWriter().uint(1, 1).finish());

function healthHandlers(): Handlers {
  return {
    unary: {
      // SERVING for any service name, as opm's health server answers.
      Check: async (buf) => {
        decodeStrings(buf, { 1: 'service' });
        return Promise.resolve(SERVING);
      },
    },
    stream: {},
  };
}

function addReflection(server: grpc.Server, log: ServeLog, service: string, set: DescriptorSet): void {
  const name = 'ServerReflectionInfo';
  server.addService(
    { [name]: method(`/${service}/${name}`, 'bidi_stream') },
    {
      [name]: (call: grpc.ServerDuplexStream<Buffer, Uint8Array>) => {
        const cl = new CallLog(log, service, name, 'bidi_stream', call);
        let failed = false;
        call.on('data', (req: Buffer) => {
          if (failed) return;
          try {
            call.write(answerReflection(set, req));
          } catch (err) {
            failed = true;
            const s = statusOf(err);
            cl.finish(s.code, s.details);
            call.emit('error', { code: s.code, details: s.details });
          }
        });
        call.on('end', () => {
          if (failed) return;
          cl.finish(0);
          call.end();
        });
      },
    },
  );
}

export interface ServerOptions {
  registry: CatalogQueries;
  /** The port as given (`:port` is listened on, every interface). */
  port: string;
  log: ServeLog;
  /** How often connections are pinged (src/server/connections.ts); tests shorten it. */
  keepaliveMs?: number;
  /** The load let go of most of what it read: collect once listening, whatever the heap's size (heap.ts). */
  loadLeftGarbage?: boolean;
  /** Bytes of unary answers kept for the next identical request (default ANSWER_CACHE_BYTES). */
  answerCacheBytes?: number;
}

/**
 * What the kept answers may hold: the answers of every package and of the bundles a client asks
 * for most (a bundle's answer carries its manifests: 10–700 KB), small beside the catalog's index.
 */
export const ANSWER_CACHE_BYTES = 8 * 1024 * 1024;

/** A server that is listening. */
export interface RunningServer {
  /** The port it listens on. */
  port: number;
  /** Stop taking calls, let the running ones finish, close the listener. */
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
  // grpc-js's own diagnostics go to the debug level of our log, not straight to stderr.
  grpc.setLogger({
    error: (...a: unknown[]) => opts.log('debug', a.map(String).join(' '), { component: 'grpc-js' }),
    info: () => undefined,
    debug: () => undefined,
  });
  const server = new grpc.Server({
    'grpc.max_receive_message_length': MAX_RECEIVE_BYTES,
    'grpc.max_send_message_length': -1,
    ...keepaliveOptions(opts.keepaliveMs),
    interceptors: [
      goStatusInterceptor((path, call, code, details) => {
        const [service = '', name = ''] = path.slice(1).split('/');
        new CallLog(opts.log, service, name, 'server_stream', call).finish(code, details);
      }),
    ],
    // channelz's per-call counters and traces are read by no one here (opm registers no channelz
    // service): a tenth of what a unary call allocates.
    'grpc.enable_channelz': 0,
  });
  const routes = new Map<string, UnaryRoute>();
  const answers = new AnswerCache(opts.answerCacheBytes ?? ANSWER_CACHE_BYTES);
  addService(server, opts.log, 'api.Registry', registryHandlers(opts.registry, answers), [], routes);
  addService(server, opts.log, 'api.ExperimentalRegistry', experimentalHandlers(opts.registry));
  addService(server, opts.log, 'grpc.health.v1.Health', healthHandlers(), ['List', 'Watch']);
  const files = descriptorSet([
    REGISTRY_FILE,
    STRUCT_FILE,
    HEALTH_FILE,
    REFLECTION_V1_FILE,
    REFLECTION_V1ALPHA_FILE,
  ]);
  addReflection(server, opts.log, 'grpc.reflection.v1.ServerReflection', files);
  addReflection(server, opts.log, 'grpc.reflection.v1alpha.ServerReflection', files);
  answerUnknownMethodsAsGo(server, files.services);
  // Plain unary calls of api.Registry, the ones clients make by the thousand, skip grpc-js's call.
  const runUnary: UnaryRun = (path, request, call) => {
    const route = routes.get(path) as UnaryRoute;
    return loggedUnary(
      new CallLog(opts.log, route.service, route.method, 'unary', call),
      route.handle,
      request,
    );
  };
  installUnaryPath(server, new Set(routes.keys()), MAX_RECEIVE_BYTES, runUnary);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`[::]:${opts.port}`, grpc.ServerCredentials.createInsecure(), (err, bound) => {
      if (err === null) resolve(bound);
      else reject(listenError(opts.port, err));
    });
  });
  // Once the first turn after listening is over: what loading the catalog left goes back now.
  setImmediate(() => releaseLoadGarbage(opts.loadLeftGarbage === true));
  return {
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => resolve());
      }),
  };
}

function listenError(port: string, err: Error): ListenError {
  const text = err.message;
  if (/EADDRINUSE/.test(text))
    return new ListenError(`failed to listen: listen tcp :${port}: bind: address already in use`);
  if (/EACCES/.test(text))
    return new ListenError(`failed to listen: listen tcp :${port}: bind: permission denied`);
  return new ListenError(`failed to listen: ${text}`);
}
