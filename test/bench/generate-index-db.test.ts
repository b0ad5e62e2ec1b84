// integration: writes the bench's generated index database, at 200 bundles, twice and renders it.
// The database `npm run bench:sqlite` measures (bench/generate-index-db.ts) is the same bytes every
// time, is cached, holds what it says, and renders without error (as the reference renders it, when
// OPM_REFERENCE names one), so that its rows time work, not an early failure.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateIndexDb } from '../../bench/generate-index-db.js';
import { runOpm } from '../run-cli.js';

const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});
const temp = (): string => {
  const t = mkdtempSync(path.join(tmpdir(), 'opm-gen-index-db-'));
  temps.push(t);
  return t;
};

describe('the generated index database of bench:sqlite', () => {
  it('is the same bytes every time, cached, and renders as the reference renders it', async () => {
    const [a, b] = [temp(), temp()];
    const first = generateIndexDb(a, { bundles: 200 });
    const second = generateIndexDb(b, { bundles: 200 });
    expect(first.made && second.made).toBe(true);
    expect(first.bundles).toBeGreaterThanOrEqual(200);
    expect(first.packages).toBeGreaterThan(5);
    expect(readFileSync(first.file).equals(readFileSync(second.file))).toBe(true);
    expect(generateIndexDb(a, { bundles: 200 }).made).toBe(false);

    const r = await runOpm(['render', first.file, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const bundles = r.stdout.split('\n').filter((l) => l === '    "schema": "olm.bundle",').length;
    expect(bundles).toBe(first.bundles);

    const reference = process.env.OPM_REFERENCE ?? '';
    if (reference !== '' && existsSync(reference)) {
      // The reference migrates its input in place: it gets a copy.
      const copy = path.join(b, 'reference.db');
      copyFileSync(first.file, copy);
      const ref = spawnSync(reference, ['render', copy, '-o', 'json'], {
        encoding: 'utf8',
        maxBuffer: 1 << 28,
      });
      expect(ref.status, ref.stderr).toBe(0);
      expect(r.stdout).toBe(ref.stdout);
    }
  });
});
