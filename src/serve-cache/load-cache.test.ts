import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadServedCatalog } from '../served-catalog/load.js';
import { memoryQueries } from '../served-catalog/memory.js';
import { decodeBundle, encodeBundle, encodeChannelEntry, encodePackage } from '../api-contract/messages.js';
import type { CatalogQueries } from '../catalog-queries/queries.js';
import type { LogFields } from '../util/log.js';
import { loadDiskCache } from './load-cache.js';

const CATALOG = path.resolve('testdata/serve/mixed/catalog');
const work = mkdtempSync(path.join(tmpdir(), 'opm-disk-cache-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

type Line = [string, string, LogFields];

async function open(cacheDir: string, enforceIntegrity: boolean, lines: Line[] = []) {
  return loadDiskCache(CATALOG, {
    cacheDir,
    enforceIntegrity,
    log: (level, msg, fields) => lines.push([level, msg, fields]),
    fields: { cache: cacheDir },
  });
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/**
 * Every answer of a registry, each message encoded as it goes on the wire; the channel-entry
 * streams as sets (their order is the index's map order, opm's too: compatibility row S6).
 */
async function answers(r: CatalogQueries): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  const add = (k: string, v: string): void => {
    (out[k] ??= []).push(v);
  };
  const settle = async (k: string, f: () => Promise<string> | string): Promise<void> => {
    try {
      add(k, await f());
    } catch (e) {
      add(k, `error: ${(e as Error).message}`);
    }
  };
  for (const p of [...r.listPackages()].sort()) {
    await settle('GetPackage', () => hex(encodePackage(r.getPackage(p))));
  }
  for (const key of r.listBundleKeys()) {
    await settle('ListBundles', async () => hex(encodeBundle(await r.listedBundle(key))));
    await settle('GetBundle', async () =>
      hex(encodeBundle(await r.getBundle(key.package, key.channel, key.name))),
    );
    await settle('GetBundleForChannel', async () =>
      hex(encodeBundle(await r.getBundleForChannel(key.package, key.channel))),
    );
    await settle('GetChannelEntriesThatReplace', () =>
      r
        .getChannelEntriesThatReplace(key.name)
        .map((e) => hex(encodeChannelEntry(e)))
        .sort()
        .join(','),
    );
    const bundle = await r.getBundle(key.package, key.channel, key.name);
    for (const g of bundle.providedApis) {
      const gvk = { group: g.group, version: g.version, kind: g.kind };
      await settle('GetChannelEntriesThatProvide', async () =>
        (await r.getChannelEntriesThatProvide(gvk))
          .map((e) => hex(encodeChannelEntry(e)))
          .sort()
          .join(','),
      );
      await settle('GetDefaultBundleThatProvides', async () =>
        hex(encodeBundle(await r.getDefaultBundleThatProvides(gvk))),
      );
    }
  }
  // The stream as the server sends it, twice: the second from the messages the first kept.
  for (const call of ['ListBundles stream', 'ListBundles stream again']) {
    const stream: string[] = [];
    for await (const m of r.listedMessages()) stream.push(hex(m));
    add(call, stream.join(','));
  }
  for (const [schema, pkg] of [
    ['acme.note', 'alpha-op'],
    ['acme.note', ''],
    ['olm.bundle', 'alpha-op'],
  ] as const) {
    const blobs: string[] = [];
    for await (const b of r.customSchemaBlobs(schema, pkg)) blobs.push(hex(b));
    add('ListPackageCustomSchemas', blobs.join(','));
  }
  return out;
}

describe('serving from the on-disk cache', () => {
  it('answers every query as the in-memory index does', async () => {
    const lines: Line[] = [];
    const cacheDir = path.join(work, 'same');
    const disk = await open(cacheDir, false, lines);
    try {
      expect(lines.map(([level, msg]) => `${level} ${msg}`)).toEqual([
        'info cache directory is empty, using preferred backend',
        'info building cache',
      ]);
      expect(lines[0]?.[2]).toEqual({ cache: cacheDir, backend: 'pogreb.v1' });
      const { cfg, model } = await loadServedCatalog(CATALOG);
      const restore = cfg.payloads === undefined ? undefined : cfg.payloads.restore.bind(cfg.payloads);
      const memory = memoryQueries(model, cfg.others, restore);
      const fromDisk = await answers(disk.queries);
      expect(fromDisk.GetBundle?.length).toBeGreaterThan(0);
      expect(fromDisk.ListPackageCustomSchemas?.[0]).not.toBe('');
      expect(fromDisk).toEqual(await answers(memory));
      // Bundles with an image and without one (their manifests sent), in list order.
      const listed = fromDisk.ListBundles ?? [];
      const sent = listed.map((m) => decodeBundle(Buffer.from(m, 'hex')));
      expect(new Set(sent.map((b) => b.bundlePath === '' && b.csvJson !== '')).size).toBe(2);
      expect(fromDisk['ListBundles stream']).toEqual([listed.join(',')]);
      expect(fromDisk['ListBundles stream again']).toEqual([listed.join(',')]);
    } finally {
      await disk.close();
    }
  });

  it('a current cache is opened without building; enforced, a missing one is refused', async () => {
    const cacheDir = path.join(work, 'current');
    await (await open(cacheDir, false)).close();
    const lines: Line[] = [];
    await (await open(cacheDir, true, lines)).close();
    // Built by opm-ts, so its fingerprint proves it current without the digest recomputed.
    expect(lines.map(([level, msg]) => `${level} ${msg}`)).toEqual([
      'info found existing cache contents',
      'debug integrity checked by fingerprint',
    ]);
    const missing = path.join(work, 'missing');
    await expect(open(missing, true)).rejects.toThrow(
      `integrity check failed: read existing cache digest: open ${missing}/pogreb.v1/digest: no such file or directory`,
    );
    expect(existsSync(missing)).toBe(false);
  });

  it('a stale cache in the older json layout is rebuilt in the pogreb layout', async () => {
    const cacheDir = path.join(work, 'json');
    mkdirSync(path.join(cacheDir, 'cache'), { recursive: true });
    writeFileSync(path.join(cacheDir, 'cache/packages.json'), '{}');
    writeFileSync(path.join(cacheDir, 'digest'), '0000000000000000');
    const lines: Line[] = [];
    const disk = await open(cacheDir, false, lines);
    try {
      expect(lines.map(([level, msg]) => `${level} ${msg}`)).toEqual([
        'info found existing cache contents',
        'warning cache requires rebuild',
        'info building cache',
      ]);
      expect(lines[0]?.[2].backend).toBe('json');
      expect(lines[1]?.[2].existingDigest).toBe('0000000000000000');
      expect(readdirSync(cacheDir)).toEqual(['pogreb.v1']);
      expect(disk.queries.listPackages().length).toBeGreaterThan(0);
    } finally {
      await disk.close();
    }
  });
});
