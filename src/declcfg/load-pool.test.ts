import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { corpusPath, haveCorpus } from '../../test/corpus.js';
import { loadCatalogDir, walkCatalog } from './load.js';
import { DEFAULT_MAX_THREADS, LARGE_CATALOG_BYTES, threadCount } from './load-pool.js';
import { workersStartedBy } from '../../test/worker-pool/workers-started.js';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../testdata/load');

describe('threadCount', () => {
  it('takes the requested count, else OPM_THREADS, else the available parallelism (capped)', () => {
    const auto = Math.min(availableParallelism(), DEFAULT_MAX_THREADS);
    expect(threadCount(3, { OPM_THREADS: '5' })).toBe(3);
    expect(threadCount(undefined, { OPM_THREADS: '5' })).toBe(5);
    expect(threadCount(undefined, { OPM_THREADS: ' 1 ' })).toBe(1);
    for (const bad of ['0', '-2', 'many', '1.5', ''])
      expect(threadCount(undefined, { OPM_THREADS: bad })).toBe(auto);
    expect(threadCount(0, {})).toBe(auto);
    expect(threadCount(undefined, { OPM_THREADS: '16' })).toBe(16);
    expect(threadCount(undefined, { OPM_THREADS: '1000' })).toBe(64);
  });

  it('uses at most 2 threads by default on catalogs of LARGE_CATALOG_BYTES and more, as many as asked for', () => {
    const large = LARGE_CATALOG_BYTES;
    expect(threadCount(undefined, {}, large)).toBe(Math.min(availableParallelism(), 2));
    expect(threadCount(undefined, {}, large - 1)).toBe(Math.min(availableParallelism(), DEFAULT_MAX_THREADS));
    expect(threadCount(undefined, { OPM_THREADS: '4' }, large)).toBe(4);
    expect(threadCount(3, {}, large)).toBe(3);
  });
});

describe('loading on worker threads', () => {
  // Every bad-input fixture: the same blobs and the same findings, with file and line, as in-thread.
  const cases = readdirSync(fixtures, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  it.each(cases)('%s gives the same result on 3 threads as on one', async (name) => {
    const dir = path.join(fixtures, name, 'catalog');
    const one = await loadCatalogDir(dir, { threads: 1 });
    const many = await workersStartedBy(() => loadCatalogDir(dir, { threads: 3, workerMinBytes: 0 }));
    expect(many.result).toStrictEqual(one);
    const files = (await walkCatalog(dir)).files.length;
    expect(many.started).toBe(Math.min(3, files) - 1);
  });

  it('elided payloads and decode options reach the workers', async () => {
    const dir = path.join(fixtures, 'decode-errors', 'catalog');
    const one = await loadCatalogDir(dir, { threads: 1, elidePayloads: true });
    const many = await loadCatalogDir(dir, { threads: 2, workerMinBytes: 0, elidePayloads: true });
    expect(many).toStrictEqual(one);
  });
});

describe.runIf(haveCorpus())('the corpus on worker threads', () => {
  it('community-catalog-v4.21 loads the same on 1, 2 and 4 threads', async () => {
    const dir = corpusPath('community-catalog-v4.21');
    const one = await loadCatalogDir(dir, { threads: 1 });
    for (const threads of [2, 4]) {
      const many = await loadCatalogDir(dir, { threads, workerMinBytes: 0 });
      expect(many).toStrictEqual(one);
    }
  });
});
