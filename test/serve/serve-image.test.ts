// needs-build: it starts `bin/opm.js serve <image>` and calls it with grpcurl and grpc_health_probe.
// needs-registry: real registry servers on 127.0.0.1 (docker-registry).
/**
 * `opm serve <image reference>`: catalog images pushed to a real registry on 127.0.0.1 pulled,
 * unpacked and served without a container engine. The catalog image `opm image build` makes (with
 * its `/tmp/cache` and `serve /configs --cache-dir=/tmp/cache` command) is served from its cache
 * and answers as testdata/serve/mixed/expected.json says; an image with `/configs` only is served
 * from its files; a SQLite index image is served as `registry serve` serves its database; images
 * that are no catalog, and references that cannot be pulled, are one fatal line. The unpacked image
 * is removed when the server stops.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../corpus.js';
import { PATIENCE_MS } from '../patience.js';
import { startPlainRegistry, type RegistryProcess } from '../registry/fixture.js';
import { tempDir } from '../registry/helpers.js';
import { CATALOG_LABELS, buildImage, buildOpmStandIn, pushImage } from '../registry/image-builder.js';
import { haveSqlite3, rowsSql, schemaSql, sqlite3, type DbBundle } from '../sqlite/index-db.js';
import { answering, freePort, OPM, registryClient } from './client.js';
import { probe } from './probe.js';

const fixture = path.resolve('testdata/serve/mixed');
const customSchemas = [
  { schema: 'acme.note', packageName: 'alpha-op' },
  { schema: 'acme.note', packageName: '' },
];
const tools = path.join(projectRoot(), '.tools/bin');
const grpcurl = [process.env.GRPCURL, path.join(tools, 'grpcurl')].find(
  (p) => p !== undefined && p !== '' && existsSync(p),
);
const healthProbe = [
  process.env.GRPC_HEALTH_PROBE,
  path.join(tools, 'grpc_health_probe'),
  path.join(tools, 'grpc-health-probe'),
].find((p) => p !== undefined && p !== '' && existsSync(p));
const haveTools = grpcurl !== undefined && healthProbe !== undefined && haveSqlite3;
if (!haveTools) {
  const what = 'grpcurl and grpc_health_probe (scripts/build-grpc-tools.sh) and sqlite3';
  if (process.env.CI === 'true') throw new Error(`test/serve/serve-image.test.ts needs ${what}`);
  console.warn(`*** SKIPPED test/serve/serve-image.test.ts: it needs ${what} ***`);
}

let tmp: ReturnType<typeof tempDir>;
let registry: RegistryProcess;
/** Where pulls unpack (TMPDIR of the servers): empty again once each has stopped. */
let scratch = '';

function env(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: path.join(tmp.dir, 'home'),
    OLM_CACHE_DIR: path.join(tmp.dir, 'blob-cache'),
    TMPDIR: scratch,
  };
}

/** `opm --use-http ARGS` to completion. */
function opm(args: string[]) {
  return spawnSync(process.execPath, [OPM, '--use-http', ...args], {
    encoding: 'utf8',
    env: env(),
    timeout: PATIENCE_MS,
  });
}

interface Server {
  port: number;
  stderr(): string;
  stop(): Promise<number | null>;
}

