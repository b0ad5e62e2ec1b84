// needs-build: it starts `bin/opm.js serve` (dist/opm.cjs) and calls it over gRPC.
/**
 * `opm serve` as a process on 127.0.0.1, called by a @grpc/grpc-js client that decodes with
 * @grpc/proto-loader from our registry.proto (not the server's codec): every RPC on the fixture
 * (testdata/serve/mixed: olm.csv.metadata with a package icon, an image-less bundle with its
 * manifests, deprecations, custom schemas, a bundle in two channels) against its expected answers
 * (expected.json, written by the code with UPDATE_FIXTURES=1 and reviewed; test/reference/serve
 * checks the same answers against the reference opm). Then the process behaviour: graceful stop
 * with exit 0, the failures of start-up as one fatal line with exit 1 and nothing listening.
 */
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, OPM, registryClient, startServe } from './client.js';
import { probe } from './probe.js';
import { PATIENCE_MS } from '../patience.js';

const fixture = 'testdata/serve/mixed';
const customSchemas = [
  { schema: 'acme.note', packageName: 'alpha-op' },
  { schema: 'acme.note', packageName: '' },
];
const tmp = mkdtempSync(path.join(os.tmpdir(), 'opm-serve-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('opm serve: every RPC', () => {
  it('answers as expected.json says (manifests, synthesised CSV, errors, health)', async () => {
    const s = await startServe(path.join(fixture, 'catalog'));
    const c = registryClient(s.port);
    try {
      const got = await probe(c, { customSchemas });
      const expectedFile = path.join(fixture, 'expected.json');
      const text = `${JSON.stringify(got, null, 2)}\n`;
      if (process.env.UPDATE_FIXTURES === '1' || !existsSync(expectedFile)) writeFileSync(expectedFile, text);
      expect(got).toEqual(JSON.parse(readFileSync(expectedFile, 'utf8')));
    } finally {
      c.close();
      expect(await s.stop()).toBe(0);
    }
    const log = s.stderr();
    expect(log).toMatch(
      /^time="[^"]+" level=info msg="serving registry" configs=testdata\/serve\/mixed\/catalog port=\d+$/m,
    );
    expect(log).toMatch(
      /level=info msg="finished call" :authority="\[127\.0\.0\.1:\d+\]" content-type="\[application\/grpc\]" grpc.code=OK grpc.component=server grpc.method=ListBundles grpc.method_type=server_stream grpc.service=api.Registry /,
    );
    expect(log).toMatch(
      /level=error msg="finished call" .*grpc.code=Unknown grpc.component=server grpc.error="package \\"no-such-package\\" not found" grpc.method=GetPackage /,
    );
    expect(log).toMatch(/level=info msg="shutting down server"/);
  });

  it('the synthesised CSV has the operator-framework field order and the package icon', () => {
    const expected = JSON.parse(readFileSync(path.join(fixture, 'expected.json'), 'utf8')) as Record<
      string,
      { csvJson: string; object: string[] }
    >;
    const b = expected['GetBundle alpha-op stable alpha-op.v1.0.0'];
    expect(b).toBeDefined();
    const csv = JSON.parse(b?.csvJson ?? '{}') as Record<string, Record<string, unknown>>;
    expect(Object.keys(csv)).toEqual(['kind', 'apiVersion', 'metadata', 'spec', 'status']);
    expect(Object.keys(csv.spec ?? {})).toEqual([
      'install',
      'version',
      'maturity',
      'customresourcedefinitions',
      'apiservicedefinitions',
      'minKubeVersion',
      'displayName',
      'description',
      'keywords',
      'maintainers',
      'provider',
      'links',
      'icon',
      'installModes',
      'cleanup',
      'relatedImages',
    ]);
    expect(csv.spec?.description).toBe('The alpha operator.');
    expect(csv.spec?.icon).toEqual([{ base64data: 'PHN2Zy8+', mediatype: 'image/svg+xml' }]);
    expect(b?.csvJson).toContain('\\u003cfor\\u003e you \\u0026 me');
    expect(b?.object).toEqual([b?.csvJson]);
  });
});

