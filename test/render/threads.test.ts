// integration: every catalog fixture rendered on 1 and 3 threads, and the corpus catalog on 1, 2 and 4.
/**
 * Rendering a catalog directory file by file, in this thread or on several, gives the bytes,
 * warnings and errors of loading it whole and then writing it: over every catalog fixture (those
 * without errors take the file-by-file path, the others fall back to the ordinary one) and over the
 * corpus catalog.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  renderByFile,
  renderOutput,
  type RenderedByFile,
  type RenderFormat,
  type RenderOutputOptions,
} from '../../src/action/render-output.js';
import type { DroppedBlob } from '../../src/declcfg/write.js';
import { formatPosition, OpmError } from '../../src/errors.js';
import { corpusPath, haveCorpus, projectRoot } from '../corpus.js';
import { workersStartedBy } from '../worker-pool/workers-started.js';

const root = projectRoot();

interface Rendered {
  output: string;
  warnings: string[];
  dropped: DroppedBlob[];
  error?: string;
}

/** Render on `threads` threads, or (0) loaded whole and then written, the ordinary way. */
async function renderWith(dir: string, format: RenderFormat, threads: number): Promise<Rendered> {
  const warnings: string[] = [];
  const dropped: DroppedBlob[] = [];
  const parts: Buffer[] = [];
  const how = threads === 0 ? { threads: 1, byFile: false } : { threads };
  try {
    const chunks = await renderOutput(
      { refs: [dir], cwd: root, ...how, parallelMinBytes: 0, onWarning: (m) => warnings.push(m) },
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

describe('rendering file by file, in this thread and on worker threads', () => {
  const fixtures = catalogFixtures();
  it('has catalog fixtures to compare', () => {
    expect(fixtures.length).toBeGreaterThan(50);
  });

  for (const format of ['json', 'yaml'] as const) {
    it.each(fixtures)(
      `%s: -o ${format} file by file on 1 and 3 threads is what it is loaded whole`,
      async (dir) => {
        const whole = await renderWith(dir, format, 0);
        expect(await renderWith(dir, format, 1)).toStrictEqual(whole);
        expect(await renderWith(dir, format, 3)).toStrictEqual(whole);
        // The file-by-file path is taken unless the catalog has an error or a blob without a package.
        const byFile = await renderByFile({ refs: [dir], cwd: root, threads: 1 }, format);
        expect(byFile !== null).toBe(whole.error === undefined && whole.dropped.length === 0);
      },
    );
  }

  // Blobs of every kind spread over three files: package names in byte order (non-ASCII last),
  // channels and bundles by name, others by schema, deprecations and package-less others in walk
  // order (opm's own order across files is random), bundle properties and related images sorted.
  const ordered = 'testdata/render/threaded-order';
  it.each(['json', 'yaml'] as const)(`${ordered}: -o %s on 3 threads, in opm's order`, async (format) => {
    const dir = path.join(ordered, 'catalog');
    const byFile = await workersStartedBy(() =>
      renderByFile({ refs: [dir], cwd: root, threads: 3, parallelMinBytes: 0 }, format),
    );
    expect(byFile.started).toBe(2);
    expect(byFile.result?.files).toHaveLength(3);
    const r = await renderWith(dir, format, 3);
    expect(r.warnings).toEqual([]);
    await expect(r.output).toMatchFileSnapshot(path.join(root, ordered, `expected.${format}`));
  });

  it('renders a catalog file by file, on threads when asked, and not one with errors', async () => {
    const clean = 'testdata/validate/valid-package-across-folders/catalog';
    const how = (opts: Partial<RenderOutputOptions>): Promise<RenderedByFile | null> =>
      renderByFile({ refs: [clean], cwd: root, parallelMinBytes: 0, ...opts }, 'json');
    const threaded = await workersStartedBy(() => how({ threads: 2 }));
    expect(threaded.started).toBe(1);
    expect(threaded.result?.files.length).toBeGreaterThan(1);
    const inThread = await workersStartedBy(() => how({ threads: 1 }));
    expect(inThread.started).toBe(0);
    expect(inThread.result?.files).toStrictEqual(threaded.result?.files);
    // Under the size that pays for threads: in this thread.
    expect((await workersStartedBy(() => how({ threads: 2, parallelMinBytes: 1 << 30 }))).started).toBe(0);
    // Warnings are said by the file-by-file path (the fixtures above compare them); errors are not.
    const withWarnings = 'testdata/load/duplicate-keys/catalog';
    expect((await how({ refs: [withWarnings], threads: 1 }))?.files[0]?.warnings.length).toBeGreaterThan(0);
    const withErrors = 'testdata/load/yaml-syntax-error/catalog';
    expect(await how({ refs: [withErrors], threads: 2 })).toBeNull();
    expect(await how({ refs: [withErrors], threads: 1 })).toBeNull();
    // Asked not to, a migration, or more than one ref: the ordinary path.
    expect(await how({ byFile: false })).toBeNull();
    expect(await how({ threads: 2, migrateLevel: 'all' })).toBeNull();
    expect(await how({ refs: [clean, clean], threads: 2 })).toBeNull();
  });

  it('refuses a bad image reference template as the ordinary path does', async () => {
    const clean = 'testdata/validate/valid-package-across-folders/catalog';
    const opts = { refs: [clean], cwd: root, parallelMinBytes: 0, imageRefTemplate: '{{' };
    const outcome = (threads: number, byFile = true): Promise<string> =>
      renderOutput({ ...opts, threads, byFile }, 'json').then(
        () => 'rendered',
        (err: unknown) => (err instanceof Error ? err.message : String(err)),
      );
    const whole = await outcome(1, false);
    expect(whole).toMatch(/image reference template/);
    expect(await outcome(1)).toBe(whole);
    expect(await outcome(2)).toBe(whole);
  });
});

describe.runIf(haveCorpus())('the corpus catalog file by file', () => {
  it('community-catalog-v4.21 renders the same loaded whole and file by file on 1, 2 and 4 threads, in JSON and YAML', async () => {
    const dir = corpusPath('community-catalog-v4.21');
    const on = (threads: number, parallelMinBytes?: number) =>
      workersStartedBy(() =>
        renderByFile(
          { refs: [dir], threads, ...(parallelMinBytes === undefined ? {} : { parallelMinBytes }) },
          'json',
        ),
      );
    expect((await on(2, 0)).started).toBe(1);
    expect((await on(1)).started).toBe(0);
    for (const format of ['json', 'yaml'] as const) {
      const whole = await renderWith(dir, format, 0);
      expect(whole.error).toBeUndefined();
      for (const threads of [1, 2, 4]) expect(await renderWith(dir, format, threads)).toStrictEqual(whole);
    }
  });
});
