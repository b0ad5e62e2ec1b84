/**
 * Connections that break the HTTP/2 protocol: Node's server answers with a GOAWAY and then stops
 * reading them, so only the keepalive ping (src/server/connections.ts) closes them. Here the
 * server runs in this process with a 1 s keepalive: the file descriptors a burst of broken
 * connections held are given back, while an idle client that answers pings is kept.
 */
import http2 from 'node:http2';
import { readdirSync } from 'node:fs';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { CatalogQueries } from '../catalog-queries/queries.js';
import type { PackageIndex } from '../catalog-queries/package-index.js';
import { startServer, type RunningServer } from './server.js';

const openFds = (): number => readdirSync('/proc/self/fd').length;

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
function frame(type: number, flags: number, stream: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(9);
  header.writeUIntBE(payload.length, 0, 3);
  header[3] = type;
  header[4] = flags;
  header.writeUInt32BE(stream, 5);
  return Buffer.concat([header, payload]);
}
/** A HEADERS frame whose header block no HPACK decoder can read: a connection error. */
const BROKEN = Buffer.concat([
  PREFACE,
  frame(4, 0, 0, Buffer.alloc(0)),
  frame(1, 4, 1, Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff])),
]);

/** Send BROKEN, wait for the server's GOAWAY (frame type 7), then go away. */
function breakOne(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    let got = Buffer.alloc(0);
    s.on('error', reject);
    s.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      for (let off = 0; off + 9 <= got.length; off += 9 + got.readUIntBE(off, 3)) {
        if (got[off + 3] === 7) {
          s.destroy();
          resolve();
          return;
        }
      }
    });
    s.write(BROKEN);
  });
}

const empty: PackageIndex = new Map();
const registry = new CatalogQueries(empty, { bundle: () => Promise.reject(new Error('no bundles')) });

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

describe('connections', () => {
  it('broken connections are closed by the keepalive; their descriptors come back', async () => {
    server = await startServer({ registry, port: '0', log: () => undefined, keepaliveMs: 1000 });
    const before = openFds();
    for (let i = 0; i < 50; i++) await breakOne(server.port);
    // The server still holds them (Node no longer reads them)...
    expect(
      openFds(),
      'Node no longer holds broken connections: the keepalive may not be needed',
    ).toBeGreaterThanOrEqual(before + 40);
    // ...until the unanswered ping closes them.
    while (openFds() > before + 5) await sleep(200);
    expect(openFds()).toBeLessThanOrEqual(before + 5);
  });

  it('a connection that never sends the HTTP/2 preface is closed by the keepalive', async () => {
    server = await startServer({ registry, port: '0', log: () => undefined, keepaliveMs: 1000 });
    const socket = net.connect(server.port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.on('data', () => undefined);
    await new Promise<void>((resolve) => socket.on('close', () => resolve()));
    expect(socket.destroyed).toBe(true);
  });

  it('an idle client that answers pings is kept over several keepalive periods', async () => {
    server = await startServer({ registry, port: '0', log: () => undefined, keepaliveMs: 500 });
    const session = http2.connect(`http://127.0.0.1:${server.port}`);
    let closed = false;
    session.on('close', () => (closed = true));
    session.on('error', () => undefined);
    let pings = 0;
    session.on('ping', () => pings++);
    while (pings < 3) await sleep(100);
    expect(closed).toBe(false);
    // And the connection still carries a call: health Check with the empty request.
    const status = await new Promise<string | undefined>((resolve) => {
      const req = session.request({
        ':method': 'POST',
        ':path': '/grpc.health.v1.Health/Check',
        'content-type': 'application/grpc',
        te: 'trailers',
      });
      req.on('trailers', (t) => resolve(String(t['grpc-status'])));
      req.on('data', () => undefined);
      req.end(Buffer.alloc(5));
    });
    expect(status).toBe('0');
    session.close();
  });
});