describe('opm serve: the process', () => {
  it('serves repeated ListBundles and health checks, then stops with exit 0', async () => {
    const s = await startServe(path.join(fixture, 'catalog'));
    const c = registryClient(s.port);
    try {
      for (let i = 0; i < 3; i++) expect((await c.stream('ListBundles', {})).length).toBe(6);
      expect(await c.health('')).toEqual({ status: 'SERVING' });
    } finally {
      c.close();
      expect(await s.stop()).toBe(0);
    }
  });

  const run = (args: string[]) =>
    spawnSync(process.execPath, [OPM, 'serve', ...args], { encoding: 'utf8', timeout: PATIENCE_MS });

  it('a port in use: one fatal line, exit 1, also in the termination log', async () => {
    const port = await freePort();
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(port, resolve));
    try {
      const term = path.join(tmp, 'termination-log');
      const r = run([path.join(fixture, 'catalog'), '-p', String(port), '-t', term]);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(
        new RegExp(
          `^time="[^"]+" level=fatal msg="failed to listen: listen tcp :${port}: bind: address already in use"\\n$`,
        ),
      );
      expect(readFileSync(term, 'utf8')).toContain('level=fatal msg="failed to listen');
    } finally {
      blocker.close();
    }
  });

  it('a bad catalog: the model error of its package, exit 1, nothing listening', async () => {
    const port = await freePort();
    const r = run([
      'testdata/validate/bundle-package-property-count/catalog',
      '-p',
      String(port),
      '-t',
      '/dev/null',
    ]);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /level=fatal msg="failed to load or rebuild cache: failed to rebuild cache: build package index: process package \\"[^"\\]+\\": /,
    );
    expect(r.stdout).toBe('');
  });

  it('--debug before or after the command name turns debug lines on; a fatal line carries the hint', async () => {
    for (const args of [
      ['--debug', 'serve'],
      ['serve', '--debug'],
    ]) {
      const port = await freePort();
      const r = spawnSync(
        process.execPath,
        [
          OPM,
          ...args,
          path.join(fixture, 'catalog'),
          '-p',
          String(port),
          '-t',
          '/dev/null',
          '--http-addr',
          'a:b:c',
        ],
        { encoding: 'utf8', timeout: PATIENCE_MS },
      );
      expect(r.status).toBe(1);
      // The bad address is refused before the catalog loads; with --debug the stack follows the line.
      expect(r.stderr).toMatch(
        /^time="[^"]+" level=fatal msg="invalid --http-addr \\"a:b:c\\": [^"]+" hint="give host:port[^"]*"\n/,
      );
      expect(r.stderr.split('\n').length).toBeGreaterThan(3);
    }
  });

  it('a missing directory; --cache-dir without a cache, enforcing; enforcing without --cache-dir', () => {
    const missing = run([path.join(tmp, 'nope'), '-t', '/dev/null']);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(
      /level=fatal msg="failed to load or rebuild cache: failed to rebuild cache: catalog directory .* does not exist or cannot be read"/,
    );
    const cache = run([
      path.join(fixture, 'catalog'),
      '--cache-dir',
      path.join(tmp, 'cache'),
      '--cache-enforce-integrity=true',
      '-t',
      '/dev/null',
    ]);
    expect(cache.status).toBe(1);
    expect(cache.stderr).toMatch(
      /^time="[^"]+" level=info msg="cache directory is empty, using preferred backend" backend=pogreb.v1 cache=.*\ntime="[^"]+" level=fatal msg="integrity check failed: read existing cache digest: open .*\/cache\/pogreb.v1\/digest: no such file or directory"\n$/,
    );
    const enforce = run([path.join(fixture, 'catalog'), '--cache-enforce-integrity', '-t', '/dev/null']);
    expect(enforce.status).toBe(1);
    expect(enforce.stderr).toContain('msg="--cache-dir must be specified with --cache-enforce-integrity"');
  });
});

