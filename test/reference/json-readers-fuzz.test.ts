// Seeded catalogs of JSON files (test/json-fuzz-catalogs.ts) rendered and validated by opm-ts and
// by the reference opm: render's output byte for byte in both formats, and the verdicts alike. The
// constructs whose outcome docs/compatibility.md records as different are compared as recorded.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runOpmBytes, type CliBytesResult as Bytes } from '../run-cli.js';
import { fuzzJsonCatalog, type JsonFuzzCatalog } from '../json-fuzz-catalogs.js';
import { reference } from './reference-opm.js';

// Output compared as bytes: a string decoded from it would hide one invalid byte behind another.
function refBytes(args: string[]): Bytes {
  const r = spawnSync(reference, args, { maxBuffer: 1 << 28 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr.toString('utf8') };
}

/** opm-ts in-process, stdout as bytes (test/run-cli.ts). */
const oursBytes = (args: string[]): Promise<Bytes> => runOpmBytes(args);

/** The catalog's files as opm-ts reads them, or as the reference is to read them (JsonFuzzFile). */
function writeCatalog(root: string, catalog: JsonFuzzCatalog, forReference: boolean): string {
  mkdirSync(root);
  for (const f of catalog.files) {
    const bytes = forReference && f.reference !== undefined ? f.reference : f.bytes;
    if (bytes === null) continue;
    const file = path.join(root, f.path);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, bytes);
  }
  return root;
}

const verdict = (r: Bytes): { code: number; stdout: string } => ({
  code: r.code === 0 ? 0 : 1,
  // Shown as text when they differ; compared as bytes below.
  stdout: r.stdout.toString('latin1'),
});

describe('generated catalogs of JSON files: render and validate as the reference', () => {
  const seeds = Array.from({ length: 80 }, (_, i) => i + 1);
  let compared = 0;
  let rendered = 0;
  let validated = 0;
  const roots: string[] = [];
  afterAll(() => {
    for (const r of roots) rmSync(r, { recursive: true, force: true });
  });
  it.each(seeds)('seed %i', async (seed) => {
    const catalog = fuzzJsonCatalog(seed);
    const root = mkdtempSync(path.join(tmpdir(), 'opm-json-fuzz-'));
    roots.push(root);
    const dir = writeCatalog(path.join(root, 'c'), catalog, false);
    const { features } = catalog;
    if (features.topLevelDuplicate || features.overflowingNumber) {
      // A key written twice among a blob's own keys (row 29) and a number beyond float64 (row H2):
      // opm-ts refuses the catalog with file and line, and writes nothing.
      for (const format of ['json', 'yaml']) {
        const a = await oursBytes(['render', dir, '-o', format]);
        expect(a.code).toBe(1);
        expect(a.stdout.length).toBe(0);
        expect(a.stderr).toMatch(/\.json:\d+: .*(duplicate key|float64)/);
      }
      expect((await oursBytes(['validate', dir])).code).toBe(1);
      return;
    }
    // A file starting with a byte-order mark (row R8) is read as opm reads it without the mark, and
    // a file of white space only (row 28) as opm reads the catalog without it.
    const refDir = catalog.files.some((f) => f.reference !== undefined)
      ? writeCatalog(path.join(root, 'r'), catalog, true)
      : dir;
    for (const format of ['json', 'yaml']) {
      const a = await oursBytes(['render', dir, '-o', format]);
      const b = refBytes(['render', refDir, '-o', format]);
      expect(verdict(a)).toEqual(verdict(b));
      expect(a.stdout.equals(b.stdout)).toBe(true);
      if (format === 'json' && b.code === 0) rendered++;
    }
    const a = await oursBytes(['validate', dir]);
    const b = refBytes(['validate', refDir]);
    // The messages are each tool's own (docs/compatibility.md row 16); the verdicts must agree.
    expect({ passed: a.code === 0, stderr: a.stderr }).toMatchObject({ passed: b.code === 0 });
    if (b.code === 0) validated++;
    compared++;
  });

  it('most generated catalogs render (the comparison is of data, not of two failures)', () => {
    expect(compared).toBeGreaterThan(seeds.length / 2);
    expect(rendered).toBeGreaterThan(compared * 0.8);
    expect(validated).toBeGreaterThan(compared / 5);
  });
});
