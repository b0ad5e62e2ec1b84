/**
 * The blob limit (MAX_BLOB_BYTES, lowered by OPM_MAX_BLOB_BYTES): a blob over it is refused while
 * the file is read, with the line it starts on, and a file whose blobs are all under it loads as
 * it does without the limit. The limit is lowered here so the files stay small; the memory it
 * bounds is measured on a 2 GiB file in test/hostile/process.test.ts.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadFile } from './load-file.js';
import {
  BlobTooLargeError,
  MAX_BLOB_BYTES,
  maxBlobBytes,
  readFileParts,
  readsInParts,
} from './load-large.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'opm-blob-limit-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const LIMIT = 64 * 1024;

function bundle(name: string, description: string): string {
  return JSON.stringify(
    {
      schema: 'olm.bundle',
      name,
      package: 'p',
      image: `example.com/p:${name}`,
      properties: [
        { type: 'olm.package', value: { packageName: 'p', version: '1.0.0' } },
        { type: 'olm.csv.metadata', value: { description } },
      ],
    },
    null,
    4,
  );
}

function write(name: string, text: string): { rel: string; abs: string; size: number } {
  const abs = path.join(tmp, name);
  writeFileSync(abs, text);
  return { rel: name, abs, size: statSync(abs).size };
}

/** Line (1-based) of the first occurrence of `needle` in `text`. */
function lineOf(text: string, needle: string): number {
  return text.slice(0, text.indexOf(needle)).split('\n').length;
}

describe('OPM_MAX_BLOB_BYTES', () => {
  it('lowers the limit, never raises it; anything else leaves it at 512 MiB', () => {
    expect(maxBlobBytes({})).toBe(MAX_BLOB_BYTES);
    expect(MAX_BLOB_BYTES).toBe(512 * 1024 * 1024);
    expect(maxBlobBytes({ OPM_MAX_BLOB_BYTES: '65536' })).toBe(65536);
    expect(maxBlobBytes({ OPM_MAX_BLOB_BYTES: ' 1024 ' })).toBe(1024);
    expect(maxBlobBytes({ OPM_MAX_BLOB_BYTES: String(4 * MAX_BLOB_BYTES) })).toBe(MAX_BLOB_BYTES);
    for (const bad of ['', '0', '-5', '1e6', '64k', 'x']) {
      expect(maxBlobBytes({ OPM_MAX_BLOB_BYTES: bad })).toBe(MAX_BLOB_BYTES);
    }
  });

  it('sends every file that could hold a blob over the limit through the checking reader', () => {
    expect(readsInParts(64 * 1024 * 1024, MAX_BLOB_BYTES)).toBe(false);
    expect(readsInParts(64 * 1024 * 1024 + 1, MAX_BLOB_BYTES)).toBe(true);
    expect(readsInParts(LIMIT, LIMIT)).toBe(false);
    expect(readsInParts(LIMIT + 1, LIMIT)).toBe(true);
  });
});

describe('a blob over the limit', () => {
  const small = Array.from({ length: 40 }, (_, i) => bundle(`b${i}`, 'short')).join('\n');
  const big = bundle('huge', 'x'.repeat(LIMIT + 10));

  it.each([
    ['at the start', `${big}\n${small}\n`],
    ['in the middle', `${small}\n${big}\n${small}\n`],
    ['at the end', `${small}\n${big}\n`],
    ['after blank lines', `\n\n  \n${big}\n`],
  ])('JSON, %s: refused with the line it starts on', async (where, text) => {
    const f = write(`json-${where.replace(/ /g, '-')}.json`, text);
    const r = await loadFile(f, { env: { OPM_MAX_BLOB_BYTES: String(LIMIT) } });
    expect(r.findings).toEqual([
      {
        rule: 'load.unreadable',
        severity: 'error',
        message: 'a single blob is too large to parse (over 65536 bytes)',
        file: f.rel,
        line: lineOf(text, '"name": "huge"') - 2,
      },
    ]);
  });

  it('YAML: refused with the line of its separator', async () => {
    const doc = (name: string, description: string): string =>
      `---\nschema: olm.bundle\nname: ${name}\npackage: p\nimage: example.com/p:${name}\nproperties:\n- type: olm.csv.metadata\n  value:\n    description: ${description}\n`;
    const text = ['a', 'b', 'c'].map((n) => doc(n, 'short')).join('') + doc('huge', 'y'.repeat(LIMIT));
    const f = write('catalog.yaml', text);
    const r = await loadFile(f, { maxBlobBytes: LIMIT });
    expect(r.findings.map((x) => [x.message, x.line])).toEqual([
      ['a single blob is too large to parse (over 65536 bytes)', lineOf(text, 'name: huge') - 2],
    ]);
  });

  it('is seen before the rest of the file is read', async () => {
    // Small blobs worth more than the limit, so that some are handed out before the big one.
    const before = Array.from({ length: 400 }, (_, i) => bundle(`s${i}`, 'short')).join('\n');
    const text = `${before}\n${big}\n${small}\n`;
    const f = write('parts.json', text);
    const seen: number[] = [];
    await expect(async () => {
      for await (const part of readFileParts(f.abs, LIMIT)) seen.push(part.firstLine);
    }).rejects.toThrow(BlobTooLargeError);
    // The small blobs before it were handed out as parts; nothing after it was.
    expect(seen.length).toBeGreaterThan(0);
    expect(Math.max(...seen)).toBeLessThan(lineOf(text, '"name": "huge"'));
  });
});

describe('blobs under the limit', () => {
  it.each(['json', 'yaml'])('%s: load as they do without it, the file read in parts', async (kind) => {
    const blobs = Array.from({ length: 200 }, (_, i) => bundle(`b${i}`, 'z'.repeat(i * 40)));
    // YAML: flow documents (JSON is YAML) between `---` lines, with a comment in each.
    const text =
      kind === 'json'
        ? blobs.join('\n') + '\n'
        : blobs.map((b) => `---\n# comment\n${JSON.stringify(JSON.parse(b))}\n`).join('');
    const f = write(`many.${kind}`, text);
    expect(f.size).toBeGreaterThan(4 * LIMIT);
    const whole = await loadFile(f, {});
    const parts = await loadFile(f, { env: { OPM_MAX_BLOB_BYTES: String(LIMIT) } });
    expect(parts.findings).toEqual([]);
    expect(parts).toEqual(whole);
    expect(parts.cfg.bundles).toHaveLength(200);
  });
});
