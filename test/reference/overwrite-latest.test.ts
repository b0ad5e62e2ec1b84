// needs-registry: bundle images pushed to a real docker-registry on 127.0.0.1, added to index
// databases by the reference opm v1.73 and by opm-ts.
// `registry add --overwrite-latest` (hidden in opm): from the same database the reference wrote,
// both tools replace a channel head with a bundle of the same CSV name from another image; the
// databases' rows are the same and render the same; the refusals have the same words and exit codes.
import { copyFileSync, mkdtempSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { bundleRegistry } from './bundle-registry.js';
import { csvName, type BundleSpec } from '../sqlite/bundles.js';
import { normalisedDump } from './sqlite-dump.js';

const reg = bundleRegistry('opm-overwrite-latest-');
const { tmp, env, opmRef, addArgs } = reg;

const ETCD: BundleSpec[] = [
  { pkg: 'etcd', version: '0.9.0', channels: ['alpha'], defaultChannel: 'alpha', owns: ['EtcdCluster'] },
  {
    pkg: 'etcd',
    version: '0.9.2',
    channels: ['alpha', 'stable'],
    defaultChannel: 'stable',
    replaces: csvName('etcd', '0.9.0'),
    owns: ['EtcdCluster', 'EtcdBackup'],
  },
  {
    pkg: 'etcd',
    version: '0.9.4',
    channels: ['alpha', 'stable'],
    defaultChannel: 'stable',
    replaces: csvName('etcd', '0.9.2'),
    skips: [csvName('etcd', '0.9.3')],
    owns: ['EtcdCluster', 'EtcdBackup', 'EtcdRestore'],
    relatedImages: [{ name: 'backup', image: 'quay.io/example/etcd-backup:0.9.4' }],
    properties: [{ type: 'custom.flag', value: { on: true } }],
  },
];
/** The head 0.9.4 again from another image: other APIs, related images and properties. */
const ETCD_094_B: BundleSpec = {
  pkg: 'etcd',
  version: '0.9.4',
  tag: '0.9.4-b',
  channels: ['alpha', 'stable', 'fast'],
  defaultChannel: 'stable',
  replaces: csvName('etcd', '0.9.2'),
  owns: ['EtcdCluster', 'EtcdRestore'],
  relatedImages: [{ name: 'backup', image: 'quay.io/example/etcd-backup:0.9.4-b' }],
  properties: [{ type: 'custom.flag', value: { on: false } }],
};
/** 0.9.2 again: not a head once 0.9.4 is added. */
const ETCD_092_B: BundleSpec = { ...(ETCD[1] as BundleSpec), tag: '0.9.2-b' };
/** A package of one bundle, overwritten: its default channel's head emptied before the removal. */
const SOLO: BundleSpec = { pkg: 'solo', version: '1.0.0', channels: ['stable'], defaultChannel: 'stable' };
const SOLO_B: BundleSpec = { ...SOLO, tag: '1.0.0-b', owns: ['Thing'] };
const SV: BundleSpec[] = [
  { pkg: 'sv', version: '1.0.0', channels: ['stable'], defaultChannel: 'stable', owns: ['Thing'] },
  { pkg: 'sv', version: '1.0.1', channels: ['stable'], owns: ['Thing'] },
];
const SV_101_B: BundleSpec = { ...(SV[1] as BundleSpec), tag: '1.0.1-b' };

beforeAll(async () => {
  await reg.start();
  await reg.push([...ETCD, ETCD_094_B, ETCD_092_B, SOLO, SOLO_B, ...SV, SV_101_B]);
}, 600_000);

afterAll(reg.stop);

interface Case {
  name: string;
  /** Added by the reference, one call each, to make the starting database. */
  setup: Array<{ bundles: BundleSpec[]; flags?: string[] }>;
  /** The call both tools make on a copy of it. */
  last: { bundles: BundleSpec[]; flags: string[] };
}

async function both(c: Case): Promise<{
  start: string;
  refDb: string;
  ourDb: string;
  theirs: { code: number; stderr: string };
  ours: { code: number; stderr: string };
}> {
  const dir = mkdtempSync(path.join(tmp, 'case-'));
  const start = path.join(dir, 'start.db');
  for (const step of c.setup) {
    const r = opmRef(addArgs(start, step.bundles, step.flags));
    if (r.code !== 0) throw new Error(`reference registry add: ${r.stderr}`);
  }
  const refDb = path.join(dir, 'ref.db');
  const ourDb = path.join(dir, 'ours.db');
  copyFileSync(start, refDb);
  copyFileSync(start, ourDb);
  const theirs = opmRef(addArgs(refDb, c.last.bundles, c.last.flags));
  const ours = await runOpm(addArgs(ourDb, c.last.bundles, c.last.flags), { cwd: tmp, env: env() });
  return { start, refDb, ourDb, theirs, ours };
}

const OVERWRITE = ['--overwrite-latest'];

describe('registry add --overwrite-latest', () => {
  it.each<Case>([
    {
      name: 'the head of two channels, replaced by a bundle in three',
      setup: ETCD.map((b) => ({ bundles: [b] })),
      last: { bundles: [ETCD_094_B], flags: OVERWRITE },
    },
    {
      name: 'the only bundle of a package',
      setup: [{ bundles: [SOLO] }, { bundles: [ETCD[0] as BundleSpec] }],
      last: { bundles: [SOLO_B], flags: OVERWRITE },
    },
    {
      name: 'a bundle not in the database yet: an ordinary add',
      setup: ETCD.slice(0, 2).map((b) => ({ bundles: [b] })),
      last: { bundles: [ETCD[2] as BundleSpec], flags: OVERWRITE },
    },
  ])('$name: the same rows and the same render', async (c) => {
    const { refDb, ourDb, theirs, ours } = await both(c);
    expect(theirs.code, theirs.stderr).toBe(0);
    expect(ours.code, ours.stderr).toBe(0);
    expect(normalisedDump(ourDb)).toEqual(normalisedDump(refDb));
    const a = opmRef(['render', refDb, '-o', 'yaml']).stdout;
    const b = (await runOpm(['render', ourDb, '-o', 'yaml'], { cwd: tmp, env: env() })).stdout;
    expect(b).toBe(a);
  });

  it.each<Case>([
    {
      name: 'a bundle that is not a channel head',
      setup: ETCD.map((b) => ({ bundles: [b] })),
      last: { bundles: [ETCD_092_B], flags: OVERWRITE },
    },
    {
      name: 'the same image again (already there, exit 2)',
      setup: ETCD.map((b) => ({ bundles: [b] })),
      last: { bundles: [ETCD[2] as BundleSpec], flags: OVERWRITE },
    },
    {
      name: 'the semver mode, which removes no head',
      setup: SV.map((b) => ({ bundles: [b], flags: ['--mode', 'semver'] })),
      last: { bundles: [SV_101_B], flags: [...OVERWRITE, '--mode', 'semver'] },
    },
  ])('$name: refused by both with the same words and exit code', async (c) => {
    const { start, ourDb, theirs, ours } = await both(c);
    expect(theirs.code, theirs.stderr).not.toBe(0);
    expect(ours.code, ours.stderr).toBe(theirs.code);
    const said = /^Error: (.*)$/m.exec(theirs.stderr)?.[1] ?? '';
    expect(said).not.toBe('');
    expect(ours.stderr).toContain(said);
    // opm-ts leaves the database as it was (row Q20).
    expect(normalisedDump(ourDb)).toEqual(normalisedDump(start));
  });
});
