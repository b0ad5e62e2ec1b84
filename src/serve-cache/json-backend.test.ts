// integration: runs the Go toolchain (go run) for the tar-stream oracle of the json layout's digest
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openServeCache } from './cache.js';
import { encodePackageIndex } from './packages-json.js';
import type { PackageIndex } from '../catalog-queries/package-index.js';
import { decodeBundle } from '../api-contract/messages.js';
import { decodeStruct } from '../protobuf/struct.js';
import { jsonBackendDigest } from './json-backend.js';

const FIXTURE = path.resolve('testdata/serve-cache/basic/catalog');
const ORACLE = path.resolve('testdata/serve-cache/json-digest/main.go');
const haveGo = spawnSync('go', ['version']).status === 0;
if (!haveGo) console.warn('\n*** SKIPPED json-backend.test.ts: it needs the Go toolchain (go) ***\n');

const work = mkdtempSync(path.join(tmpdir(), 'opm-json-cache-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function goDigest(catalog: string, cacheDir: string): string {
  const r = spawnSync('go', ['run', ORACLE, catalog, cacheDir], { encoding: 'utf8', cwd: work });
  if (r.status !== 0) throw new Error(`oracle failed: ${r.stderr}`);
  return r.stdout.trim();
}

const index: PackageIndex = new Map([
  [
    'etcd',
    {
      name: 'etcd',
      description: '',
      icon: null,
      defaultChannel: 'alpha',
      channels: new Map([
        [
          'alpha',
          {
            name: 'alpha',
            head: 'etcd.v0.9.2',
            bundles: new Map([
              [
                'etcd.v0.9.2',
                { package: 'etcd', channel: 'alpha', name: 'etcd.v0.9.2', replaces: '', skips: null },
              ],
            ]),
          },
        ],
      ]),
    },
  ],
]);

/** A json-layout cache as older opm versions wrote it. */
function jsonCache(dir: string): void {
  const cache = path.join(dir, 'cache');
  mkdirSync(path.join(cache, 'metas/my.custom/etcd'), { recursive: true, mode: 0o750 });
  writeFileSync(path.join(cache, 'packages.json'), encodePackageIndex(index), { mode: 0o640 });
  writeFileSync(
    path.join(cache, 'etcd_alpha_etcd.v0.9.2.json'),
    JSON.stringify({
      csvName: 'etcd.v0.9.2',
      packageName: 'etcd',
      channelName: 'alpha',
      bundlePath: 'quay.io/example/etcd-bundle:v0.9.2',
      providedApis: [{ group: 'etcd.database.coreos.com', version: 'v1beta2', kind: 'EtcdCluster' }],
      properties: [{ type: 'olm.package', value: '{"packageName":"etcd","version":"0.9.2"}' }],
      skips: ['etcd.v0.9.1'],
      deprecation: { message: 'old' },
    }),
    { mode: 0o640 },
  );
  writeFileSync(
    path.join(cache, 'metas/my.custom/etcd/0123456789abcdef.json'),
    '{"schema":"my.custom","n":2}\n',
  );
  writeFileSync(path.join(cache, 'metas/my.custom/etcd/notes.txt'), 'not a blob');
}

describe.skipIf(!haveGo)('the json layout', () => {
  it("hashes the catalog and cache/ as Go's archive/tar writes them", async () => {
    const catalog = path.join(work, 'catalog');
    cpSync(FIXTURE, catalog, { recursive: true });
    // A long path (USTAR prefix and name), odd modes, a symlink (left out), an empty file.
    const deep = path.join(catalog, 'a'.repeat(60), 'b'.repeat(60));
    mkdirSync(deep, { recursive: true });
    writeFileSync(path.join(deep, `${'c'.repeat(90)}.json`), '{}');
    writeFileSync(path.join(catalog, 'empty.json'), '');
    chmodSync(path.join(catalog, 'empty.json'), 0o600);
    chmodSync(path.join(catalog, 'a'.repeat(60)), 0o2755);
    symlinkSync('etcd', path.join(catalog, 'link'));
    const dir = path.join(work, 'cache-dir');
    jsonCache(dir);
    const digest = goDigest(catalog, dir);
    expect(await jsonBackendDigest(catalog, path.join(dir, 'cache'))).toBe(digest);

    writeFileSync(path.join(dir, 'digest'), `${digest}\n`);
    const cache = openServeCache(dir);
    expect(cache.detection).toEqual({ backend: 'json', existing: true });
    await cache.checkIntegrity(catalog);
    // Modes count in this layout.
    chmodSync(path.join(catalog, 'empty.json'), 0o644);
    await expect(cache.checkIntegrity(catalog)).rejects.toThrow(/^cache requires rebuild: /);
  });

  it('reads packages.json, bundles as protobuf, and the custom blobs', () => {
    const dir = path.join(work, 'read');
    jsonCache(dir);
    writeFileSync(path.join(dir, 'digest'), '0000000000000000');
    const cache = openServeCache(dir);
    expect(cache.packageIndex()).toEqual(index);
    const b = decodeBundle(cache.bundle('etcd', 'alpha', 'etcd.v0.9.2') as Uint8Array);
    expect([b.csvName, b.bundlePath, b.providedApis[0]?.kind, b.skips, b.deprecation]).toEqual([
      'etcd.v0.9.2',
      'quay.io/example/etcd-bundle:v0.9.2',
      'EtcdCluster',
      ['etcd.v0.9.1'],
      { message: 'old' },
    ]);
    expect(cache.bundle('etcd', 'alpha', 'missing')).toBeUndefined();
    expect(cache.metas('my.custom', 'etcd').map(decodeStruct)).toEqual([{ schema: 'my.custom', n: 2 }]);
    expect(cache.metas('my.custom', 'other')).toEqual([]);
  });
});
