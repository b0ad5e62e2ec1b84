/**
 * The server in this process, called by a plain @grpc/grpc-js client: streams are written as the
 * client reads them, and reflection hands out descriptors a protobuf library can read.
 */
import * as grpc from '@grpc/grpc-js';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { CatalogQueries } from '../catalog-queries/queries.js';
import { ProtoWriter, readFields, fieldString } from '../protobuf/wire.js';
import { chainRegistry } from '../../test/serve/chain-registry.js';
import { startServer, type RunningServer } from './server.js';

const BUNDLES = 1000;
const MANIFEST = `{"kind":"ClusterServiceVersion","pad":"${'x'.repeat(32 * 1024)}"}`;

/** A catalog of one package whose BUNDLES bundles have no image (so ListBundles sends manifests). */
function bigRegistry(made: { count: number }): CatalogQueries {
  return chainRegistry(BUNDLES, (_key, withManifests) => {
    if (withManifests) made.count++;
    return { csvJson: withManifests ? MANIFEST : '', object: withManifests ? [MANIFEST] : [] };
  });
}

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

const raw = (b: Buffer): Buffer => b;

describe('server', () => {
  it('writes ListBundles as the client reads: a paused reader holds the server back', async () => {
    const made = { count: 0 };
    server = await startServer({ registry: bigRegistry(made), port: '0', log: () => undefined });
    const client = new grpc.Client(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure(), {
      'grpc.max_receive_message_length': -1,
    });
    const call = client.makeServerStreamRequest('/api.Registry/ListBundles', raw, raw, Buffer.alloc(0));
    let received = 0;
    await new Promise<void>((resolve) =>
      call.once('data', () => {
        received++;
        call.pause();
        resolve();
      }),
    );
    // Wait until the server stops making messages (it blocks on the stream's drain).
    let before = -1;
    while (made.count !== before) {
      before = made.count;
      await sleep(200);
    }
    const madeWhilePaused = made.count;
    expect(madeWhilePaused).toBeLessThan(BUNDLES / 4);
    call.on('data', () => received++);
    await new Promise<void>((resolve, reject) => {
      call.on('end', resolve);
      call.on('error', reject);
      call.resume();
    });
    expect(received).toBe(BUNDLES);
    expect(made.count).toBe(BUNDLES);
    client.close();
  });

  it('stops gracefully: a stream running when stop is called is served to its end', async () => {
    const made = { count: 0 };
    const running = await startServer({ registry: bigRegistry(made), port: '0', log: () => undefined });
    const client = new grpc.Client(`127.0.0.1:${running.port}`, grpc.credentials.createInsecure(), {
      'grpc.max_receive_message_length': -1,
    });
    const call = client.makeServerStreamRequest('/api.Registry/ListBundles', raw, raw, Buffer.alloc(0));
    let received = 0;
    await new Promise<void>((resolve) =>
      call.once('data', () => {
        received++;
        call.pause();
        resolve();
      }),
    );
    let stopped = false;
    const stopping = running.stop().then(() => (stopped = true));
    // The stream is still open: stop waits for it.
    await sleep(100);
    expect(stopped).toBe(false);
    call.on('data', () => received++);
    const ended = new Promise<void>((resolve, reject) => {
      call.on('end', resolve);
      call.on('error', reject);
    });
    call.resume();
    await ended;
    await stopping;
    expect(received).toBe(BUNDLES);
    client.close();
  });

  it('reflection lists the services and gives files with their imports', async () => {
    server = await startServer({ registry: bigRegistry({ count: 0 }), port: '0', log: () => undefined });
    const client = new grpc.Client(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
    const call = client.makeBidiStreamRequest(
      '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo',
      raw,
      raw,
    );
    const answers: Buffer[] = [];
    const done = new Promise<void>((resolve, reject) => {
      call.on('data', (b: Buffer) => answers.push(b));
      call.on('end', resolve);
      call.on('error', reject);
    });
    call.write(Buffer.from(new ProtoWriter().string(7, '*').finish()));
    call.write(Buffer.from(new ProtoWriter().string(4, 'api.Registry.ListBundles').finish()));
    call.write(Buffer.from(new ProtoWriter().string(4, 'no.Such').finish()));
    call.end();
    await done;
    client.close();
    const field = (b: Uint8Array, n: number): Uint8Array[] =>
      [...readFields(b)].filter((f) => f.field === n).map((f) => f.bytes);
    const [list, files, missing] = answers;
    const services = field(field(list as Buffer, 6)[0] as Uint8Array, 1).map((s) =>
      fieldString(
        [...readFields(s)][0] as ReturnType<typeof readFields> extends Generator<infer F> ? F : never,
      ),
    );
    expect(services).toEqual([
      'api.ExperimentalRegistry',
      'api.Registry',
      'grpc.health.v1.Health',
      'grpc.reflection.v1.ServerReflection',
      'grpc.reflection.v1alpha.ServerReflection',
    ]);
    const protos = field(field(files as Buffer, 4)[0] as Uint8Array, 1);
    const names = protos.map((p) => Buffer.from(field(p, 1)[0] as Uint8Array).toString());
    expect(names).toEqual(['registry.proto', 'google/protobuf/struct.proto']);
    const error = field(missing as Buffer, 7)[0] as Uint8Array;
    expect(Buffer.from(field(error, 2)[0] as Uint8Array).toString()).toBe('symbol not found: no.Such');
  });
});

describe('stopping', () => {
  it('is bounded: a client that never reads its ListBundles stream has its connection closed after the grace', async () => {
    const running = await startServer({
      registry: bigRegistry({ count: 0 }),
      port: '0',
      log: () => undefined,
      stopGraceMs: 1000,
    });
    const client = new grpc.Client(`127.0.0.1:${running.port}`, grpc.credentials.createInsecure(), {
      'grpc.max_receive_message_length': -1,
    });
    const call = client.makeServerStreamRequest('/api.Registry/ListBundles', raw, raw, Buffer.alloc(0));
    const failed = new Promise<grpc.ServiceError>((resolve) => call.on('error', resolve));
    await new Promise<void>((resolve) =>
      call.once('data', () => {
        call.pause();
        resolve();
      }),
    );
    // The client never reads again: without the bound, stop would wait for it for ever.
    await running.stop();
    const err = await failed;
    expect(err.code).toBe(grpc.status.UNAVAILABLE);
    client.close();
  });
});
