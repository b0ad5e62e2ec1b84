// integration: every catalog fixture rendered on 1 and 3 threads, and the corpus catalog on 1, 2 and 4.
/**
 * Rendering a catalog directory file by file, in this thread or on several, gives the bytes,
 * warnings and errors of loading it whole and then writing it: over every catalog fixture (those
 * without errors take the file-by-file path, the others fall back to the ordinary one) and over the
 * corpus catalog.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  renderOutput,
  type RenderFormat,
  type RenderOutputOptions,
} from '../../src/action/render/render-output.js';
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

/**
 * Render on `threads` threads, or (0) loaded whole and then written, the ordinary way; `more`
 * options on top.
 */
async function renderWith(
  dir: string,
  format: RenderFormat,
  threads: number,
  more: Partial<RenderOutputOptions> = {},
): Promise<Rendered> {
  const warnings: string[] = [];
  const dropped: DroppedBlob[] = [];
  const parts: Buffer[] = [];
  const how = threads === 0 ? { threads: 1, byFile: false } : { threads };
  try {
    const chunks = await renderOutput(
      {
        refs: [dir],
        cwd: root,
        ...how,
        parallelMinBytes: 0,
        onWarning: (m) => warnings.push(m),
        ...more,
      },
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
      `%s: -o ${format} file by file on 1 and 3 threads, in memory and spilled, is what it is loaded whole`,
      async (dir) => {
        const whole = await renderWith(dir, format, 0);
        expect(await renderWith(dir, format, 1)).toStrictEqual(whole);
        expect(await renderWith(dir, format, 3)).toStrictEqual(whole);
        // Every file's bytes in the spill file, written by this thread and two workers.
        expect(await renderWith(dir, format, 1, { spillMinBytes: 0 })).toStrictEqual(whole);
        expect(await renderWith(dir, format, 3, { spillMinBytes: 0 })).toStrictEqual(whole);
      },
    );
  }

  // Blobs of every kind spread over three files: package names in byte order (non-ASCII last),
  // channels and bundles by name, others by schema, deprecations and package-less others in walk
  // order (opm's own order across files is random), bundle properties and related images sorted.
  const ordered = 'testdata/render/threaded-order';
  it.each(['json', 'yaml'] as const)(`${ordered}: -o %s on 3 threads, in opm's order`, async (format) => {
    const dir = path.join(ordered, 'catalog');
    const { result: r, started } = await workersStartedBy(() => renderWith(dir, format, 3));
    // Three files: this thread and two workers.
    expect(started).toBe(2);
    expect(r.warnings).toEqual([]);
    await expect(r.output).toMatchFileSnapshot(path.join(root, ordered, `expected.${format}`));
  });

  it('renders on worker threads when asked and when the catalog pays for them, with the same output', async () => {
    const clean = 'testdata/validate/valid-package-across-folders/catalog';
    const on = (threads: number, more: Partial<RenderOutputOptions> = {}) =>
      workersStartedBy(() => renderWith(clean, 'json', threads, more));
    const threaded = await on(2);
    expect(threaded.started).toBe(1);
    expect(threaded.result.error).toBeUndefined();
    expect(await on(1)).toStrictEqual({ result: threaded.result, started: 0 });
    // Under the size that pays for threads, asked for the ordinary path, or more than one ref: no
    // worker; the same output.
    expect(await on(2, { parallelMinBytes: 1 << 30 })).toStrictEqual({ result: threaded.result, started: 0 });
    expect(await on(2, { byFile: false })).toStrictEqual({ result: threaded.result, started: 0 });
    expect((await on(2, { refs: [clean, clean] })).started).toBe(0);
    // A migration: the ordinary path.
    expect((await on(2, { migrateLevel: 'all' })).started).toBe(0);
  });

  it('spills where it can, keeps the bytes in memory where it cannot, and leaves no file or descriptor behind', async () => {
    const clean = 'testdata/render/threaded-order/catalog';
    const spillDir = mkdtempSync(path.join(os.tmpdir(), 'opm-ts-spill-test-'));
    try {
      const fds = (): number => readdirSync('/proc/self/fd').length;
      const before = fds();
      const inMemory = await renderWith(clean, 'json', 1, { spillMinBytes: Infinity });
      const spilled = await renderWith(clean, 'json', 3, { spillMinBytes: 0, spillDir });
      const nowhere = await renderWith(clean, 'json', 1, {
        spillMinBytes: 0,
        spillDir: path.join(spillDir, 'missing'),
      });
      expect(spilled).toStrictEqual(inMemory);
      expect(nowhere).toStrictEqual(inMemory);
      expect(readdirSync(spillDir)).toEqual([]);
      expect(fds()).toBe(before);
      // Rendered but not written: the caller that stops early closes the spill file by the
      // iterator's return, as the command line's writer does.
      const chunks = await renderOutput(
        { refs: [clean], cwd: root, threads: 1, spillMinBytes: 0, spillDir },
        'json',
      );
      const iterator = chunks[Symbol.iterator]();
      expect(iterator.next().done).toBe(false);
      expect(fds()).toBe(before + 1);
      iterator.return?.();
      expect(fds()).toBe(before);
    } finally {
      rmSync(spillDir, { recursive: true, force: true });
    }
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
    for (const format of ['json', 'yaml'] as const) {
      const whole = await renderWith(dir, format, 0);
      expect(whole.error).toBeUndefined();
      for (const threads of [1, 2, 4]) {
        const many = await workersStartedBy(() => renderWith(dir, format, threads));
        expect(many).toStrictEqual({ result: whole, started: threads - 1 });
      }
    }
  });
});
