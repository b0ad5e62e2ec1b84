// needs-build: it loads, validates, renders and hashes on worker threads from dist/ (the compiled modules and the command line's bundle, with their worker bundles).
/**
 * Worker threads from the build: the compiled library (dist/index.js and dist/action/) and the
 * command line (bin/opm.js over dist/opm.cjs) start the bundles scripts/bundle.js writes
 * (dist/*-worker.cjs), and give what one thread gives. From the sources the same paths are tested
 * by the unit and integration tests (src/declcfg/load-pool.test.ts, test/validate/threads.test.ts,
 * test/render/threads.test.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type * as RenderOutput from '../../src/action/render/render-output.js';
import type * as Digest from '../../src/serve-cache/digest.js';
import type * as Hash from '../../src/serve-cache/hash.js';
import type * as Library from '../../src/index.js';
import { projectRoot } from '../corpus.js';
import { workersStartedBy } from '../worker-pool/workers-started.js';

const root = projectRoot();
const dist = (rel: string): Promise<unknown> => import(pathToFileURL(path.join(root, 'dist', rel)).href);
const ordered = path.join(root, 'testdata/render/threaded-order');

describe('the compiled library on worker threads', () => {
  it('loads a catalog on 3 threads as on one', async () => {
    const lib = (await dist('index.js')) as typeof Library;
    const dir = path.join(ordered, 'catalog');
    const one = await lib.loadCatalogDir(dir, { threads: 1 });
    const many = await workersStartedBy(() => lib.loadCatalogDir(dir, { threads: 3, workerMinBytes: 0 }));
    expect(many.started).toBe(2);
    expect(many.result).toStrictEqual(one);
  });

  it('validates a catalog in shards on 2 threads as on one', async () => {
    const lib = (await dist('index.js')) as typeof Library;
    const dir = path.join(root, 'testdata/validate/lint-dependency-package-unsatisfied/catalog');
    const one = await lib.validateCatalog(dir, { threads: 1 });
    const many = await workersStartedBy(() => lib.validateCatalog(dir, { threads: 2, shardMinBytes: 0 }));
    expect(many.started).toBe(1);
    expect(many.result).toStrictEqual(one);
  });

  it('renders a catalog file by file on 3 threads, in opm order', async () => {
    const { renderOutput } = (await dist('action/render/render-output.js')) as typeof RenderOutput;
    const rendered = await workersStartedBy(async () => {
      const parts: Buffer[] = [];
      const chunks = await renderOutput(
        { refs: [path.join(ordered, 'catalog')], threads: 3, parallelMinBytes: 0 },
        'json',
      );
      for (const c of chunks) parts.push(Buffer.from(c));
      return Buffer.concat(parts).toString('utf8');
    });
    expect(rendered.started).toBe(2);
    expect(rendered.result).toBe(readFileSync(path.join(ordered, 'expected.json'), 'utf8'));
  });
});

describe('the serve cache digest on worker threads', () => {
  it('hashes a catalog on 3 threads as on one (dist/digest-worker.cjs)', async () => {
    const { hashCatalogBlobs } = (await dist('serve-cache/digest.js')) as typeof Digest;
    const { Fnv1a64 } = (await dist('serve-cache/hash.js')) as typeof Hash;
    const dir = path.join(ordered, 'catalog');
    const one = new Fnv1a64();
    await hashCatalogBlobs(dir, one, { threads: 1 });
    const many = await workersStartedBy(async () => {
      const h = new Fnv1a64();
      await hashCatalogBlobs(dir, h, { threads: 3, workerMinBytes: 0 });
      return h.hex();
    });
    expect(many.started).toBe(2);
    expect(many.result).toBe(one.hex());
  });
});

describe('the command line on worker threads', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'opm-workers-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('validates a catalog of 32 MiB and more in shards on OPM_THREADS=2', () => {
    // Two packages in folders of their own, each bundle carrying a 17 MB property: the size from
    // which validate uses threads (SHARD_MIN_BYTES), with as little to parse as that allows.
    const catalog = path.join(tmp, 'catalog');
    for (const name of ['alpha', 'beta']) {
      mkdirSync(path.join(catalog, name), { recursive: true });
      const blobs = [
        { schema: 'olm.package', name, defaultChannel: 'stable' },
        { schema: 'olm.channel', package: name, name: 'stable', entries: [{ name: `${name}.v1.0.0` }] },
        {
          schema: 'olm.bundle',
          package: name,
          name: `${name}.v1.0.0`,
          image: `example.com/${name}:v1.0.0`,
          properties: [
            { type: 'olm.package', value: { packageName: name, version: '1.0.0' } },
            { type: 'example.com/filler', value: 'x'.repeat(17 * 1024 * 1024) },
          ],
        },
      ];
      writeFileSync(path.join(catalog, name, 'catalog.json'), blobs.map((b) => JSON.stringify(b)).join('\n'));
    }
    const run = (threads: string) =>
      spawnSync(
        process.execPath,
        [
          '--require',
          path.join(root, 'test/worker-pool/count-workers.cjs'),
          path.join(root, 'bin/opm.js'),
          'validate',
          catalog,
        ],
        {
          encoding: 'utf8',
          env: { ...process.env, OPM_THREADS: threads },
        },
      );
    const one = run('1');
    const two = run('2');
    expect(one.stderr).toContain('worker threads started: 0');
    expect(two.stderr).toContain('worker threads started: 1');
    expect({ status: two.status, stdout: two.stdout }).toStrictEqual({
      status: one.status,
      stdout: one.stdout,
    });
    expect(two.status).toBe(0);
  });
});
