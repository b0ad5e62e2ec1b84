/**
 * Gzip answers of the catalog API against a real server on 127.0.0.1: many clients that ask for
 * gzip and do not read cost the server one compression of the catalog, not one each, while a plain
 * reader gets its whole body; filtered bodies are compressed within the server's bound. Work is
 * compared as CPU time of this process (the server runs in it), not as wall time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request, type ClientRequest } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCatalogLines, type CatalogLines } from './catalog-lines.js';
import { startHttpCatalog, type RunningHttpCatalog } from './http-catalog.js';
import { Slots } from './http-gzip.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'opm-http-gzip-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Blobs of two schemas whose text compresses about 3:1, as catalogs with digests and images do. */
function* blobs(count: number) {
  let seed = 7;
  const hex = (n: number): string => {
    let out = '';
    for (let i = 0; i < n; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      out += (seed >>> 16).toString(16).padStart(4, '0');
    }
    return out;
  };
  for (let i = 0; i < count; i++) {
    const value = {
      schema: i % 4 === 0 ? 'olm.package' : 'olm.bundle',
      name: `b${i}`,
      package: `p${i % 50}`,
    };
    const text = `${JSON.stringify({ ...value, image: `quay.io/x/y@sha256:${hex(16)}`, data: hex(200) })}\n`;
    yield { bytes: Buffer.from(text), value };
  }
}

let lines: CatalogLines;
let server: RunningHttpCatalog;
let all: Buffer;
const base = '/catalogs/big/api/v1';

beforeAll(async () => {
  // About 8 MB of lines.
  lines = await writeCatalogLines(blobs(8000), path.join(tmp, 'catalog.jsonl'));
  server = await startHttpCatalog({
    host: '127.0.0.1',
    port: 0,
    name: 'big',
    lines: Promise.resolve(lines),
    log: () => undefined,
  });
  all = await get(`${base}/all`);
}, 120_000);
afterAll(() => server.stop());

/** The whole (decoded) body of a GET. */
function get(target: string, gzip = false): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path: target,
        headers: gzip ? { 'accept-encoding': 'gzip' } : {},
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const b = Buffer.concat(chunks);
          resolve(res.headers['content-encoding'] === 'gzip' ? gunzipSync(b) : b);
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A client that asks for the body (gzipped or not) and, once the answer starts, reads no more. */
function stalled(target: string, gzip: boolean): Promise<ClientRequest> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path: target,
        headers: { 'accept-encoding': gzip ? 'gzip' : 'identity' },
      },
      (res) => {
        expect(res.headers['content-encoding']).toBe(gzip ? 'gzip' : undefined);
        res.pause();
        resolve(req);
      },
    );
    req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
    req.end();
  });
}

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

describe('gzip answers', () => {
  it('are the lines, gzipped, for /all and for filtered /metas', async () => {
    expect(all.length).toBe(lines.size);
    expect((await get(`${base}/all`, true)).equals(all)).toBe(true);
    const bundles = all
      .toString()
      .split(/(?<=\n)/)
      .filter((l) => l.includes('"schema":"olm.bundle"'))
      .join('');
    const filtered = await get(`${base}/metas?schema=olm.bundle`, true);
    expect(filtered.toString()).toBe(bundles);
  });

  it('many clients that take gzip and stop reading cost what as many plain ones cost, and a plain reader gets its whole body', async () => {
    // One compression of the catalog here, for scale.
    const before = cpuMs();
    gzipSync(all);
    const once = cpuMs() - before;
    const plainCost = await scenario(false);
    const gzipCost = await scenario(true);
    process.stderr.write(
      `gzip figures: one compression ${once.toFixed(0)} ms CPU; 60 stalled plain clients and a reader ${plainCost.toFixed(0)} ms, 60 stalled gzip clients and a reader ${gzipCost.toFixed(0)} ms\n`,
    );
    // Compressing for each client would be up to 60 compressions (less what its socket does not
    // take); reading the catalog's one compressed file for each costs about what plain answers do.
    expect(gzipCost).toBeLessThan(plainCost + 3 * once);
  }, 300_000);
});

/**
 * The CPU time of this process (server and clients) while 60 clients that stop reading are
 * answered, with or without gzip, and a plain reader reads the whole catalog, which it must get.
 */
async function scenario(gzip: boolean): Promise<number> {
  const start = cpuMs();
  const clients = await Promise.all(Array.from({ length: 60 }, () => stalled(`${base}/all`, gzip)));
  try {
    const plain = await get(`${base}/all`);
    expect(plain.equals(all)).toBe(true);
    return cpuMs() - start;
  } finally {
    for (const c of clients) c.destroy();
  }
}

describe('Slots', () => {
  it('runs at most its count of tasks at once, every task in the end', async () => {
    const slots = new Slots(2);
    let running = 0;
    let most = 0;
    const done: number[] = [];
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        slots.run(async () => {
          running++;
          most = Math.max(most, running);
          await new Promise((r) => setImmediate(r));
          running--;
          done.push(i);
        }),
      ),
    );
    expect(most).toBe(2);
    expect(done.sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i));
  });
});
