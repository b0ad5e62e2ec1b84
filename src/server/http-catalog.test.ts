/**
 * The catalog API in this process, on 127.0.0.1, over the lines of testdata/serve-http/yaml-and-json
 * (a YAML file of several documents, a JSON stream, custom schemas, an .indexignore'd folder),
 * called with node:http so that headers and bytes are seen as sent. The lines are compared with
 * all.jsonl (written by the code with UPDATE_FIXTURES=1 and reviewed); metas answers with the
 * lines filtered here by their decoded fields.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { walkMetaBlobs } from '../serve-cache/digest.js';
import { writeCatalogLines, type CatalogLines } from './catalog-lines.js';
import { metaFields } from '../declcfg/meta.js';
import { startHttpCatalog, type RunningHttpCatalog } from './http-catalog.js';
import { acceptsGzip, parseHttpDate, parseRange, preconditions } from './http-request.js';
import type { LogFields } from '../util/log.js';

const fixture = 'testdata/serve-http/yaml-and-json';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'opm-http-catalog-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function linesOf(dir: string, file: string): Promise<CatalogLines> {
  async function* blobs() {
    for await (const b of walkMetaBlobs(dir)) yield { bytes: b.bytes, value: b.value };
  }
  return writeCatalogLines(blobs(), path.join(tmp, file));
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function call(
  port: number,
  target: string,
  opts: { method?: string; headers?: Record<string, string> } = {},
) {
  return new Promise<Answer>((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: target, method: opts.method ?? 'GET', headers: opts.headers ?? {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/**
 * A request written as raw bytes, and every byte of the answer until the server closes. A reset after
 * the answer (the server going away while the request is still being written) is not an error here:
 * what was received is what counts.
 */
function exchange(port: number, request: string): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.end(request));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
  });
}

let lines: CatalogLines;
let expected: string;
let server: RunningHttpCatalog;
const logged: { msg: string; fields: LogFields }[] = [];
const base = '/catalogs/gamma-zeta/api/v1';

beforeAll(async () => {
  lines = await linesOf(path.join(fixture, 'catalog'), 'catalog.jsonl');
  const text = readFileSync(lines.file, 'utf8');
  const golden = path.join(fixture, 'all.jsonl');
  if (process.env.UPDATE_FIXTURES === '1' || !existsSync(golden)) writeFileSync(golden, text);
  expected = readFileSync(golden, 'utf8');
  server = await startHttpCatalog({
    host: '127.0.0.1',
    port: 0,
    name: 'gamma-zeta',
    lines: Promise.resolve(lines),
    log: (_level, msg, fields) => logged.push({ msg, fields }),
  });
});
afterAll(async () => server.stop());

/** The expected lines whose decoded fields match every non-empty field of `q`. */
function filtered(q: { schema?: string; package?: string; name?: string }): string {
  return expected
    .split(/(?<=\n)/)
    .filter((l) => {
      const v = JSON.parse(l) as Record<string, unknown>;
      if (typeof v.schema !== 'string' || v.schema === '') return false;
      return (['schema', 'package', 'name'] as const).every((k) => !q[k] || v[k] === q[k]);
    })
    .join('');
}

