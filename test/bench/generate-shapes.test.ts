// integration: writes the bench's two generated catalogs (about 26 MB) twice and validates them.
// The catalogs the bench measures (bench/generate-shapes.ts) are the same bytes every time, have the
// shapes the bench says they have, and are valid catalogs for opm-ts, so that their rows time work,
// not an early failure.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateShape, type Shape } from '../../bench/generate-shapes.js';
import { runOpm } from '../run-cli.js';

const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

function digestOf(dir: string): string {
  const h = createHash('sha256');
  for (const f of readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort()) {
    if (!f.endsWith('.yaml')) continue;
    h.update(f);
    h.update(readFileSync(path.join(dir, f)));
  }
  return h.digest('hex');
}

describe.each([
  ['certified', 50, 400, [10e6, 14e6]],
  ['community', 8, 800, [12e6, 16e6]],
] as const)('the %s shape', (shape: Shape, packages, bundles, [minBytes, maxBytes]) => {
  it('is the same bytes for the same seed, another for another seed, and validates', async () => {
    const dirs = [1, 1, 2].map(() => {
      const d = mkdtempSync(path.join(tmpdir(), `opm-shape-${shape}-`));
      temps.push(d);
      return d;
    });
    const infos = dirs.map((d, i) => generateShape(d, shape, i < 2 ? 1 : 2));
    expect(infos[0]).toEqual({ shape, packages, bundles, bytes: infos[0]?.bytes });
    expect(infos[0]?.bytes).toBeGreaterThan(minBytes);
    expect(infos[0]?.bytes).toBeLessThan(maxBytes);
    expect(readdirSync(dirs[0] ?? '')).toHaveLength(packages);
    expect(digestOf(dirs[0] ?? '')).toBe(digestOf(dirs[1] ?? ''));
    expect(digestOf(dirs[2] ?? '')).not.toBe(digestOf(dirs[0] ?? ''));

    const r = await runOpm(['validate', dirs[0] ?? '', '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const counts = (JSON.parse(r.stdout) as { counts: { errors: number } }).counts;
    expect(counts.errors).toBe(0);
    const list = await runOpm(['alpha', 'list', 'bundles', dirs[0] ?? '']);
    expect(list.code).toBe(0);
    // A header line, then one line per bundle and channel it is in.
    expect(list.stdout.trim().split('\n').length).toBeGreaterThan(bundles);
  }, 120_000);
});
