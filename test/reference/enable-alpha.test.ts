// needs-registry: bundle images pushed to a real docker-registry on 127.0.0.1, added to index
// databases by the reference opm v1.73 and by opm-ts.
// `registry add --enable-alpha` (hidden in opm): its one effect is that a bundle with
// `olm.substitutesFor` is added, the upgrade edges rewritten around the substitution; without the
// flag both tools refuse it with opm's words. The databases' rows and renders are compared.
import { copyFileSync, mkdtempSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { bundleRegistry } from './bundle-registry.js';
import { csvName, type BundleSpec } from '../sqlite/bundles.js';
import { normalisedDump } from './sqlite-dump.js';

const reg = bundleRegistry('opm-enable-alpha-');
const { tmp, env, opmRef } = reg;

const A: BundleSpec = { pkg: 'sub', version: '1.0.0', channels: ['stable'], defaultChannel: 'stable' };
const B: BundleSpec = {
  pkg: 'sub',
  version: '1.0.1',
  channels: ['stable'],
  replaces: csvName('sub', '1.0.0'),
};
/** A rebuild of 1.0.1 that substitutes for it. */
const C: BundleSpec = {
  pkg: 'sub',
  version: '1.0.1+1',
  tag: '1.0.1-1',
  channels: ['stable'],
  replaces: csvName('sub', '1.0.0'),
  substitutesFor: csvName('sub', '1.0.1'),
  owns: ['Thing'],
};

beforeAll(async () => {
  await reg.start();
  await reg.push([A, B, C]);
}, 600_000);

afterAll(reg.stop);

const ALPHA = ['--enable-alpha'];
const addArgs = (db: string, b: BundleSpec, flags: string[]): string[] => reg.addArgs(db, [b], flags);

/** The reference adds `setup` to a database; both tools then add `last` to copies of it. */
async function both(setup: BundleSpec[], last: BundleSpec, flags: string[]) {
  const dir = mkdtempSync(path.join(tmp, 'case-'));
  const start = path.join(dir, 'start.db');
  for (const b of setup) {
    const r = opmRef(addArgs(start, b, ALPHA));
    if (r.code !== 0) throw new Error(`reference registry add: ${r.stderr}`);
  }
  const refDb = path.join(dir, 'ref.db');
  const ourDb = path.join(dir, 'ours.db');
  copyFileSync(start, refDb);
  copyFileSync(start, ourDb);
  const theirs = opmRef(addArgs(refDb, last, flags));
  const ours = await runOpm(addArgs(ourDb, last, flags), { cwd: tmp, env: env() });
  return { start, refDb, ourDb, theirs, ours };
}

describe('registry add --enable-alpha', () => {
  it.each([
    ['a substitute added after the bundle it substitutes for', [A, B], C],
    ['a bundle added after its substitute', [A, C], B],
  ] as const)('%s: the same rows and the same render', async (_name, setup, last) => {
    const { refDb, ourDb, theirs, ours } = await both([...setup], last, ALPHA);
    expect(theirs.code, theirs.stderr).toBe(0);
    expect(ours.code, ours.stderr).toBe(0);
    const mine = normalisedDump(ourDb);
    expect(mine).toEqual(normalisedDump(refDb));
    expect(mine.rows.operatorbundle?.join('\n')).toContain("'sub.v1.0.1'");
    const a = opmRef(['render', refDb, '-o', 'yaml']).stdout;
    const b = await runOpm(['render', ourDb, '-o', 'yaml'], { cwd: tmp, env: env() });
    expect(b.stderr.split('\n').filter((l) => !l.includes('DEPRECATION'))).toEqual(['']);
    expect(b.stdout).toBe(a);
  });

  it('without the flag a substitute is refused by both with the same words', async () => {
    const { start, ourDb, theirs, ours } = await both([A, B], C, []);
    expect(theirs.code).toBe(1);
    expect(ours.code).toBe(1);
    const said = /^Error: (.*)$/m.exec(theirs.stderr)?.[1] ?? '';
    expect(said).toContain('SubstitutesFor is an alpha-only feature');
    expect(ours.stderr).toContain(said);
    expect(normalisedDump(ourDb)).toEqual(normalisedDump(start));
  });
});
