// needs-build: the rendering workers run dist/render-worker.cjs.
/**
 * Rendering a catalog directory on several threads gives the bytes, warnings and errors of
 * rendering it on one: over every catalog fixture (clean ones take the threaded path, the others
 * fall back to the ordinary one) and over the corpus catalog.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderOnThreads, renderOutput, type RenderFormat } from '../../src/action/render-output.js';
import { workerScript } from '../../src/declcfg/load-pool.js';
import type { DroppedBlob } from '../../src/declcfg/write.js';
import { formatPosition, OpmError } from '../../src/errors.js';
import { corpusPath, haveCorpus, projectRoot } from '../corpus.js';

const root = projectRoot();

interface Rendered {
  output: string;
  warnings: string[];
  dropped: DroppedBlob[];
  error?: string;
}

async function renderWith(dir: string, format: RenderFormat, threads: number): Promise<Rendered> {
  const warnings: string[] = [];
  const dropped: DroppedBlob[] = [];
  const parts: Buffer[] = [];
  try {
    const chunks = await renderOutput(
      { refs: [dir], cwd: root, threads, parallelMinBytes: 0, onWarning: (m) => warnings.push(m) },
      format,
      { onDropped: (b) => dropped.push(b) },
    );
    // Chunks may share a buffer: each is copied before the next is asked for.
    for (const c of chunks) parts.push(Buffer.from(typeof c === 'string' ? Buffer.from(c) : c));
  } catch (err) {
    const error = err instanceof OpmError ? formatPosition(err.at) + err.message : String(err);
    return { output: Buffer.concat(parts).toString('utf8'), warnings, dropped, error };
  }
  return { output: Buffer.concat(parts).toString('utf8'), warnings, dropped };
}

/** Every catalog directory among the fixtures (relative to the project root). */
function catalogFixtures(): string[] {
  const out: string[] = [];
  for (const group of ['testdata/load', 'testdata/validate', 'testdata/render']) {
    for (const name of readdirSync(path.join(root, group)).sort()) {
      const dir = path.join(group, name, 'catalog');
      if (existsSync(path.join(root, dir))) out.push(dir);
    }
  }
  return out;
}

describe('rendering on worker threads', () => {
  it('finds the bundled worker (npm run build writes it)', () => {
    expect(workerScript('render-worker.cjs')).toMatch(/render-worker\.cjs$/);
  });

  const fixtures = catalogFixtures();
  it('has catalog fixtures to compare', () => {
    expect(fixtures.length).toBeGreaterThan(50);
  });

  for (const format of ['json', 'yaml'] as const) {
    it.each(fixtures)(`%s: -o ${format} on 3 threads is what it is on one`, async (dir) => {
      const one = await renderWith(dir, format, 1);
      const many = await renderWith(dir, format, 3);
      expect(many).toStrictEqual(one);
    });
  }

  // Blobs of every kind spread over three files: package names in byte order (non-ASCII last),
  // channels and bundles by name, others by schema, deprecations and package-less others in walk
  // order (opm's own order across files is random), bundle properties and related images sorted.
  const ordered = 'testdata/render/threaded-order';
  it.each(['json', 'yaml'] as const)(`${ordered}: -o %s on 3 threads, in opm's order`, async (format) => {
    const dir = path.join(ordered, 'catalog');
    expect(
      await renderOnThreads({ refs: [dir], cwd: root, threads: 3, parallelMinBytes: 0 }, format),
    ).toHaveLength(3);
    const r = await renderWith(dir, format, 3);
    expect(r.warnings).toEqual([]);
    await expect(r.output).toMatchFileSnapshot(path.join(root, ordered, `expected.${format}`));
  });

  it('takes the threaded path for a clean catalog of several files, and not for one with findings', async () => {
    const clean = 'testdata/validate/valid-package-across-folders/catalog';
    const encoded = await renderOnThreads(
      { refs: [clean], cwd: root, threads: 2, parallelMinBytes: 0 },
      'json',
    );
    expect(encoded?.length).toBeGreaterThan(1);
    const withFindings = 'testdata/load/duplicate-keys/catalog';
    expect(
      await renderOnThreads({ refs: [withFindings], cwd: root, threads: 2, parallelMinBytes: 0 }, 'json'),
    ).toBeNull();
    // One thread, a migration, or more than one ref: the ordinary path.
    expect(
      await renderOnThreads({ refs: [clean], cwd: root, threads: 1, parallelMinBytes: 0 }, 'json'),
    ).toBeNull();
    expect(
      await renderOnThreads(
        { refs: [clean], cwd: root, threads: 2, parallelMinBytes: 0, migrateLevel: 'all' },
        'json',
      ),
    ).toBeNull();
    expect(
      await renderOnThreads({ refs: [clean, clean], cwd: root, threads: 2, parallelMinBytes: 0 }, 'json'),
    ).toBeNull();
  });

  it('refuses a bad image reference template as the ordinary path does', async () => {
    const clean = 'testdata/validate/valid-package-across-folders/catalog';
    const opts = { refs: [clean], cwd: root, parallelMinBytes: 0, imageRefTemplate: '{{' };
    const outcome = (threads: number): Promise<string> =>
      renderOutput({ ...opts, threads }, 'json').then(
        () => 'rendered',
        (err: unknown) => (err instanceof Error ? err.message : String(err)),
      );
    const one = await outcome(1);
    expect(one).toMatch(/image reference template/);
    expect(await outcome(2)).toBe(one);
  });
});

describe.runIf(haveCorpus())('the corpus catalog on worker threads', () => {
  it('community-catalog-v4.21 renders the same on 1, 2 and 4 threads, in JSON and YAML', async () => {
    const dir = corpusPath('community-catalog-v4.21');
    expect(await renderOnThreads({ refs: [dir], threads: 2, parallelMinBytes: 0 }, 'json')).not.toBeNull();
    for (const format of ['json', 'yaml'] as const) {
      const one = await renderWith(dir, format, 1);
      expect(one.error).toBeUndefined();
      for (const threads of [2, 4]) expect(await renderWith(dir, format, threads)).toStrictEqual(one);
    }
  });
});
