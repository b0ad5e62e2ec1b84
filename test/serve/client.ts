/**
 * A gRPC client of the catalog server for tests: @grpc/grpc-js with @grpc/proto-loader reading
 * our registry.proto (src/api-contract/registry.proto), so responses are decoded by a codec other than the
 * server's own. Also starts `bin/opm.js serve` (or the reference opm) on a free 127.0.0.1 port.
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { spawn, type ChildProcess } from 'node:child_process';
import http2 from 'node:http2';
import { connect } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PATIENCE_MS } from '../patience.js';
import { freePort } from '../registry/tools.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const PROTO = path.join(root, 'src/api-contract/registry.proto');
export const OPM = path.join(root, 'bin/opm.js');

export { freePort };

/**
 * Resolves once a server on `port` answers an HTTP/2 client preface, that is once its gRPC loop
 * runs. "serving registry" is logged just before that loop starts; the reference opm, stopped by
 * SIGTERM in between, fails with "grpc: the server has been stopped", so tests that stop a server
 * as soon as it serves wait for this first.
 */
export async function answering(port: number, timeoutMs = PATIENCE_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      const done = (v: boolean) => {
        socket.destroy();
        resolve(v);
      };
      socket.setTimeout(2_000, () => done(false));
      socket.on('error', () => done(false));
      socket.on('data', () => done(true));
      socket.on('connect', () => {
        // The client preface, then an empty SETTINGS frame.
        socket.write('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
        socket.write(Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]));
      });
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing answers on port ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface Served {
  port: number;
  child: ChildProcess;
  stderr: () => string;
  /** SIGTERM, then the exit status. */
  stop(): Promise<number | null>;
}

/** Start a server (`cmd` = node bin/opm.js, or the reference binary) and wait for `serving registry`. */
export async function startServe(
  catalog: string,
  opts: { binary?: string; extra?: string[]; timeoutMs?: number } = {},
): Promise<Served> {
  const port = await freePort();
  const args = ['serve', catalog, '-p', String(port), '-t', '/dev/null', ...(opts.extra ?? [])];
  const child =
    opts.binary === undefined
      ? spawn(process.execPath, [OPM, ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
      : spawn(opts.binary, [...args, '--pprof-addr='], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.setEncoding('utf8');
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no "serving registry" in time:\n${err}`)),
      opts.timeoutMs ?? PATIENCE_MS,
    );
    child.stderr.on('data', (d: string) => {
      err += d;
      if (err.includes('msg="serving registry"')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code}:\n${err}`));
    });
  });
  await ready;
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // A server that exits instead of answering is not waited for.
  await Promise.race([
    answering(port),
    exited.then((code) => Promise.reject(new Error(`exited ${code}:\n${err}`))),
  ]);
  return {
    port,
    child,
    stderr: () => err,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

type Obj = Record<string, unknown>;

export interface RegistryClient {
  unary(method: string, req: Obj, metadata?: grpc.Metadata): Promise<Obj>;
  stream(method: string, req: Obj, metadata?: grpc.Metadata): Promise<Obj[]>;
  experimental(req: Obj, acknowledge: boolean): Promise<Obj[]>;
  health(service: string): Promise<Obj>;
  close(): void;
}

const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  defaults: false,
  arrays: false,
  longs: String,
  enums: String,
};

export function registryClient(port: number): RegistryClient {
  const def = protoLoader.loadSync(PROTO, { ...LOADER_OPTIONS, includeDirs: [] });
  const pkg = grpc.loadPackageDefinition(def) as unknown as {
    api: { Registry: grpc.ServiceClientConstructor; ExperimentalRegistry: grpc.ServiceClientConstructor };
  };
  const address = `127.0.0.1:${port}`;
  const options = { 'grpc.max_receive_message_length': -1 };
  const reg = new pkg.api.Registry(address, grpc.credentials.createInsecure(), options) as unknown as Record<
    string,
    (...a: unknown[]) => unknown
  >;
  const exp = new pkg.api.ExperimentalRegistry(
    address,
    grpc.credentials.createInsecure(),
    options,
  ) as unknown as Record<string, (...a: unknown[]) => unknown>;
  const health = new grpc.Client(address, grpc.credentials.createInsecure());
  const readAll = (call: grpc.ClientReadableStream<Obj>): Promise<Obj[]> =>
    new Promise((resolve, reject) => {
      const out: Obj[] = [];
      call.on('data', (d: Obj) => out.push(d));
      call.on('error', reject);
      call.on('end', () => resolve(out));
    });
  return {
    unary: (method, req, metadata = new grpc.Metadata()) =>
      new Promise((resolve, reject) => {
        (reg[method] as (...a: unknown[]) => unknown).call(
          reg,
          req,
          metadata,
          (err: Error | null, res: Obj) => (err ? reject(err) : resolve(res)),
        );
      }),
    stream: (method, req, metadata = new grpc.Metadata()) =>
      readAll((reg[method] as (...a: unknown[]) => grpc.ClientReadableStream<Obj>).call(reg, req, metadata)),
    experimental: (req, acknowledge) => {
      const md = new grpc.Metadata();
      if (acknowledge) md.set('x-acknowledge-experimental', 'true');
      return readAll(
        (
          exp.ExperimentalListPackageCustomSchemas as (...a: unknown[]) => grpc.ClientReadableStream<Obj>
        ).call(exp, req, md),
      );
    },
    health: (service) =>
      new Promise((resolve, reject) => {
        // HealthCheckRequest{service} and HealthCheckResponse{status} by hand: one string field, one enum.
        const body = Buffer.from(service, 'utf8');
        const req =
          service === '' ? Buffer.alloc(0) : Buffer.concat([Buffer.from([0x0a, body.length]), body]);
        health.makeUnaryRequest(
          '/grpc.health.v1.Health/Check',
          (b: Buffer) => b,
          (b: Buffer) => b,
          req,
          (err, res) => {
            if (err || res === undefined) reject(err ?? new Error('no response'));
            else
              resolve({
                status:
                  res.length === 2 && res[0] === 0x08
                    ? res[1] === 1
                      ? 'SERVING'
                      : String(res[1])
                    : 'UNKNOWN',
              });
          },
        );
      }),
    close: () => {
      (reg as unknown as grpc.Client).close();
      (exp as unknown as grpc.Client).close();
      health.close();
    },
  };
}

/**
 * A ListBundles stream that stalls: opened on a raw HTTP/2 session of its own, read until its first
 * data, then paused (the client stops reading). Destroy the session to drop the client.
 */
export async function stalledRawListBundles(port: number): Promise<http2.ClientHttp2Session> {
  const session = http2.connect(`http://127.0.0.1:${port}`);
  session.on('error', () => undefined);
  const req = session.request({
    ':method': 'POST',
    ':path': '/api.Registry/ListBundles',
    'content-type': 'application/grpc',
    te: 'trailers',
  });
  req.on('error', () => undefined);
  req.end(Buffer.alloc(5));
  await new Promise<void>((resolve) =>
    req.once('data', () => {
      req.pause();
      resolve();
    }),
  );
  return session;
}