describe('catalog lines', () => {
  it('are the catalog as opm Meta blobs: one compact line each, keys sorted, walk order, .indexignore honoured', () => {
    expect(readFileSync(lines.file, 'utf8')).toBe(expected);
    const values = expected
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(values.map((v) => `${String(v.schema)}/${String(v.name)}`)).toEqual([
      'olm.package/gamma-op',
      'olm.channel/stable',
      'olm.bundle/gamma-op.v1.0.0',
      'olm.bundle/gamma-op.v1.1.0',
      'acme.note/stable',
      'acme.note/global',
      'olm.package/zeta-op',
      'olm.channel/fast',
      'olm.bundle/zeta-op.v0.1.0',
      'acme.note/stable',
    ]);
    for (const l of expected.trimEnd().split('\n')) {
      const keys = Object.keys(JSON.parse(l) as object);
      expect(keys).toEqual([...keys].sort());
      expect(l).not.toMatch(/\\u003c|\n/);
    }
    expect(expected).not.toContain('draft-op');
    expect(lines.blobs).toBe(10);
    expect(lines.size).toBe(Buffer.byteLength(expected));
  });

  it('join adjacent blobs into one section and keep catalog order', () => {
    const all = lines.sections({ schema: '', package: 'gamma-op', name: '' });
    expect(all.length).toBe(1);
    const text = readFileSync(lines.file);
    expect(all.map((s) => text.subarray(s.offset, s.offset + s.length).toString()).join('')).toBe(
      filtered({ package: 'gamma-op' }),
    );
    expect(lines.sections({ schema: 'olm.package', package: '', name: 'nothing' })).toEqual([]);
  });

  it("read schema, package and name whatever their case, as Go's case folding does", () => {
    expect(metaFields({ Schema: 'a', PACKAGE: 'b', naMe: 'c' })).toEqual({
      schema: 'a',
      package: 'b',
      name: 'c',
    });
    expect(metaFields({ 'pac\u212aage': 'kelvin', ſchema: 'long-s' })).toEqual({
      schema: 'long-s',
      package: 'kelvin',
      name: '',
    });
    expect(metaFields({ schema: 1, package: null, name: ['x'] })).toEqual({
      schema: '',
      package: '',
      name: '',
    });
  });
});

