// needs-build: it starts `bin/opm.js serve --http-addr` (dist/opm.cjs) and calls it with curl and fetch.
/**
 * `opm serve DIR --http-addr` as a process on 127.0.0.1: OLM v1's catalog API beside the gRPC
 * server, called with curl (as `curl | jq` users do) and Node's fetch, on
 * testdata/serve-http/yaml-and-json (YAML and JSON files; its lines are all.jsonl, checked in
 * src/server/http-catalog.test.ts). Then the process: the catalog's name, a bad address or one in
 * use as one fatal line with exit 1 and nothing listening, SIGTERM stopping both servers and
 * removing the lines.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort, OPM, registryClient, startServe } from './client.js';
import { PATIENCE_MS } from '../patience.js';

const fixture = 'testdata/serve-http/yaml-and-json';
const catalog = path.join(fixture, 'catalog');
const expected = readFileSync(path.join(fixture, 'all.jsonl'), 'utf8');

function tool(name: string): boolean {
  return spawnSync(name, ['--version'], { stdio: 'ignore' }).status === 0;
}
const haveCurl = tool('curl');
const haveJq = tool('jq');
if (!haveCurl || !haveJq) console.warn('curl or jq is not installed: the curl | jq checks are skipped');

function curl(args: string[], input?: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('curl', ['-sS', ...args], { encoding: 'utf8', input, timeout: PATIENCE_MS });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The temporary folders of the lines a process with this pid writes. */
function linesFolders(pid: number | undefined): string[] {
  return readdirSync(os.tmpdir()).filter((n) => n.startsWith(`opm-serve-http-${pid}-`));
}

async function withServer(
  extra: string[],
  body: (http: string, s: Awaited<ReturnType<typeof startServe>>) => Promise<void>,
): Promise<string> {
  const httpPort = await freePort();
  const s = await startServe(catalog, { extra: ['--http-addr', `127.0.0.1:${httpPort}`, ...extra] });
  try {
    await body(`http://127.0.0.1:${httpPort}`, s);
  } finally {
    expect(await s.stop()).toBe(0);
  }
  return s.stderr();
}

