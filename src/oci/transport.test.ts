import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { OpmError } from '../errors.js';
import { networkCode } from './http/network-errors.js';
import { readBounded } from './http/types.js';
import { Transport } from './transport.js';

const servers: Array<{ close(): void }> = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

function listen(server: net.Server): Promise<string> {
  servers.push({
    close: () => {
      server.close();
      if (server instanceof http.Server) server.closeAllConnections();
    },
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const a = server.address();
      resolve(`http://127.0.0.1:${typeof a === 'object' && a !== null ? a.port : 0}`);
    });
  });
}

function transport(timeouts = {}, attempts = 1): Transport {
  return new Transport({ skipTlsVerify: false, env: {}, certDirs: [], attempts, backoffMs: 1, timeouts });
}

describe('Transport on node:http', () => {
  it('gives up on a server that sends no headers, with a time-out error', async () => {
    const sockets: net.Socket[] = [];
    const base = await listen(net.createServer((s) => void sockets.push(s)));
    const t = transport({ headersMs: 150 });
    const err = await t.send({ url: new URL(`${base}/v2/`) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpmError);
    expect(err instanceof OpmError && err.code).toBe('E_REGISTRY_TIMEOUT');
    expect(String(err instanceof Error && err.message)).toContain('UND_ERR_HEADERS_TIMEOUT');
    for (const s of sockets) s.destroy();
    await t.close();
  });

  it('fails a body that stalls', async () => {
    const base = await listen(
      http.createServer((_req, res) => {
        res.writeHead(200, { 'content-length': '100' });
        res.write('0123456789');
      }),
    );
    const t = transport({ bodyMs: 150 });
    const res = await t.send({ url: new URL(`${base}/blob`) });
    expect(res.status).toBe(200);
    const err = await readBounded(res.body, 1000, 'blob').catch((e: unknown) => e);
    expect(networkCode(err)).toBe('UND_ERR_BODY_TIMEOUT');
    await t.close();
  });

  it('fails a body that trickles a byte at a time, past the whole-body deadline', async () => {
    const timers: NodeJS.Timeout[] = [];
    const base = await listen(
      http.createServer((_req, res) => {
        res.writeHead(200, { 'content-length': '1000' });
        // A byte every 20 ms: never idle for the pause limit, never done either. The pause limit is
        // far above the interval, so that a busy machine that delays a write is not a pause.
        timers.push(setInterval(() => res.write('x'), 20));
      }),
    );
    const t = transport({ bodyMs: 60_000, bodyDeadlineMs: 400 });
    const res = await t.send({ url: new URL(`${base}/blob`) });
    const err = await readBounded(res.body, 2000, 'blob').catch((e: unknown) => e);
    expect(networkCode(err)).toBe('UND_ERR_BODY_TIMEOUT');
    expect(String(err instanceof Error && err.message)).toContain('not complete within 400 ms');
    for (const i of timers) clearInterval(i);
    await t.close();
  });

  it('takes the whole-body deadline from OPM_REGISTRY_BODY_DEADLINE', async () => {
    const timers: NodeJS.Timeout[] = [];
    const base = await listen(
      http.createServer((_req, res) => {
        res.writeHead(200, { 'content-length': '1000' });
        timers.push(setInterval(() => res.write('x'), 20));
      }),
    );
    const t = new Transport({
      skipTlsVerify: false,
      env: { OPM_REGISTRY_BODY_DEADLINE: '0.3' },
      certDirs: [],
    });
    const res = await t.send({ url: new URL(`${base}/blob`) });
    const err = await readBounded(res.body, 2000, 'blob').catch((e: unknown) => e);
    expect(String(err instanceof Error && err.message)).toContain('not complete within 300 ms');
    for (const i of timers) clearInterval(i);
    await t.close();
  });

  it('reuses one connection for requests in a row, dumped bodies included', async () => {
    let connections = 0;
    const server = http.createServer((_req, res) => res.end('hello'));
    server.on('connection', () => connections++);
    const base = await listen(server);
    const t = transport();
    const a = await t.send({ url: new URL(`${base}/a`) });
    await a.body.dump();
    const b = await t.send({ url: new URL(`${base}/b`) });
    expect((await readBounded(b.body, 100, 'b')).toString()).toBe('hello');
    const c = await t.send({ url: new URL(`${base}/c`), method: 'POST', body: 'x=1' });
    expect(c.status).toBe(200);
    await c.body.dump();
    expect(connections).toBe(1);
    await t.close();
  });

  it('tries again when the connection is cut before the answer', async () => {
    let n = 0;
    const base = await listen(
      http.createServer((req, res) => {
        if (n++ === 0) req.socket.destroy();
        else res.end('ok');
      }),
    );
    const t = transport({}, 3);
    const res = await t.send({ url: new URL(`${base}/v2/`) });
    expect((await readBounded(res.body, 100, 'ok')).toString()).toBe('ok');
    expect(n).toBe(2);
    await t.close();
  });
});
