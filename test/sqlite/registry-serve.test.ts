// needs-build: it starts `bin/opm.js registry serve` and calls it with grpcurl and grpc_health_probe.
// `opm registry serve -d <database>`, the entrypoint of SQLite index images: the database served
// over gRPC by opm serve's server, each call answered from its rows as opm's SQLite querier answers
// (test/reference/registry-serve.test.ts compares every call with the reference), the database
// left as it was.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../corpus.js';
import { answering, freePort, OPM } from '../serve/client.js';
import { haveSqlite3, rowsSql, schemaSql, sqlite3, type DbBundle } from './index-db.js';

const tools = path.join(projectRoot(), '.tools/bin');
const grpcurl = [process.env.GRPCURL, path.join(tools, 'grpcurl')].find(
  (p) => p !== undefined && p !== '' && existsSync(p),
);
const probe = [
  process.env.GRPC_HEALTH_PROBE,
  path.join(tools, 'grpc_health_probe'),
  path.join(tools, 'grpc-health-probe'),
].find((p) => p !== undefined && p !== '' && existsSync(p));
if (grpcurl === undefined || probe === undefined) {
  console.warn(
    '*** SKIPPED test/sqlite/registry-serve.test.ts: build grpcurl and grpc_health_probe with scripts/build-grpc-tools.sh ***',
  );
}

const BUNDLES: DbBundle[] = [
  { name: 'foo.v1.0.0', pkg: 'foo', version: '1.0.0', image: 'example.com/foo:1.0.0', channels: ['stable'] },
  { name: 'foo.v1.1.0', pkg: 'foo', version: '1.1.0', image: 'example.com/foo:1.1.0', channels: ['stable'] },
];

let tmp = '';
let db = '';
let before = '';
let port = 0;
let stop: (() => Promise<number | null>) | undefined;
let stderr = '';
let stdout = '';
const sha = (f: string): string => createHash('sha256').update(readFileSync(f)).digest('hex');

beforeAll(async () => {
  if (!haveSqlite3 || grpcurl === undefined || probe === undefined) return;
  tmp = mkdtempSync(path.join(tmpdir(), 'opm-registry-serve-'));
  db = path.join(tmp, 'index.db');
  sqlite3(db, `${schemaSql(13)}\n${rowsSql('foo', 'stable', BUNDLES)}`);
  before = sha(db);
  port = await freePort();
  const child = spawn(
    process.execPath,
    [OPM, 'registry', 'serve', '-d', db, '-p', String(port), '-t', '/dev/null'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => (stderr += d));
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => (stdout += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  stop = async () => {
    child.kill('SIGTERM');
    return exited;
  };
  await answering(port, 60_000);
  // The start-up line is written once the turn that logged it is over.
  for (let i = 0; i < 600 && !stdout.includes('msg="serving registry"'); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}, 120_000);

afterAll(async () => {
  if (stop !== undefined) expect(await stop()).toBe(0);
  if (tmp !== '') rmSync(tmp, { recursive: true, force: true });
});

describe.runIf(haveSqlite3 && grpcurl !== undefined && probe !== undefined)('registry serve', () => {
  const call = (...args: string[]) =>
    spawnSync(grpcurl as string, ['-plaintext', ...args], { encoding: 'utf8', timeout: 30_000 });

  it('logs the notice on stderr, and on stdout the database it serves, as opm does (no call lines)', () => {
    expect(stderr).toMatch(
      /^time="[^"]+" level=warning msg="\\x1b\[1;33mDEPRECATION NOTICE:\\nSqlite-based catalogs .* format\.\\x1b\[0m"\n$/,
    );
    expect(stdout).toContain(
      `msg="Keeping server open for infinite seconds" database=${db} port=${port}\n` +
        `time="${/time="([^"]+)" level=info msg="serving/.exec(stdout)?.[1]}" level=info msg="serving registry" database=${db} port=${port}\n`,
    );
    expect(stdout).not.toContain('call');
  });

  it('is SERVING to grpc_health_probe', () => {
    const r = spawnSync(probe as string, [`-addr=127.0.0.1:${port}`], { encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('status: SERVING\n');
  });

  it('answers ListPackages, GetPackage and GetBundle from the database', () => {
    expect(JSON.parse(call(`127.0.0.1:${port}`, 'api.Registry/ListPackages').stdout)).toEqual({
      name: 'foo',
    });
    const pkg = JSON.parse(
      call('-d', '{"name":"foo"}', `127.0.0.1:${port}`, 'api.Registry/GetPackage').stdout,
    );
    expect(pkg).toEqual({
      name: 'foo',
      channels: [{ name: 'stable', csvName: 'foo.v1.1.0' }],
      defaultChannelName: 'stable',
    });
    const b = JSON.parse(
      call(
        '-d',
        '{"pkgName":"foo","channelName":"stable","csvName":"foo.v1.1.0"}',
        `127.0.0.1:${port}`,
        'api.Registry/GetBundle',
      ).stdout,
    );
    expect(b.bundlePath).toBe('example.com/foo:1.1.0');
    expect(b.version).toBe('1.1.0');
    expect(b.object).toHaveLength(1);
    // As opm's SQLite querier fills it: no replaces, GVKs from the rows.
    expect(b.replaces).toBeUndefined();
    expect(b.providedApis).toEqual([{ group: 'foo.example.com', version: 'v1', kind: 'Thing' }]);
  });

  it('answers GetBundleForChannel with the name and CSV of the head only, as opm does', () => {
    const b = JSON.parse(
      call(
        '-d',
        '{"pkgName":"foo","channelName":"stable"}',
        `127.0.0.1:${port}`,
        'api.Registry/GetBundleForChannel',
      ).stdout,
    );
    expect(Object.keys(b)).toEqual(['csvName', 'csvJson']);
    expect(b.csvName).toBe('foo.v1.1.0');
  });

  it('registers no ExperimentalRegistry', () => {
    expect(call(`127.0.0.1:${port}`, 'list').stdout).toBe(
      'api.Registry\ngrpc.health.v1.Health\ngrpc.reflection.v1.ServerReflection\ngrpc.reflection.v1alpha.ServerReflection\n',
    );
  });

  it('leaves the database as it was', () => {
    expect(sha(db)).toBe(before);
  });
});
