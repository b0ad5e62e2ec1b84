import { closeSync, mkdtempSync, openSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeSpill, openSpill, readSpill, type Spill } from '../../util/spill.js';
import { encodeCatalogFile, FileHasErrors } from './render-encode-file.js';

const file = fileURLToPath(
  new URL('../../../testdata/render/threaded-order/catalog/a.yaml', import.meta.url),
);
const walked = { rel: 'a.yaml', abs: file, size: statSync(file).size };

describe('encoding a catalog file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'opm-ts-encode-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('puts its bytes in the spill file when there is one, the same bytes it keeps in memory without', async () => {
    const inMemory = await encodeCatalogFile(walked, { format: 'json' });
    expect(inMemory.bytes?.length).toBeGreaterThan(0);
    expect(inMemory.spilledAt).toBeUndefined();
    const spill = openSpill(dir);
    if (spill === undefined) throw new Error('no spill file');
    try {
      const spilled = await encodeCatalogFile(walked, { format: 'json', spill });
      expect(spilled.bytes).toBeUndefined();
      expect(spilled.spilledAt).toBe(0);
      expect(spilled.blobs).toStrictEqual(inMemory.blobs);
      const length = inMemory.bytes?.length ?? 0;
      const back = readSpill(spill, Buffer.alloc(length), length, 0);
      expect(Buffer.from(back).equals(Buffer.from(inMemory.bytes ?? []))).toBe(true);
    } finally {
      closeSpill(spill);
    }
  });

  it('keeps its bytes in memory when the spill file takes none (a full disk, say)', async () => {
    const inMemory = await encodeCatalogFile(walked, { format: 'yaml' });
    // A descriptor open for reading only: every write to it fails.
    const fd = openSync(file, 'r');
    const spill: Spill = { fd, end: new BigInt64Array(new SharedArrayBuffer(8)) };
    try {
      const kept = await encodeCatalogFile(walked, { format: 'yaml', spill });
      expect(kept.spilledAt).toBeUndefined();
      expect(kept).toStrictEqual(inMemory);
    } finally {
      closeSync(fd);
    }
  });
});

describe('encoding a JSON file beyond ASCII', () => {
  const catalog = fileURLToPath(
    new URL('../../../testdata/render/json-beyond-ascii/catalog', import.meta.url),
  );
  const walkedFile = (pkg: string): { rel: string; abs: string; size: number } => {
    const abs = path.join(catalog, pkg, 'catalog.json');
    return { rel: `${pkg}/catalog.json`, abs, size: statSync(abs).size };
  };

  it.each(['opérateur', 'escaped', 'separator', 'zduplicate'])(
    'gives the bytes, places and warnings of the text reading (%s)',
    async (pkg) => {
      const byBytes = await encodeCatalogFile(walkedFile(pkg), { format: 'json' });
      const asText = await encodeCatalogFile(walkedFile(pkg), { format: 'json', byteChars: false });
      expect(byBytes).toStrictEqual(asText);
      const out = Buffer.from(byBytes.bytes ?? []).toString('utf8');
      expect(out).toContain('"displayName": "Opérateur ✓"');
      expect(byBytes.blobs.some((b) => b.package === pkg)).toBe(true);
    },
  );
});

describe('a JSON file whose checks are left to its output', () => {
  const fixture = fileURLToPath(new URL('../../../testdata/render/json-checks', import.meta.url));
  const walkedAt = (rel: string): { rel: string; abs: string; size: number } => {
    const abs = path.join(fixture, rel);
    return { rel, abs, size: statSync(abs).size };
  };

  it.each([
    // Written as opm writes it: its output is its bytes.
    ['clean/as-opm-writes.json', 0],
    // Other layouts and key orders: the checks run, and pass.
    ['clean/compact.json', 0],
    ['clean/two-spaces.json', 0],
    // The checks run and fail: read again with the checks in place, for the warning and its line.
    ['clean/nested-duplicate.json', 1],
    // A warning of the decoding: read again, for its line (left uncounted with the checks).
    ['clean/unknown-field.json', 1],
  ])('gives the bytes, places and warnings of the usual reading (%s)', async (rel, warnings) => {
    const deferred = await encodeCatalogFile(walkedAt(rel), { format: 'json' });
    const usual = await encodeCatalogFile(walkedAt(rel), { format: 'json', byteChars: false });
    expect(deferred).toStrictEqual(usual);
    expect(deferred.warnings).toHaveLength(warnings);
    expect(deferred.blobs).toHaveLength(3);
  });

  it.each(['top-level-duplicate', 'overflowing-number', 'too-deep'])(
    'reports a file the checks fail as the usual reading does (%s)',
    async (name) => {
      const rel = `errors/${name}/catalog.json`;
      await expect(encodeCatalogFile(walkedAt(rel), { format: 'json' })).rejects.toThrow(FileHasErrors);
      await expect(encodeCatalogFile(walkedAt(rel), { format: 'json', byteChars: false })).rejects.toThrow(
        FileHasErrors,
      );
    },
  );
});