// The on-disk cache: `--cache-only` builds it in opm's pogreb layout, the enforcing server starts
// from it and answers as the in-memory server does; a changed catalog is refused (enforcing) or
// rebuilt (not enforcing). test/reference/serve.test.ts checks each opm serves the other's cache.
describe('opm serve --cache-dir', () => {
  const catalog = path.join(fixture, 'catalog');
  const run = (args: string[]) =>
    spawnSync(process.execPath, [OPM, 'serve', ...args, '-t', '/dev/null'], {
      encoding: 'utf8',
      timeout: PATIENCE_MS,
    });
  const mode = (f: string): string => (statSync(f).mode & 0o777).toString(8);

  it('--cache-only builds the cache, then the enforcing server answers as expected.json says', async () => {
    const cache = path.join(tmp, 'built');
    const built = run([catalog, '--cache-dir', cache, '--cache-only']);
    expect(built.status, built.stderr).toBe(0);
    const lines = built.stderr.trim().split('\n');
    expect(lines.map((l) => l.replace(/^time="[^"]+" /, ''))).toEqual([
      `level=info msg="cache directory is empty, using preferred backend" backend=pogreb.v1 cache=${cache} configs=${catalog}`,
      `level=info msg="building cache" cache=${cache} configs=${catalog}`,
    ]);
    expect(readdirSync(cache)).toEqual(['pogreb.v1']);
    expect(readFileSync(path.join(cache, 'pogreb.v1/digest'), 'utf8')).toMatch(/^[0-9a-f]{16}$/);
    expect(mode(path.join(cache, 'pogreb.v1/digest'))).toBe('660');
    expect(mode(path.join(cache, 'pogreb.v1/db'))).toBe('770');
    for (const f of readdirSync(path.join(cache, 'pogreb.v1/db')))
      expect(mode(path.join(cache, 'pogreb.v1/db', f))).toBe('660');

    expect(mode(path.join(cache, 'pogreb.v1/opm-ts.sums'))).toBe('660');

    // A second --cache-only finds it current by its fingerprint (said with --debug), and does not build.
    const again = run([catalog, '--cache-dir', cache, '--cache-only', '--debug']);
    expect(again.status).toBe(0);
    expect(again.stderr).toContain('msg="found existing cache contents" backend=pogreb.v1');
    expect(again.stderr).toContain(`level=debug msg="integrity checked by fingerprint" cache=${cache}`);
    expect(again.stderr).not.toContain('building cache');

    const s = await startServe(catalog, { extra: ['--cache-dir', cache] });
    const c = registryClient(s.port);
    try {
      const got = await probe(c, { customSchemas });
      expect(got).toEqual(JSON.parse(readFileSync(path.join(fixture, 'expected.json'), 'utf8')));
    } finally {
      c.close();
      expect(await s.stop()).toBe(0);
    }
  });

  it('a changed catalog: refused with both digests when enforcing, rebuilt when not', () => {
    const cache = path.join(tmp, 'stale');
    expect(run([catalog, '--cache-dir', cache, '--cache-only']).status).toBe(0);
    const changed = path.join(tmp, 'changed');
    cpSync(catalog, changed, { recursive: true });
    writeFileSync(path.join(changed, 'extra.json'), '{"schema":"acme.note","package":"alpha-op","n":1}\n');
    const refused = run([changed, '--cache-dir', cache, '-p', '0', '--cache-enforce-integrity=true']);
    expect(refused.status).toBe(1);
    const lines = refused.stderr.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(
      /level=warning msg="cache requires rebuild" cache=\S+ computedDigest=[0-9a-f]{16} configs=\S+ existingDigest=[0-9a-f]{16}$/,
    );
    expect(lines[2]).toMatch(
      /level=fatal msg="integrity check failed: cache requires rebuild: cache reports digest as \\"[0-9a-f]{16}\\", but computed digest is \\"[0-9a-f]{16}\\""$/,
    );
    const rebuilt = run([changed, '--cache-dir', cache, '--cache-only']);
    expect(rebuilt.status, rebuilt.stderr).toBe(0);
    expect(rebuilt.stderr).toContain('level=warning msg="cache requires rebuild"');
    expect(rebuilt.stderr).toContain('msg="building cache"');
    const current = run([changed, '--cache-dir', cache, '--cache-only', '--cache-enforce-integrity']);
    expect(current.status, current.stderr).toBe(0);
  });

  it('unexpected contents in the cache directory: one fatal line, exit 1', () => {
    const cache = path.join(tmp, 'junk');
    mkdirSync(cache);
    writeFileSync(path.join(cache, 'junk'), '');
    const r = run([catalog, '--cache-dir', cache, '--cache-only']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /^time="[^"]+" level=fatal msg="cache directory has unexpected contents: junk"\n$/,
    );
  });
});