/** `opm --use-http serve REF` until it answers health checks (or exits: the promise rejects). */
async function serveImage(ref: string, extra: string[] = []): Promise<Server> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [OPM, '--use-http', 'serve', ref, '-p', String(port), '-t', '/dev/null', ...extra],
    { stdio: ['ignore', 'ignore', 'pipe'], env: env() },
  );
  let err = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await Promise.race([
    answering(port),
    exited.then((code) => Promise.reject(new Error(`exited ${code}:\n${err}`))),
  ]);
  // The start-up lines are written once the turn that logged them is over.
  for (let i = 0; i < 300 && !err.includes('msg="serving registry"'); i++)
    await new Promise((r) => setTimeout(r, 50));
  return {
    port,
    stderr: () => err,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

const health = (port: number): string => {
  const r = spawnSync(healthProbe as string, [`-addr=127.0.0.1:${port}`], { encoding: 'utf8' });
  return r.stdout + r.stderr;
};
const grpc = (port: number, ...args: string[]): string =>
  spawnSync(grpcurl as string, ['-plaintext', ...args.slice(0, -1), `127.0.0.1:${port}`, ...args.slice(-1)], {
    encoding: 'utf8',
    timeout: PATIENCE_MS,
  }).stdout;

const BUNDLES: DbBundle[] = [
  { name: 'foo.v1.0.0', pkg: 'foo', version: '1.0.0', image: 'example.com/foo:1.0.0', channels: ['stable'] },
  { name: 'foo.v1.1.0', pkg: 'foo', version: '1.1.0', image: 'example.com/foo:1.1.0', channels: ['stable'] },
];

beforeAll(async () => {
  if (!haveTools) return;
  tmp = tempDir('opm-serve-image-');
  scratch = path.join(tmp.dir, 'scratch');
  mkdirSync(scratch);
  mkdirSync(path.join(tmp.dir, 'home'));
  registry = await startPlainRegistry(tmp.dir, 'plain');
  const host = registry.host;
  // The catalog image as `opm image build` makes it, on a stand-in of opm's base image.
  await pushImage(await buildOpmStandIn({ tmp: true }), { url: registry.url, repo: 'base/opm', tag: 'v1' });
  const built = opm([
    'image',
    'build',
    path.join(fixture, 'catalog'),
    '-t',
    `${host}/catalogs/mixed:v1`,
    '--push',
    '--base-image',
    `${host}/base/opm:v1`,
  ]);
  if (built.status !== 0) throw new Error(`image build failed: ${built.stderr}`);
  // /configs and nothing else: no cache, no command.
  const plain = await buildImage({
    layers: [{ dir: path.join(fixture, 'catalog'), prefix: 'configs' }],
    labels: CATALOG_LABELS,
  });
  await pushImage(plain, { url: registry.url, repo: 'catalogs/plain', tag: 'v1' });
  // A SQLite index image: the database where its label says.
  const db = path.join(tmp.dir, 'db', 'index.db');
  mkdirSync(path.dirname(db));
  sqlite3(db, `${schemaSql(13)}\n${rowsSql('foo', 'stable', BUNDLES)}`);
  const index = await buildImage({
    layers: [{ dir: path.dirname(db), prefix: 'database' }],
    labels: { 'operators.operatorframework.io.index.database.v1': '/database/index.db' },
  });
  await pushImage(index, { url: registry.url, repo: 'index/sqlite', tag: 'v1' });
  const unlabelled = await buildImage({ layers: [{ entries: [{ name: 'x', content: 'x' }] }], labels: {} });
  await pushImage(unlabelled, { url: registry.url, repo: 'other/thing', tag: 'v1' });
}, PATIENCE_MS * 2);

afterAll(async () => {
  await (registry as RegistryProcess | undefined)?.stop();
  (tmp as ReturnType<typeof tempDir> | undefined)?.remove();
});

describe.runIf(haveTools)('opm serve <image reference>', () => {
  it('the catalog image opm image build makes: served from its cache, probed and queried', async () => {
    const ref = `${registry.host}/catalogs/mixed:v1`;
    const s = await serveImage(ref);
    const c = registryClient(s.port);
    try {
      expect(health(s.port)).toBe('status: SERVING\n');
      expect(grpc(s.port, 'list').split('\n')).toContain('api.Registry');
      const pkg = JSON.parse(grpc(s.port, '-d', '{"name":"alpha-op"}', 'api.Registry/GetPackage')) as {
        defaultChannelName: string;
      };
      expect(pkg.defaultChannelName).toBe('stable');
      const got = await probe(c, { customSchemas });
      expect(got).toEqual(JSON.parse(readFileSync(path.join(fixture, 'expected.json'), 'utf8')));
    } finally {
      c.close();
      expect(await s.stop()).toBe(0);
    }
    const log = s.stderr();
    expect(log).toMatch(
      new RegExp(
        `level=info msg="pulled image" digest="?sha256:[0-9a-f]{64}"? image="?${ref.replaceAll('.', '\\.')}"?\n`,
      ),
    );
    // The image's own cache, current: found and served without a rebuild or a warning.
    expect(log).toContain('msg="found existing cache contents" backend=pogreb.v1');
    expect(log).toMatch(/msg="serving registry" cache=\S+\/tmp\/cache configs=\S+\/configs port=\d+/);
    expect(log).not.toContain('level=warning');
    expect(log).not.toContain('building cache');
    expect(readdirSync(scratch).filter((f) => f.startsWith('opm-unpack-'))).toEqual([]);
  });

  it('an image with /configs only: served from its files', async () => {
    const s = await serveImage(`${registry.host}/catalogs/plain:v1`);
    const c = registryClient(s.port);
    try {
      expect(health(s.port)).toBe('status: SERVING\n');
      const got = await probe(c, { customSchemas });
      expect(got).toEqual(JSON.parse(readFileSync(path.join(fixture, 'expected.json'), 'utf8')));
    } finally {
      c.close();
      expect(await s.stop()).toBe(0);
    }
    expect(s.stderr()).toMatch(/msg="serving registry" configs=\S+\/configs port=\d+/);
    expect(s.stderr()).not.toContain('cache=');
  });

  it('a SQLite index image: its database served as registry serve serves it', async () => {
    const s = await serveImage(`${registry.host}/index/sqlite:v1`);
    try {
      expect(health(s.port)).toBe('status: SERVING\n');
      expect(JSON.parse(grpc(s.port, 'api.Registry/ListPackages'))).toEqual({ name: 'foo' });
      const pkg = JSON.parse(grpc(s.port, '-d', '{"name":"foo"}', 'api.Registry/GetPackage')) as unknown;
      expect(pkg).toEqual({
        name: 'foo',
        channels: [{ name: 'stable', csvName: 'foo.v1.1.0' }],
        defaultChannelName: 'stable',
      });
    } finally {
      expect(await s.stop()).toBe(0);
    }
    expect(s.stderr()).toMatch(/msg="serving registry" database=\S+\/database\/index\.db port=\d+/);
    expect(readdirSync(scratch).filter((f) => f.startsWith('opm-unpack-'))).toEqual([]);
  });

  it('an image that is no catalog, and one that is not there: one fatal line, exit 1', () => {
    const other = opm(['serve', `${registry.host}/other/thing:v1`, '-t', '/dev/null']);
    expect(other.status).toBe(1);
    expect(other.stderr).toMatch(
      /level=fatal msg="serve \\"127\.0\.0\.1:\d+\/other\/thing:v1\\": not a catalog image: image has no labels" hint="a catalog image has label operators\.operatorframework\.io\.index\.configs\.v1, a SQLite index image operators\.operatorframework\.io\.index\.database\.v1"\n$/,
    );
    const missing = opm(['serve', `${registry.host}/catalogs/nothing:v1`, '-t', '/dev/null']);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(
      /level=fatal msg="failed to pull image \\"127\.0\.0\.1:\d+\/catalogs\/nothing:v1\\": /,
    );
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    // A name without a registry is a missing directory, as before: nothing is pulled.
    const bare = opm(['serve', 'no-such-catalog', '-t', '/dev/null']);
    expect(bare.status).toBe(1);
    expect(bare.stderr).toContain('catalog directory \\"no-such-catalog\\" does not exist');
  });
});