describe('opm serve --http-addr: the catalog API beside gRPC', () => {
  it.runIf(haveCurl && haveJq)(
    'curl gets every line, jq reads each, metas filters, gzip and 304',
    async () => {
      const log = await withServer([], async (http, s) => {
        const base = `${http}/catalogs/catalog/api/v1`;
        const all = curl(['-f', `${base}/all`]);
        expect(all.stdout).toBe(expected);
        // `curl … | jq` on every line: each is a JSON value jq reads on its own.
        const jq = spawnSync('jq', ['-c', '.schema'], { input: all.stdout, encoding: 'utf8' });
        expect(jq.status).toBe(0);
        expect(jq.stdout.trimEnd().split('\n')).toEqual(
          expected
            .trimEnd()
            .split('\n')
            .map((l) => JSON.stringify((JSON.parse(l) as { schema: string }).schema)),
        );
        const pkgs = curl(['-f', `${base}/metas?schema=olm.package`]);
        const names = spawnSync('jq', ['-r', '.name'], { input: pkgs.stdout, encoding: 'utf8' });
        expect(names.stdout).toBe('gamma-op\nzeta-op\n');
        const bundle = curl([
          '-f',
          '-G',
          `${base}/metas`,
          '--data-urlencode',
          'schema=olm.bundle',
          '--data-urlencode',
          'name=zeta-op.v0.1.0',
        ]);
        expect(bundle.stdout.split('\n').length).toBe(2);
        expect((JSON.parse(bundle.stdout) as { package: string }).package).toBe('zeta-op');
        const zipped = curl(['-f', '--compressed', '-D', '-', '-o', '/dev/null', `${base}/all`]);
        expect(zipped.stdout).toMatch(/^content-encoding: gzip\r$/im);
        expect(curl(['-f', '--compressed', `${base}/all`]).stdout).toBe(expected);
        const head = curl(['-f', '-I', `${base}/all`]);
        expect(head.stdout).toMatch(/^HTTP\/1\.1 200 OK\r$/m);
        expect(head.stdout).toMatch(new RegExp(`^content-length: ${Buffer.byteLength(expected)}\\r$`, 'im'));
        const lastModified = /^last-modified: (.*)\r$/im.exec(head.stdout)?.[1] ?? '';
        const again = curl([
          '-s',
          '-o',
          '/dev/null',
          '-w',
          '%{http_code}',
          '-H',
          `If-Modified-Since: ${lastModified}`,
          `${base}/all`,
        ]);
        expect(again.stdout).toBe('304');
        const bad = curl(['-s', '-w', '\n%{http_code}', `${base}/metas?schema=olm.package&version=1`]);
        expect(bad.stdout).toBe(
          '400 Bad Request: unknown query parameter "version" (metas takes schema, package and name)\n\n400',
        );
        // The gRPC server answers at the same time.
        const c = registryClient(s.port);
        try {
          const list = await c.stream('ListPackages', {});
          expect(list.map((p) => p.name)).toEqual(['gamma-op', 'zeta-op']);
        } finally {
          c.close();
        }
      });
      expect(log).toMatch(
        /^time="[^"]+" level=info msg="serving catalog API" configs=testdata\/serve-http\/yaml-and-json\/catalog http-addr="127\.0\.0\.1:\d+" path=\/catalogs\/catalog\/api\/v1$/m,
      );
      expect(log).toMatch(
        /level=info msg="handled request" host=127\.0\.0\.1 method=GET protocol=HTTP\/1\.1 size=\d+ status=200 time_ms=[\d.]+ uri=\/catalogs\/catalog\/api\/v1\/all username=-$/m,
      );
      expect(log).toMatch(
        /msg="handled request" .*status=400 .*uri="\/catalogs\/catalog\/api\/v1\/metas\?schema=olm\.package&version=1"/,
      );
    },
  );

  it('fetch with --catalog-name: the name in the paths, the directory name no longer', async () => {
    await withServer(['--catalog-name', 'operatorhubio'], async (http, s) => {
      const all = await fetch(`${http}/catalogs/operatorhubio/api/v1/all`);
      expect(all.status).toBe(200);
      expect(all.headers.get('content-type')).toBe('application/jsonl');
      // fetch asks for gzip itself and undoes it.
      expect(all.headers.get('content-encoding')).toBe('gzip');
      expect(await all.text()).toBe(expected);
      const lines = (
        await (
          await fetch(`${http}/catalogs/operatorhubio/api/v1/metas?package=gamma-op&schema=acme.note`)
        ).text()
      )
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines).toEqual([
        { name: 'stable', package: 'gamma-op', schema: 'acme.note', tags: [true, false, 'on'] },
      ]);
      const old = await fetch(`${http}/catalogs/catalog/api/v1/all`);
      expect([old.status, await old.text()]).toEqual([404, '404 Not Found\n']);
      expect(linesFolders(s.child.pid).length).toBe(1);
    });
  });

  it('serves the same lines when gRPC serves from a cache; --cache-only serves neither', async () => {
    const cache = mkdtempSync(path.join(os.tmpdir(), 'opm-serve-http-test-'));
    try {
      const httpPort = await freePort();
      const only = spawnSync(
        process.execPath,
        [
          OPM,
          'serve',
          catalog,
          '-t',
          '/dev/null',
          '--cache-dir',
          cache,
          '--cache-only',
          '--http-addr',
          `127.0.0.1:${httpPort}`,
        ],
        { encoding: 'utf8', timeout: PATIENCE_MS },
      );
      expect(only.status).toBe(0);
      expect(only.stderr).not.toContain('serving catalog API');
      expect(linesFolders(only.pid)).toEqual([]);
      await withServer(['--cache-dir', cache], async (http) => {
        expect(await (await fetch(`${http}/catalogs/catalog/api/v1/all`)).text()).toBe(expected);
      });
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it('SIGTERM with an answer open stops both servers with exit 0 and removes the lines', async () => {
    const httpPort = await freePort();
    const s = await startServe(catalog, { extra: ['--http-addr', `127.0.0.1:${httpPort}`] });
    const res = await fetch(`http://127.0.0.1:${httpPort}/catalogs/catalog/api/v1/all`);
    expect(linesFolders(s.child.pid).length).toBe(1);
    const code = await s.stop();
    expect(code).toBe(0);
    expect(await res.text()).toBe(expected);
    expect(linesFolders(s.child.pid)).toEqual([]);
    await expect(fetch(`http://127.0.0.1:${httpPort}/catalogs/catalog/api/v1/all`)).rejects.toThrow();
  });
});

describe('opm serve --http-addr: refused', () => {
  function run(args: string[]): { status: number | null; stderr: string; pid: number } {
    const r = spawnSync(process.execPath, [OPM, 'serve', catalog, '-t', '/dev/null', ...args], {
      encoding: 'utf8',
      timeout: PATIENCE_MS,
    });
    return { status: r.status, stderr: r.stderr, pid: r.pid };
  }

  it('a malformed address or catalog name: one fatal line, exit 1, before the catalog loads', async () => {
    const port = await freePort();
    for (const [args, text] of [
      [['--http-addr', '8080'], 'invalid --http-addr \\"8080\\": missing port in address'],
      [
        ['--http-addr', '127.0.0.1:http'],
        'invalid --http-addr \\"127.0.0.1:http\\": invalid port \\"http\\"',
      ],
      [['--http-addr', '::1:8080'], 'too many colons in address'],
      [
        ['--http-addr', ':8080', '--catalog-name', 'a/b'],
        'invalid --catalog-name \\"a/b\\": it must be one path segment',
      ],
    ] as const) {
      const r = run(['-p', String(port), ...args]);
      expect(r.status).toBe(1);
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines.length).toBe(1);
      expect(lines[0]).toMatch(/^time="[^"]+" level=fatal msg=/);
      expect(lines[0]).toContain(text);
    }
  });

  it('an address in use: one fatal line, exit 1, and the gRPC port was never served', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const addr = busy.address();
    const busyPort = typeof addr === 'object' && addr !== null ? addr.port : 0;
    try {
      const grpcPort = await freePort();
      const r = run(['-p', String(grpcPort), '--http-addr', `127.0.0.1:${busyPort}`]);
      expect(r.status).toBe(1);
      expect(r.stderr).not.toContain('serving registry');
      const fatal = r.stderr
        .trimEnd()
        .split('\n')
        .filter((l) => l.includes('level=fatal'));
      expect(fatal).toEqual([
        expect.stringContaining(
          `msg="failed to listen: listen tcp 127.0.0.1:${busyPort}: bind: address already in use"`,
        ),
      ]);
      expect(linesFolders(r.pid)).toEqual([]);
    } finally {
      busy.close();
    }
  });
});
