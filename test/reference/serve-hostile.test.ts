// needs-build: it starts `bin/opm.js serve` beside the reference opm's `serve`.
// Hostile clients against both servers side by side (test/serve/attacks.ts): every gRPC request no
// library sends ends with the same status code and text; unknown methods through grpcurl read
// alike; HTTP/1.1 on the port and broken HTTP/2 frames are refused by both; a cancelled and a
// disconnected ListBundles are logged with the same code and error.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../corpus.js';
import {
  attackFrames,
  FRAME_ATTACKS,
  grpcFrame,
  grpcExchange,
  grpcRequest,
  REQUEST_ATTACKS,
  WIRE_CASES,
  untilIdle,
  writeHeavyCatalog,
} from '../serve/attacks.js';
import { stalledRawListBundles, startServe, type Served } from '../serve/client.js';
import { reference } from './reference-opm.js';

const grpcurl = process.env.GRPCURL ?? path.join(projectRoot(), '.tools/bin/grpcurl');
if (!existsSync(grpcurl)) throw new Error(`the differential suite needs grpcurl (${grpcurl})`);
const curl = ['/usr/bin/curl', '/bin/curl'].find((c) => existsSync(c));
if (curl === undefined) throw new Error('the differential suite needs curl');

const tmp = mkdtempSync(path.join(tmpdir(), 'opm-serve-hostile-ref-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const servers: { name: string; binary?: string }[] = [
  { name: 'reference', binary: reference },
  { name: 'opm-ts' },
];

describe('hostile clients: opm-ts answers as the reference does (testdata/serve/mixed)', () => {
  const served = new Map<string, Served>();
  beforeAll(async () => {
    for (const { name, binary } of servers)
      served.set(
        name,
        await startServe(
          'testdata/serve/mixed/catalog',
          binary === undefined ? {} : { binary, timeoutMs: 110_000 },
        ),
      );
  });
  afterAll(async () => {
    for (const s of served.values()) expect(await s.stop()).toBe(0);
  });
  const port = (name: string): number => {
    const s = served.get(name);
    if (s === undefined) throw new Error(`${name} is not serving`);
    return s.port;
  };

  it('gRPC requests no library sends: the same status code and text, the same calls logged', async () => {
    const marks = new Map([...served].map(([name, s]) => [name, s.stderr().length]));
    for (const [name, c] of Object.entries(REQUEST_ATTACKS)) {
      const theirs = await grpcRequest(port('reference'), c);
      const ours = await grpcRequest(port('opm-ts'), c);
      expect(theirs.code, name).toBeDefined();
      expect(ours, name).toEqual(theirs);
    }
    // A health check last: once its line is in a log, the lines of every request before it are.
    const logged = async (name: string): Promise<string[]> => {
      await grpcRequest(port(name), {
        path: '/grpc.health.v1.Health/Check',
        body: grpcFrame(Buffer.alloc(0)),
      });
      const since = (): string => (served.get(name)?.stderr() ?? '').slice(marks.get(name));
      while (!/msg="finished call" .*grpc\.method=Check /.test(since())) await sleep(50);
      return [...since().matchAll(/^.*msg="finished call".*$/gm)].map((m) =>
        (
          m[0].match(/level=\w+|grpc\.(code|error|method|method_type|service)=("(\\.|[^"\\])*"|\S+)/g) ?? []
        ).join(' '),
      );
    };
    const theirs = await logged('reference');
    expect(theirs.length).toBeGreaterThan(1);
    expect(await logged('opm-ts')).toEqual(theirs);
  });

  it('the same headers and trailers, byte for byte (but the date), and the same messages', async () => {
    for (const [name, c] of Object.entries(WIRE_CASES)) {
      // A case whose reference answer depends on timing (its `timed` says why) is checked on ours
      // alone, in src/server/grpc-http2.test.ts.
      if (c.timed !== undefined) continue;
      const theirs = await grpcExchange(port('reference'), c);
      const ours = await grpcExchange(port('opm-ts'), c);
      // Stream messages come in map order (random) from the reference.
      theirs.messages.sort();
      ours.messages.sort();
      expect(ours, name).toEqual(theirs);
    }
  });

  it('unknown services and methods through grpcurl: the same output and exit code', () => {
    const call = (p: number, method: string) => {
      const r = spawnSync(
        grpcurl,
        [
          '-plaintext',
          '-import-path',
          'testdata/serve-hostile',
          '-proto',
          'unknown.proto',
          '-d',
          '{}',
          `127.0.0.1:${p}`,
          method,
        ],
        { encoding: 'utf8', timeout: 30_000 },
      );
      return { status: r.status, stdout: r.stdout, stderr: r.stderr };
    };
    for (const method of ['api.Registry/Nope', 'nosuch.Service/X']) {
      const theirs = call(port('reference'), method);
      expect(theirs.stderr).toContain('Code: Unimplemented');
      expect(call(port('opm-ts'), method)).toEqual(theirs);
    }
  });

  it('HTTP/1.1 on the port: both close the connection without an HTTP/1 answer; curl fails alike', async () => {
    const request = Buffer.from('GET / HTTP/1.1\r\nHost: catalog\r\n\r\n');
    const outcome = async (p: number) => {
      const raw = await attackFrames(p, request, { untilClosed: true });
      const r = spawnSync(curl, ['-sS', '--http1.1', '--max-time', '30', `http://127.0.0.1:${p}/`], {
        encoding: 'utf8',
      });
      return { closed: raw.closed, http1: raw.http1, curl: r.status, says: r.stderr.trim() };
    };
    const theirs = await outcome(port('reference'));
    expect(theirs).toMatchObject({ closed: true, http1: false });
    expect(await outcome(port('opm-ts'))).toEqual(theirs);
  });

  it('broken HTTP/2 frames: both refuse the connection (closed, or a GOAWAY)', async () => {
    for (const [name, bytes] of Object.entries(FRAME_ATTACKS)) {
      for (const server of ['reference', 'opm-ts']) {
        const out = await attackFrames(port(server), bytes);
        expect(out.closed || out.goaway.length > 0, `${server}: ${name}`).toBe(true);
      }
    }
  });
});

describe('hostile clients: a ListBundles stream left unread, then cancelled or dropped', () => {
  // 600 messages of about 200 KiB: neither server can have sent them all when the client stops.
  let catalog = '';
  const raw = (b: Buffer): Buffer => b;

  /** The finished-call line of the ListBundles that ended last, without times and addresses. */
  const lastFinished = (log: string): string | undefined =>
    [...log.matchAll(/^.*msg="finished call".*grpc\.method=ListBundles .*$/gm)]
      .map((m) => m[0])
      .pop()
      ?.match(/level=\w+|grpc\.(code|error|method|method_type|service)=("[^"]*"|\S+)/g)
      ?.join(' ');

  async function endings(s: Served): Promise<string[]> {
    const pid = s.child.pid ?? 0;
    const out: string[] = [];
    // Cancelled by a grpc-js client after one message.
    const client = new grpc.Client(`127.0.0.1:${s.port}`, grpc.credentials.createInsecure(), {
      'grpc.max_receive_message_length': -1,
    });
    const call = client.makeServerStreamRequest('/api.Registry/ListBundles', raw, raw, Buffer.alloc(0));
    call.on('error', () => undefined);
    await new Promise<void>((resolve) =>
      call.once('data', () => {
        call.pause();
        resolve();
      }),
    );
    await untilIdle(pid);
    const before = s.stderr().length;
    call.cancel();
    while (lastFinished(s.stderr().slice(before)) === undefined) await sleep(50);
    out.push(lastFinished(s.stderr().slice(before)) ?? '');
    client.close();
    // Dropped: the connection closes under a stalled stream.
    const session = await stalledRawListBundles(s.port);
    await untilIdle(pid);
    const mark = s.stderr().length;
    session.destroy();
    while (lastFinished(s.stderr().slice(mark)) === undefined) await sleep(50);
    out.push(lastFinished(s.stderr().slice(mark)) ?? '');
    return out;
  }

  beforeAll(() => {
    catalog = writeHeavyCatalog(path.join(tmp, 'heavy'), 60, 10, 100);
  });

  it('logged with the same level, code and error', { timeout: 240_000 }, async () => {
    const results: string[][] = [];
    for (const { binary } of servers) {
      const s = await startServe(catalog, binary === undefined ? {} : { binary, timeoutMs: 110_000 });
      try {
        results.push(await endings(s));
      } finally {
        expect(await s.stop()).toBe(0);
      }
    }
    const [theirs, ours] = results;
    expect(theirs?.[0]).toContain('grpc.code=Canceled');
    expect(theirs?.[1]).toContain('grpc.code=Unavailable');
    expect(ours).toEqual(theirs);
  });
});
