// needs-build: it starts `bin/opm.js serve` and attacks it with raw sockets, curl and grpcurl.
/**
 * `opm serve` against clients that misbehave: broken HTTP/2 frames, gRPC requests no library would
 * send, unknown methods (through grpcurl, with a proto file of methods opm lacks:
 * testdata/serve-hostile/), HTTP/1.1 on the port (curl), 500 idle connections, a client that
 * stops reading ListBundles, one that cancels it, one that disconnects, SIGTERM during a stream.
 * After each attack the server still answers a health check and a GetPackage; its resident memory
 * (VmRSS of /proc/<pid>/status) stays within the bounds stated by each test, measured here with
 * room to spare. The codes and texts are grpc-go's (opm's), which test/reference/serve-hostile
 * checks against the reference opm.
 */
import * as grpc from '@grpc/grpc-js';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type http2 from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../corpus.js';
import {
  attackFrames,
  FRAME_ATTACKS,
  GOOD_START,
  grpcRequest,
  nameField,
  REQUEST_ATTACKS,
  rssMiB,
  untilIdle,
  writeHeavyCatalog,
} from './attacks.js';
import { registryClient, stalledRawListBundles, startServe, type Served } from './client.js';
import { PATIENCE_MS } from '../patience.js';

const grpcurl = process.env.GRPCURL ?? path.join(projectRoot(), '.tools/bin/grpcurl');
const curl = ['/usr/bin/curl', '/bin/curl'].find((c) => existsSync(c));
for (const [name, found, how] of [
  ['grpcurl', existsSync(grpcurl), 'build it with scripts/build-grpc-tools.sh'],
  ['curl', curl !== undefined, 'apt-get install curl'],
] as const) {
  if (found) continue;
  if (process.env.CI === 'true') throw new Error(`CI runs every suite: ${name} must be installed`);
  console.warn(`*** SKIPPED the ${name} tests of test/serve/hostile.test.ts: ${how} ***`);
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'opm-serve-hostile-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const pidOf = (s: Served): number => {
  if (s.child.pid === undefined) throw new Error('no pid');
  return s.child.pid;
};

/** The server answers a health check and a GetPackage on a fresh connection. */
async function stillServes(s: Served, pkg: string): Promise<void> {
  const c = registryClient(s.port);
  try {
    expect(await c.health('')).toEqual({ status: 'SERVING' });
    expect((await c.unary('GetPackage', { name: pkg })).name).toBe(pkg);
  } finally {
    c.close();
  }
}

// grpc-go's answers (codes and texts), which the reference test compares on the wire.
const EXPECTED: Record<string, { code: number; message: string }> = {
  'a message over 4 MiB (unary)': {
    code: 8,
    message: 'grpc: received message larger than max (4194309 vs. 4194304)',
  },
  'a message over 4 MiB (stream)': {
    code: 8,
    message: 'grpc: received message larger than max (4194309 vs. 4194304)',
  },
  'a length prefix of 4 GiB': {
    code: 8,
    message: 'grpc: received message larger than max (4294967295 vs. 4194304)',
  },
  'a message cut short (unary)': { code: 2, message: 'unexpected EOF' },
  'a message cut short (stream)': { code: 13, message: 'unexpected EOF' },
  'a length prefix cut short': { code: 2, message: 'EOF' },
  'no message (unary)': { code: 2, message: 'EOF' },
  'no message (stream)': {
    code: 13,
    message: 'cardinality violation: received no request message from non-client-streaming RPC',
  },
  'two messages (stream)': {
    code: 13,
    message: 'cardinality violation: received multiple request messages for non-client-streaming RPC',
  },
  'the compressed flag without an encoding': {
    code: 13,
    message: 'grpc: compressed flag set with identity or empty encoding',
  },
  'an encoding the server lacks': {
    code: 12,
    message: 'grpc: Decompressor is not installed for grpc-encoding "zstd"',
  },
  'bytes that are not protobuf': {
    code: 13,
    message: 'grpc: error unmarshalling request: proto: cannot parse invalid wire-format data',
  },
  'invalid UTF-8 in a string field': {
    code: 13,
    message: 'grpc: error unmarshalling request: string field contains invalid UTF-8',
  },
  // protobuf-go keeps a field on an unexpected wire type, and groups, as unknown fields: skipped.
  'a known field on another wire type': { code: 2, message: 'package "" not found' },
  'a group (wire types 3 and 4)': { code: 2, message: 'package "a" not found' },
  'the end of a group without its start': {
    code: 13,
    message: 'grpc: error unmarshalling request: proto: cannot parse invalid wire-format data',
  },
  'an unknown method': { code: 12, message: 'unknown method Nope for service api.Registry' },
  'an unknown service': { code: 12, message: 'unknown service nosuch.Service' },
  'a path without a method': { code: 12, message: 'malformed method name: "/nope"' },
};

