// Where the reference opm loses data and opm-ts does not (docs/compatibility.md, rows R7, R8, 48): each
// fixture run through both tools, with what each one does asserted side by side.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { ours, ref } from './reference-opm.js';

/** The blobs of `render -o json` output: objects that start a line. */
function blobs(stdout: string): Record<string, unknown>[] {
  return stdout
    .split(/^(?=\{)/m)
    .filter((s) => s.trim() !== '')
    .map((s) => JSON.parse(s) as Record<string, unknown>);
}

const validateMessage = (stdout: string): string =>
  (JSON.parse(stdout) as { error?: { message?: string } }).error?.message ?? '';

describe('R7: a YAML document whose first line is indented deeper than the next lines', () => {
  const dir = 'testdata/load/indented-first-line/catalog';

  it('opm drops the dedented keys silently and passes; opm-ts refuses the file with its line', async () => {
    const theirs = ref(['render', dir, '-o', 'json']);
    expect(theirs.code).toBe(0);
    const pkg = blobs(theirs.stdout).find((b) => b.schema === 'olm.package');
    // The package keeps its indented keys; description and icon (the dedented lines) are gone.
    expect(pkg).toEqual({ schema: 'olm.package', name: 'indented-operator', defaultChannel: 'stable' });
    expect(readFileSync(path.join(dir, 'catalog.yaml'), 'utf8')).toMatch(/^description: /m);
    expect(ref(['validate', dir]).code).toBe(0);

    const mine = await runOpm(['render', dir, '-o', 'json']);
    expect(mine.code).toBe(1);
    expect(mine.stdout).toBe('');
    expect(mine.stderr.trim().split('\n')).toHaveLength(1);
    expect(mine.stderr).toContain('catalog.yaml:4:');
    const check = await runOpm(['validate', dir]);
    expect(check.code).toBe(1);
    expect(check.stderr).toContain('catalog.yaml:4');
  });
});

describe('R8: a JSON catalog file that starts with a byte-order mark', () => {
  const dir = 'testdata/load/json-byte-order-mark/catalog';
  const file = path.join(dir, 'catalog.json');

  it('opm keeps only the first object; opm-ts reads them all, as opm reads the file without the mark', async () => {
    const bytes = readFileSync(file);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);

    const theirs = ref(['render', dir, '-o', 'json']);
    expect(theirs.code).toBe(0);
    expect(blobs(theirs.stdout).map((b) => b.schema)).toEqual(['olm.package']);
    // What is left (a package whose default channel has no bundle) then fails opm's validate.
    expect(ref(['validate', dir]).code).toBe(1);

    const mine = await ours(['render', dir, '-o', 'json']);
    expect(mine.code).toBe(0);
    expect(blobs(mine.stdout).map((b) => b.schema)).toEqual(['olm.package', 'olm.channel', 'olm.bundle']);
    expect((await ours(['validate', dir])).code).toBe(0);

    // The same file without the mark: opm reads every object, and writes what opm-ts wrote above.
    const plain = mkdtempSync(path.join(tmpdir(), 'opm-bom-'));
    writeFileSync(path.join(plain, 'catalog.json'), bytes.subarray(3));
    const unmarked = ref(['render', plain, '-o', 'json']);
    expect(unmarked.code).toBe(0);
    expect(mine.stdout).toBe(unmarked.stdout);
  });
});

describe("48: the order of channels in validate's error tree", () => {
  const dir = 'testdata/validate/channel-order-in-tree/catalog';
  const channelOrder = (message: string): string[] =>
    [...message.matchAll(/invalid channel "([^"]+)"/g)].map((m) => m[1] ?? '');

  it("opm's order changes from run to run; opm-ts's is byte order, every run, with the same lines", async () => {
    // Eight channels, each with two heads. opm walks a Go map: one of eight orders per run, so ten
    // runs that all agree would happen by chance about once in 10^8.
    const theirs = Array.from({ length: 10 }, () => ref(['validate', dir, '-o', 'json']));
    for (const r of theirs) expect(r.code).toBe(1);
    const theirMessages = theirs.map((r) => validateMessage(r.stdout));
    const theirOrders = new Set(theirMessages.map((m) => channelOrder(m).join(',')));
    expect(theirOrders.size).toBeGreaterThan(1);

    const mine: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await ours(['validate', dir, '-o', 'json']);
      expect(r.code).toBe(1);
      mine.push(validateMessage(r.stdout));
    }
    expect(new Set(mine).size).toBe(1);
    const order = channelOrder(mine[0] ?? '');
    expect(order).toEqual(['alpha', 'beta', 'delta', 'epsilon', 'eta', 'gamma', 'theta', 'zeta']);
    // The same channels and errors as opm's, in another order (the tree's branch marks aside).
    const lines = (m: string): string[] =>
      m
        .split('\n')
        .map((l) => l.replace(/^[\s│├└─]+/, ''))
        .sort();
    for (const m of theirMessages) {
      expect(channelOrder(m).slice().sort()).toEqual(order);
      expect(lines(m)).toEqual(lines(mine[0] ?? ''));
    }
  });
});