describe('GET /catalogs/<name>/api/v1/all', () => {
  it('answers every line with catalogd headers', async () => {
    const a = await call(server.port, `${base}/all`);
    expect(a.status).toBe(200);
    expect(a.body.toString()).toBe(expected);
    expect(a.headers['content-type']).toBe('application/jsonl');
    expect(a.headers['content-length']).toBe(String(Buffer.byteLength(expected)));
    expect(a.headers['accept-ranges']).toBe('bytes');
    expect(a.headers['vary']).toBe('Accept-Encoding');
    expect(a.headers['last-modified']).toBe(lines.modified.toUTCString());
  });

  it('HEAD gives the headers alone', async () => {
    const a = await call(server.port, `${base}/all`, { method: 'HEAD' });
    expect(a.status).toBe(200);
    expect(a.body.length).toBe(0);
    expect(a.headers['content-length']).toBe(String(Buffer.byteLength(expected)));
  });

  it('gzips for a client that takes gzip, not for one that refuses it or for HEAD', async () => {
    const z = await call(server.port, `${base}/all`, { headers: { 'accept-encoding': 'br, gzip;q=0.5' } });
    expect(z.headers['content-encoding']).toBe('gzip');
    expect(z.headers['content-length']).toBeUndefined();
    expect(z.headers['accept-ranges']).toBeUndefined();
    expect(gunzipSync(z.body).toString()).toBe(expected);
    const no = await call(server.port, `${base}/all`, { headers: { 'accept-encoding': 'gzip;q=0' } });
    expect(no.headers['content-encoding']).toBeUndefined();
    expect(no.body.toString()).toBe(expected);
    const head = await call(server.port, `${base}/all`, {
      method: 'HEAD',
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(head.headers['content-encoding']).toBeUndefined();
  });

  it('answers conditional requests: 304 when not modified, 412 when a precondition fails', async () => {
    const lm = lines.modified.toUTCString();
    const same = await call(server.port, `${base}/all`, { headers: { 'if-modified-since': lm } });
    expect(same.status).toBe(304);
    expect(same.body.length).toBe(0);
    expect(same.headers['content-type']).toBeUndefined();
    expect(same.headers['last-modified']).toBe(lm);
    const older = new Date(lines.modified.getTime() - 60_000).toUTCString();
    expect((await call(server.port, `${base}/all`, { headers: { 'if-modified-since': older } })).status).toBe(
      200,
    );
    expect((await call(server.port, `${base}/all`, { headers: { 'if-none-match': '*' } })).status).toBe(304);
    expect(
      (
        await call(server.port, `${base}/all`, {
          headers: { 'if-none-match': '"x"', 'if-modified-since': lm },
        })
      ).status,
    ).toBe(200);
    expect((await call(server.port, `${base}/all`, { headers: { 'if-match': '"x"' } })).status).toBe(412);
    expect(
      (await call(server.port, `${base}/all`, { headers: { 'if-unmodified-since': older } })).status,
    ).toBe(412);
    expect(
      (await call(server.port, `${base}/all`, { headers: { 'if-modified-since': 'yesterday' } })).status,
    ).toBe(200);
  });

  it('serves one byte range, the whole body for several, 416 past the end', async () => {
    const r = await call(server.port, `${base}/all`, { headers: { range: 'bytes=10-19' } });
    expect(r.status).toBe(206);
    expect(r.headers['content-range']).toBe(`bytes 10-19/${lines.size}`);
    expect(r.body.toString()).toBe(Buffer.from(expected).subarray(10, 20).toString());
    const several = await call(server.port, `${base}/all`, { headers: { range: 'bytes=0-1,5-6' } });
    expect(several.status).toBe(200);
    expect(several.body.toString()).toBe(expected);
    const past = await call(server.port, `${base}/all`, { headers: { range: `bytes=${lines.size}-` } });
    expect(past.status).toBe(416);
    expect(past.headers['content-range']).toBe(`bytes */${lines.size}`);
    expect(past.body.toString()).toBe('invalid range: failed to overlap\n');
    const huge = await call(server.port, `${base}/all`, { headers: { range: `bytes=0-${'9'.repeat(26)}` } });
    expect([huge.status, huge.body.toString()]).toEqual([416, 'invalid range\n']);
    const stale = new Date(lines.modified.getTime() - 60_000).toUTCString();
    const ifRange = await call(server.port, `${base}/all`, {
      headers: { range: 'bytes=0-1', 'if-range': stale },
    });
    expect(ifRange.status).toBe(200);
  });
});

describe('GET /catalogs/<name>/api/v1/metas', () => {
  const cases: { q: string; want: { schema?: string; package?: string; name?: string } }[] = [
    { q: 'schema=olm.package', want: { schema: 'olm.package' } },
    { q: 'package=gamma-op', want: { package: 'gamma-op' } },
    { q: 'name=stable', want: { name: 'stable' } },
    { q: 'schema=acme.note&package=gamma-op', want: { schema: 'acme.note', package: 'gamma-op' } },
    { q: 'schema=acme.note&name=stable', want: { schema: 'acme.note', name: 'stable' } },
    { q: 'package=zeta-op&name=zeta-op.v0.1.0', want: { package: 'zeta-op', name: 'zeta-op.v0.1.0' } },
    {
      q: 'schema=olm.bundle&package=gamma-op&name=gamma-op.v1.1.0',
      want: { schema: 'olm.bundle', package: 'gamma-op', name: 'gamma-op.v1.1.0' },
    },
  ];
  for (const c of cases) {
    it(`?${c.q} answers the matching lines in catalog order`, async () => {
      const a = await call(server.port, `${base}/metas?${c.q}`);
      expect(a.status).toBe(200);
      expect(a.headers['content-type']).toBe('application/jsonl');
      const want = filtered(c.want);
      expect(want).not.toBe('');
      expect(a.body.toString()).toBe(want);
    });
  }

  it('the package blob is found by its name, not by ?package= (it has no package field)', async () => {
    const a = await call(server.port, `${base}/metas?package=zeta-op`);
    expect(a.body.toString()).not.toContain('"schema":"olm.package"');
  });

  it('no match is an empty 200; no filter (or empty ones) is the whole catalog', async () => {
    const none = await call(server.port, `${base}/metas?schema=olm.bundle&name=stable`);
    expect(none.status).toBe(200);
    expect(none.body.length).toBe(0);
    expect((await call(server.port, `${base}/metas`)).body.toString()).toBe(expected);
    expect((await call(server.port, `${base}/metas?schema=&name=`)).body.toString()).toBe(expected);
  });

  it('an unknown parameter is 400, before the catalog name is looked at', async () => {
    for (const target of [
      `${base}/metas?schema=olm.package&bogus=1`,
      '/catalogs/other/api/v1/metas?Schema=x',
    ]) {
      const a = await call(server.port, target);
      expect(a.status).toBe(400);
      expect(a.body.toString()).toMatch(
        /^400 Bad Request: unknown query parameter "(bogus|Schema)" \(metas takes schema, package and name\)\n$/,
      );
      expect(a.headers['content-type']).toBe('text/plain; charset=utf-8');
    }
  });

  it("drops a pair with a malformed escape or a `;`, as Go's url.ParseQuery does", async () => {
    for (const q of ['schema=%zz', 'schema=%zz&package=', 'bogus%zz=1', 'name=a;b', '&&schema=%2']) {
      const a = await call(server.port, `${base}/metas?${q}`);
      expect([q, a.status, a.body.toString()]).toEqual([q, 200, expected]);
    }
    const some = await call(server.port, `${base}/metas?schema=%zz&package=gamma-op`);
    expect(some.body.toString()).toBe(filtered({ package: 'gamma-op' }));
    const plus = await call(server.port, `${base}/metas?package=gamma%2dop&name=no+such`);
    expect([plus.status, plus.body.length]).toEqual([200, 0]);
  });

  it('HEAD, 304 and gzip as for /all', async () => {
    const head = await call(server.port, `${base}/metas?package=gamma-op`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-type']).toBe('application/jsonl');
    const lm = lines.modified.toUTCString();
    expect(
      (await call(server.port, `${base}/metas?package=gamma-op`, { headers: { 'if-modified-since': lm } }))
        .status,
    ).toBe(304);
    // The blobs of gamma-op are under gzhttp's 1,024 bytes; the whole catalog is over them.
    expect(Buffer.byteLength(filtered({ package: 'gamma-op' }))).toBeLessThan(1024);
    const big = await call(server.port, `${base}/metas?schema=`, { headers: { 'accept-encoding': 'gzip' } });
    expect(big.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(big.body).toString()).toBe(expected);
    const small = await call(server.port, `${base}/metas?schema=olm.package`, {
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(small.body.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
  });
});

describe('everything else', () => {
  it("answers other catalogs, paths and methods with Go's texts", async () => {
    const other = await call(server.port, '/catalogs/other/api/v1/all');
    expect([other.status, other.body.toString()]).toEqual([404, '404 Not Found\n']);
    for (const p of [
      '/',
      '//x/catalogs/gamma-zeta/api/v1/all',
      '/catalogs/gamma-zeta/api/v1/all/',
      '/catalogs/gamma-zeta/api/v2/all',
      '/catalogs/gamma-zeta',
    ]) {
      const a = await call(server.port, p);
      expect([a.status, a.body.toString()]).toEqual([404, '404 page not found\n']);
    }
    const post = await call(server.port, `${base}/all`, { method: 'POST' });
    expect([post.status, post.body.toString()]).toEqual([405, 'Method Not Allowed\n']);
    expect(post.headers['vary']).toBe('Accept-Encoding');
  });

  it('logs each request once, in the fields of catalogd', async () => {
    await call(server.port, `${base}/metas?schema=olm.package`);
    const line = logged.findLast((l) => l.fields.uri === `${base}/metas?schema=olm.package`);
    expect(line?.msg).toBe('handled request');
    expect(line?.fields).toMatchObject({
      host: '127.0.0.1',
      method: 'GET',
      protocol: 'HTTP/1.1',
      status: 200,
      size: Buffer.byteLength(filtered({ schema: 'olm.package' })),
      username: '-',
    });
  });

  it('waits for lines still being written, and answers 500 when they could not be', async () => {
    let release: (l: CatalogLines) => void = () => undefined;
    const later = new Promise<CatalogLines>((resolve) => (release = resolve));
    const failing = Promise.reject(new Error('disk full'));
    failing.catch(() => undefined);
    const slow = await startHttpCatalog({
      host: '127.0.0.1',
      port: 0,
      name: 'c',
      lines: later,
      log: () => undefined,
    });
    const broken = await startHttpCatalog({
      host: '127.0.0.1',
      port: 0,
      name: 'c',
      lines: failing,
      log: () => undefined,
    });
    try {
      const pending = call(slow.port, '/catalogs/c/api/v1/all');
      release(lines);
      expect((await pending).body.toString()).toBe(expected);
      const b = await call(broken.port, '/catalogs/c/api/v1/all');
      expect([b.status, b.body.toString()]).toEqual([500, '500 Internal Server Error\n']);
    } finally {
      await slow.stop();
      await broken.stop();
    }
  });

  it('a client that stops reading holds the answer back instead of the server buffering it', async () => {
    // 48 MiB of lines: far more than the socket buffers between the two ends hold.
    const blobLine = `{"data":"${'x'.repeat(1024 * 1024 - 12)}"}\n`;
    function* big() {
      for (let i = 0; i < 48; i++) yield { bytes: Buffer.from(blobLine), value: { schema: 'big' } };
    }
    const bigLines = await writeCatalogLines(big(), path.join(tmp, 'big.jsonl'));
    const seen: LogFields[] = [];
    const s = await startHttpCatalog({
      host: '127.0.0.1',
      port: 0,
      name: 'big',
      lines: Promise.resolve(bigLines),
      log: (_l, _m, fields) => seen.push(fields),
    });
    try {
      const done = new Promise<void>((resolve) => {
        const req = request({ host: '127.0.0.1', port: s.port, path: '/catalogs/big/api/v1/all' }, (res) => {
          res.once('data', () => {
            // Stop reading after the first chunk, give the server time to push what it would, then go away.
            res.pause();
            setTimeout(() => {
              req.destroy();
              resolve();
            }, 500);
          });
        });
        req.on('error', () => undefined);
        req.end();
      });
      await done;
      while (seen.length === 0) await new Promise((r) => setTimeout(r, 20));
      expect(seen[0]?.status).toBe(200);
      expect(Number(seen[0]?.size)).toBeLessThan(bigLines.size / 2);
    } finally {
      await s.stop();
    }
  });

  it('says why a request is bad: a malformed escape in the path, a request that does not parse', async () => {
    const a = await call(server.port, '/catalogs/%zz/api/v1/all');
    expect([a.status, a.body.toString()]).toEqual([400, '400 Bad Request: invalid URL escape "%zz"\n']);
    const garbled = await exchange(server.port, 'BLAH\r\n\r\n');
    expect(garbled.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(garbled).toMatch(/\r\n\r\n400 Bad Request: invalid method encountered$/);
  });

  it("takes a request line and headers up to Go's 1 MiB, and answers 431 past it instead of a reset", async () => {
    // 100 KB of query is read as Go reads it (a name nothing has).
    const long = await call(server.port, `${base}/metas?name=${'x'.repeat(100_000)}`);
    expect([long.status, long.body.length]).toEqual([200, 0]);
    // A 1 MiB path is still read (another catalog's name: 404); 2 MiB is past the limit.
    const path1m = await exchange(
      server.port,
      `GET /catalogs/${'x'.repeat(1 << 20)}/api/v1/all HTTP/1.1\r\nHost: a\r\n\r\n`,
    );
    expect(path1m.split('\r\n')[0]).toBe('HTTP/1.1 404 Not Found');
    const path2m = await exchange(
      server.port,
      `GET /catalogs/${'x'.repeat(2 << 20)}/api/v1/all HTTP/1.1\r\nHost: a\r\n\r\n`,
    );
    const header10m = await exchange(
      server.port,
      `GET ${base}/all HTTP/1.1\r\nHost: a\r\nX-Big: ${'y'.repeat(10 << 20)}\r\n\r\n`,
    );
    for (const answer of [path2m, header10m]) {
      expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 431 Request Header Fields Too Large');
      expect(answer).toMatch(/\r\n\r\n431 Request Header Fields Too Large$/);
    }
    // The server goes on serving.
    expect((await call(server.port, `${base}/all`)).body.toString()).toBe(expected);
  });

  it('refuses an address in use with Go-like words, and stops listening when stopped', async () => {
    await expect(
      startHttpCatalog({
        host: '127.0.0.1',
        port: server.port,
        name: 'c',
        lines: Promise.resolve(lines),
        log: () => undefined,
      }),
    ).rejects.toThrow(`failed to listen: listen tcp 127.0.0.1:${server.port}: bind: address already in use`);
    const s = await startHttpCatalog({
      host: '127.0.0.1',
      port: 0,
      name: 'c',
      lines: Promise.resolve(lines),
      log: () => undefined,
    });
    await s.stop();
    await expect(call(s.port, '/catalogs/c/api/v1/all')).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe('header parsing', () => {
  it("reads the three date forms of Go's http.ParseTime", () => {
    const t = Date.UTC(1994, 10, 6, 8, 49, 37);
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(t);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT')).toBe(t);
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994')).toBe(t);
    expect(parseHttpDate('Sun, 31 Feb 1994 08:49:37 GMT')).toBeUndefined();
    expect(parseHttpDate('1994-11-06T08:49:37Z')).toBeUndefined();
  });

  it('reads ranges as Go does', () => {
    expect(parseRange('bytes=-5', 100)).toEqual({ kind: 'one', section: { offset: 95, length: 5 } });
    expect(parseRange('bytes=90-200', 100)).toEqual({ kind: 'one', section: { offset: 90, length: 10 } });
    expect(parseRange('bytes=5-1', 100)).toEqual({ kind: 'invalid', text: 'invalid range' });
    expect(parseRange('items=1-2', 100)).toEqual({ kind: 'invalid', text: 'invalid range' });
    expect(parseRange('bytes=0-80,10-90', 100)).toEqual({ kind: 'whole' });
    // Numbers past int64 are strconv.ParseInt's range error: a malformed range, 416.
    const invalid = { kind: 'invalid', text: 'invalid range' };
    expect(parseRange(`bytes=0-${'9'.repeat(26)}`, 100)).toEqual(invalid);
    expect(parseRange('bytes=0-9223372036854775808', 100)).toEqual(invalid);
    expect(parseRange(`bytes=-${'9'.repeat(26)}`, 100)).toEqual(invalid);
    expect(parseRange(`bytes=${'9'.repeat(26)}-`, 100)).toEqual(invalid);
    expect(parseRange('bytes=0-9223372036854775807', 100)).toEqual({
      kind: 'one',
      section: { offset: 0, length: 100 },
    });
  });

  it('takes gzip only with a q above 0', () => {
    expect(acceptsGzip('gzip, deflate, br')).toBe(true);
    expect(acceptsGzip('GZIP;q=0.1')).toBe(true);
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip('*')).toBe(false);
    expect(acceptsGzip(undefined)).toBe(false);
  });

  it('evaluates If-Match before If-None-Match before If-Modified-Since', () => {
    const m = new Date(Date.UTC(2024, 0, 1, 0, 0, 0, 900));
    const at = 'Mon, 01 Jan 2024 00:00:00 GMT';
    expect(preconditions({ 'if-modified-since': at }, m)).toBe(304);
    expect(preconditions({ 'if-match': '*', 'if-modified-since': at }, m)).toBe(304);
    expect(preconditions({ 'if-match': 'garbage', 'if-none-match': '*' }, m)).toBe(412);
    expect(preconditions({ 'if-unmodified-since': at }, m)).toBeUndefined();
    expect(preconditions({}, m)).toBeUndefined();
  });
});