describe('opm serve against hostile clients (testdata/serve/mixed)', () => {
  let s: Served;
  beforeAll(async () => {
    s = await startServe('testdata/serve/mixed/catalog');
  });
  afterAll(async () => {
    expect(await s.stop()).toBe(0);
  });

  it('broken HTTP/2 frames: each connection gets a GOAWAY or is closed; RSS grows < 32 MiB', async () => {
    const before = rssMiB(pidOf(s));
    for (const [name, bytes] of Object.entries(FRAME_ATTACKS)) {
      const out = await attackFrames(s.port, bytes);
      expect(out.goaway.length > 0 || out.closed, name).toBe(true);
      expect(out.http1, name).toBe(false);
      await stillServes(s, 'alpha-op');
    }
    // Each again, 20 times: what a connection holds does not pile up.
    for (let i = 0; i < 20; i++)
      for (const bytes of Object.values(FRAME_ATTACKS)) await attackFrames(s.port, bytes);
    await stillServes(s, 'alpha-op');
    expect(rssMiB(pidOf(s)) - before).toBeLessThan(32);
  });

  it('gRPC requests no library sends: grpc-go’s codes and texts; RSS grows < 32 MiB', async () => {
    const before = rssMiB(pidOf(s));
    for (const [name, c] of Object.entries(REQUEST_ATTACKS)) {
      expect(await grpcRequest(s.port, c), name).toEqual(EXPECTED[name]);
    }
    await stillServes(s, 'alpha-op');
    expect(rssMiB(pidOf(s)) - before).toBeLessThan(32);
    // A streaming call refused before its handler is logged as opm logs it (grpc-go reads a
    // streaming request inside the handler), ResourceExhausted at level warning.
    expect(s.stderr()).toMatch(
      /level=warning msg="finished call" .*grpc\.code=ResourceExhausted grpc\.component=server grpc\.error="rpc error: code = ResourceExhausted desc = grpc: received message larger than max \(4194309 vs\. 4194304\)" grpc\.method=ListBundles grpc\.method_type=server_stream /,
    );
    // Unknown methods are not logged (grpc-go answers them before any interceptor).
    expect(s.stderr()).not.toContain('Nope');
    expect(s.stderr()).not.toContain('nosuch');
  });

  it('a 5 MiB request from a grpc-js client: ResourceExhausted in grpc-go’s words', async () => {
    const c = registryClient(s.port);
    try {
      const err = await c.unary('GetPackage', { name: 'a'.repeat(5 * 1024 * 1024) }).then(
        () => undefined,
        (e: unknown) => e as grpc.ServiceError,
      );
      expect(err?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
      expect(err?.details).toBe('grpc: received message larger than max (5242885 vs. 4194304)');
      // A request of exactly 4 MiB is read and answered: a health check naming a service of that size.
      const health = new grpc.Client(`127.0.0.1:${s.port}`, grpc.credentials.createInsecure());
      const request = nameField(4 * 1024 * 1024 - 5);
      expect(request.length).toBe(4 * 1024 * 1024);
      const answer = await new Promise<Buffer | undefined>((resolve, reject) =>
        health.makeUnaryRequest(
          '/grpc.health.v1.Health/Check',
          (b: Buffer) => b,
          (b: Buffer) => b,
          request,
          (e, res) => (e ? reject(e) : resolve(res)),
        ),
      );
      health.close();
      // HealthCheckResponse{status: SERVING}.
      expect(answer).toEqual(Buffer.from([0x08, 0x01]));
    } finally {
      c.close();
    }
    await stillServes(s, 'alpha-op');
  });

  it.skipIf(!existsSync(grpcurl))(
    'unknown services and methods through grpcurl: Unimplemented, grpc-go’s text',
    () => {
      const call = (method: string) =>
        spawnSync(
          grpcurl,
          [
            '-plaintext',
            '-import-path',
            'testdata/serve-hostile',
            '-proto',
            'unknown.proto',
            '-d',
            '{}',
            `127.0.0.1:${s.port}`,
            method,
          ],
          { encoding: 'utf8', timeout: PATIENCE_MS },
        );
      const method = call('api.Registry/Nope');
      // grpcurl exits 64 + the status code.
      expect(method.status).toBe(64 + grpc.status.UNIMPLEMENTED);
      expect(method.stderr).toBe(
        'ERROR:\n  Code: Unimplemented\n  Message: unknown method Nope for service api.Registry\n',
      );
      const service = call('nosuch.Service/X');
      expect(service.status).toBe(64 + grpc.status.UNIMPLEMENTED);
      expect(service.stderr).toBe(
        'ERROR:\n  Code: Unimplemented\n  Message: unknown service nosuch.Service\n',
      );
    },
  );

  it('HTTP/1.1 on the gRPC port: the connection is closed without an HTTP/1 answer', async () => {
    const raw = await attackFrames(s.port, Buffer.from('GET / HTTP/1.1\r\nHost: catalog\r\n\r\n'), {
      untilClosed: true,
    });
    expect(raw.closed).toBe(true);
    expect(raw.http1).toBe(false);
    if (curl !== undefined) {
      const r = spawnSync(curl, ['-sS', '--http1.1', '--max-time', '30', `http://127.0.0.1:${s.port}/`], {
        encoding: 'utf8',
      });
      // curl fails (as against opm: "Received HTTP/0.9 when not allowed"), and not by its timeout (28).
      expect(r.status).not.toBe(0);
      expect(r.status).not.toBe(28);
    }
    await stillServes(s, 'alpha-op');
  });

  it('500 idle HTTP/2 connections are held (as opm holds them) for < 64 MiB; calls still answered', async () => {
    const pid = pidOf(s);
    const before = rssMiB(pid);
    const sockets = await Promise.all(
      Array.from(
        { length: 500 },
        () =>
          new Promise<net.Socket>((resolve, reject) => {
            const socket = net.connect(s.port, '127.0.0.1');
            socket.once('error', reject);
            // Connected once the server's SETTINGS arrive.
            socket.once('data', () => resolve(socket));
            socket.write(GOOD_START);
          }),
      ),
    );
    try {
      await untilIdle(pid, 500);
      const held = rssMiB(pid) - before;
      expect(held).toBeLessThan(64);
      await stillServes(s, 'alpha-op');
      expect(sockets.every((k) => !k.destroyed)).toBe(true);
    } finally {
      for (const k of sockets) k.destroy();
    }
    await stillServes(s, 'alpha-op');
  });
});

// A catalog generated here: 60 bundles in 10 channels, ListBundles sends 600 messages of about
// 200 KiB (120 MiB in all), far more than the HTTP/2 windows and socket buffers hold.
describe('opm serve: streams a client does not finish reading', () => {
  let catalog = '';
  const MESSAGES = 600;
  const raw = (b: Buffer): Buffer => b;
  let s: Served;
  beforeAll(async () => {
    catalog = writeHeavyCatalog(path.join(tmp, 'heavy'), 60, 10, 100);
    s = await startServe(catalog);
  });
  afterAll(async () => {
    expect(await s.stop()).toBe(0);
  });

  /** Start ListBundles with a grpc-js client and stop reading after its first message. */
  async function stalledListBundles(port: number) {
    const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
      'grpc.max_receive_message_length': -1,
    });
    const call = client.makeServerStreamRequest('/api.Registry/ListBundles', raw, raw, Buffer.alloc(0));
    let received = 0;
    call.on('error', () => undefined);
    await new Promise<void>((resolve) =>
      call.once('data', () => {
        received++;
        call.pause();
        resolve();
      }),
    );
    return { client, call, received: () => received, count: () => call.on('data', () => received++) };
  }

  const finished = (code: string): RegExp =>
    new RegExp(`msg="finished call" .*grpc\\.code=${code} .*grpc\\.method=ListBundles `, 'g');

  it('a client that stops reading: the server stops making messages, RSS grows < 48 MiB; cancelling ends the call Canceled as opm logs it', async () => {
    const pid = pidOf(s);
    await untilIdle(pid);
    const before = rssMiB(pid);
    const { client, call } = await stalledListBundles(s.port);
    // The server blocks on the stream's flow control: it stops using CPU with most of the stream unmade.
    await untilIdle(pid);
    expect(rssMiB(pid) - before).toBeLessThan(48);
    call.cancel();
    while (!finished('Canceled').test(s.stderr())) await sleep(50);
    expect(s.stderr()).toMatch(
      /level=info msg="finished call" .*grpc\.code=Canceled grpc\.component=server grpc\.error="rpc error: code = Canceled desc = context canceled" grpc\.method=ListBundles grpc\.method_type=server_stream /,
    );
    client.close();
    await untilIdle(pid);
    await stillServes(s, 'heavy');
  });

  it('20 clients that stop reading ListBundles, each on its own connection: RSS grows < 72 MiB; their calls end when they go', async () => {
    const pid = pidOf(s);
    await untilIdle(pid);
    const before = rssMiB(pid);
    const sessions: http2.ClientHttp2Session[] = [];
    try {
      for (let i = 0; i < 20; i++) {
        sessions.push(await stalledRawListBundles(s.port));
      }
      await untilIdle(pid);
      // Each stalled stream holds what HTTP/2 has not taken (up to 1 MiB) and one message.
      expect(rssMiB(pid) - before).toBeLessThan(72);
    } finally {
      const ended = (s.stderr().match(finished('\\w+')) ?? []).length;
      for (const session of sessions) session.destroy();
      while ((s.stderr().match(finished('\\w+')) ?? []).length < ended + sessions.length) await sleep(50);
    }
    await untilIdle(pid);
    await stillServes(s, 'heavy');
  });

  it('a client that disconnects mid-stream: the call ends Unavailable as opm logs it, the server goes idle and keeps serving', async () => {
    const pid = pidOf(s);
    const ended = (s.stderr().match(finished('\\w+')) ?? []).length;
    const session = await stalledRawListBundles(s.port);
    await untilIdle(pid);
    session.destroy();
    while ((s.stderr().match(finished('\\w+')) ?? []).length === ended) await sleep(50);
    expect(s.stderr()).toMatch(
      /level=warning msg="finished call" .*grpc\.code=Unavailable grpc\.component=server grpc\.error="rpc error: code = Unavailable desc = transport is closing" grpc\.method=ListBundles /,
    );
    await untilIdle(pid);
    await stillServes(s, 'heavy');
  });

  it('SIGTERM during a stream: the stream is served to its end, then exit 0', async () => {
    const own = await startServe(catalog);
    const stream = await stalledListBundles(own.port);
    const exited = own.stop();
    while (!own.stderr().includes('msg="shutting down server"')) await sleep(50);
    const ended = new Promise<void>((resolve, reject) => {
      stream.call.on('end', resolve);
      stream.call.on('error', reject);
    });
    stream.count();
    stream.call.resume();
    await ended;
    expect(stream.received()).toBe(MESSAGES);
    expect(await exited).toBe(0);
    stream.client.close();
  });
});
