// needs-registry: bundle images pushed to a real docker-registry on 127.0.0.1, added to index
// databases by the reference opm v1.73 and by opm-ts.
// `registry add` by both tools from the same bundle images: the databases dumped by the sqlite3
// command line are the same row for row (the migration timestamp and the order of rows opm
// writes from Go map iteration left aside), and `render` of each by each tool gives the same bytes.
import { copyFileSync, existsSync, mkdtempSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { bundleRegistry } from './bundle-registry.js';
import { csvName, type BundleSpec } from '../sqlite/bundles.js';
import { normalisedDump } from './sqlite-dump.js';

const reg = bundleRegistry('opm-registry-add-');
const { tmp, env, imageOf, opmRef, addArgs } = reg;

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex').toString('base64');

const ETCD: BundleSpec[] = [
  { pkg: 'etcd', version: '0.9.0', channels: ['alpha'], defaultChannel: 'alpha', owns: ['EtcdCluster'] },
  {
    pkg: 'etcd',
    version: '0.9.2',
    channels: ['alpha', 'stable'],
    defaultChannel: 'stable',
    replaces: csvName('etcd', '0.9.0'),
    owns: ['EtcdCluster', 'EtcdBackup'],
    icon: { data: PNG, mediatype: 'image/png' },
    relatedImages: [{ name: 'backup', image: 'quay.io/example/etcd-backup:0.9.2' }],
    properties: [
      { type: 'olm.maxOpenShiftVersion', value: '4.9' },
      { type: 'custom.flag', value: { on: true, n: 4.1, html: '<b>' } },
    ],
  },
  {
    pkg: 'etcd',
    version: '0.9.4',
    channels: ['alpha', 'stable'],
    defaultChannel: 'stable',
    replaces: csvName('etcd', '0.9.2'),
    skips: [csvName('etcd', '0.9.3'), csvName('etcd', '0.9.1')],
    skipRange: '>=0.9.0 <0.9.4',
    owns: ['EtcdCluster', 'EtcdBackup', 'EtcdRestore'],
    requires: [{ name: 'prometheuses.prom.example.com', kind: 'Prometheus', version: 'v1' }],
    icon: { data: PNG, mediatype: 'image/png' },
    relatedImages: [
      { name: 'z', image: 'quay.io/example/zz:1' },
      { name: 'backup', image: 'quay.io/example/etcd-backup:0.9.4' },
    ],
    dependencies: [
      { type: 'olm.package', value: { packageName: 'prom', version: '>=1.0.0' } },
      { type: 'olm.gvk', value: { group: 'prom.example.com', kind: 'Prometheus', version: 'v1' } },
      { type: 'olm.label', value: { label: 'x' } },
    ],
  },
  { pkg: 'prom', version: '1.0.0', channels: ['beta'], defaultChannel: 'beta', owns: ['Prometheus'] },
  {
    pkg: 'prom',
    version: '1.1.0',
    channels: ['beta'],
    replaces: csvName('prom', '1.0.0'),
    owns: ['Prometheus'],
    properties: [{ type: 'olm.deprecated', value: {} }],
  },
];

const SEMVER: BundleSpec[] = [
  { pkg: 'sv', version: '1.0.0', channels: ['stable'], defaultChannel: 'stable', owns: ['Thing'] },
  { pkg: 'sv', version: '1.0.1', channels: ['stable', 'fast'], owns: ['Thing'] },
  { pkg: 'sv', version: '1.1.0', channels: ['stable'], owns: ['Thing'] },
  { pkg: 'sv', version: '2.0.0', channels: ['stable', 'fast'], defaultChannel: 'fast', owns: ['Thing'] },
  { pkg: 'sv', version: '1.5.0', channels: ['stable'], owns: ['Thing'] },
];
const SKIPPATCH: BundleSpec[] = [
  { pkg: 'sp', version: '1.0.0', channels: ['stable'], defaultChannel: 'stable', owns: ['Thing'] },
  { pkg: 'sp', version: '1.0.1', channels: ['stable'], owns: ['Thing'] },
  { pkg: 'sp', version: '1.1.0', channels: ['stable'], owns: ['Thing'] },
  { pkg: 'sp', version: '2.0.0', channels: ['stable'], owns: ['Thing'] },
];
/** Refused by opm's semver-skippatch after SKIPPATCH ("Invalid graph"). */
const SKIPPATCH_LATE: BundleSpec = { pkg: 'sp', version: '1.1.2', channels: ['stable'], owns: ['Thing'] };
const ORPHAN: BundleSpec = {
  pkg: 'orphan',
  version: '2.0.0',
  channels: ['stable'],
  defaultChannel: 'stable',
  replaces: csvName('orphan', '1.0.0'),
};
const LATER: BundleSpec = {
  pkg: 'etcd',
  version: '0.9.6',
  channels: ['stable'],
  replaces: csvName('etcd', '0.9.4'),
  owns: ['EtcdCluster', 'EtcdBackup', 'EtcdRestore'],
};

async function opmOurs(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runOpm(args, { cwd: tmp, env: env() });
}

interface Scenario {
  name: string;
  /** Batches added one after another (each a `registry add` call), with extra flags. */
  steps: Array<{ bundles: BundleSpec[]; flags?: string[] }>;
  /** The reference's answer for the last step is an error (both must then fail). */
  fails?: boolean;
}

const SCENARIOS: Scenario[] = [
  { name: 'replaces, one at a time', steps: ETCD.map((b) => ({ bundles: [b] })) },
  {
    name: 'replaces, a package at a time',
    steps: [{ bundles: ETCD.slice(0, 3) }, { bundles: ETCD.slice(3) }],
  },
  { name: 'semver', steps: SEMVER.map((b) => ({ bundles: [b], flags: ['--mode', 'semver'] })) },
  {
    name: 'semver-skippatch',
    steps: SKIPPATCH.map((b) => ({ bundles: [b], flags: ['--mode', 'semver-skippatch'] })),
  },
  {
    name: 'permissive, a bundle replacing a missing one',
    steps: [{ bundles: [ORPHAN], flags: ['--permissive'] }],
  },
  {
    name: 'an existing database gets a new head',
    steps: [...ETCD.slice(0, 3).map((b) => ({ bundles: [b] })), { bundles: [LATER] }],
  },
];

beforeAll(async () => {
  await reg.start();
  await reg.push([...ETCD, ...SEMVER, ...SKIPPATCH, SKIPPATCH_LATE, ORPHAN, LATER]);
}, 600_000);

afterAll(reg.stop);

describe.each(SCENARIOS)('registry add: $name', (s) => {
  let refDb = '';
  let ourDb = '';

  beforeAll(async () => {
    const dir = mkdtempSync(path.join(tmp, 'scenario-'));
    refDb = path.join(dir, 'ref.db');
    ourDb = path.join(dir, 'ours.db');
    for (const step of s.steps) {
      const r = opmRef(addArgs(refDb, step.bundles, step.flags));
      if (r.code !== 0) throw new Error(`reference registry add: ${r.stderr}`);
      const o = await opmOurs(addArgs(ourDb, step.bundles, step.flags));
      if (o.code !== 0) throw new Error(`opm-ts registry add: ${o.stderr}`);
    }
  }, 300_000);

  it('the same tables, indexes and rows', () => {
    const theirs = normalisedDump(refDb);
    const mine = normalisedDump(ourDb);
    expect(mine.schema).toEqual(theirs.schema);
    expect(mine.rows).toEqual(theirs.rows);
  });

  it('render of either database by either tool: the same bytes', async () => {
    const copy = (db: string): string => {
      const to = `${db}.${Math.random().toString(36).slice(2)}.db`;
      copyFileSync(db, to);
      return to;
    };
    const outputs = [
      opmRef(['render', copy(refDb), '-o', 'yaml']).stdout,
      opmRef(['render', copy(ourDb), '-o', 'yaml']).stdout,
      (await opmOurs(['render', copy(refDb), '-o', 'yaml'])).stdout,
      (await opmOurs(['render', copy(ourDb), '-o', 'yaml'])).stdout,
    ];
    for (const o of outputs) expect(o).toBe(outputs[0]);
  });
});

describe('registry add to a database the reference truncated (registry deprecatetruncate)', () => {
  it('the same rows, and the same render by both tools', async () => {
    const dir = mkdtempSync(path.join(tmp, 'truncated-'));
    const start = path.join(dir, 'start.db');
    for (const b of ETCD.slice(0, 3)) {
      const r = opmRef(addArgs(start, [b]));
      if (r.code !== 0) throw new Error(r.stderr);
    }
    const t = opmRef([
      'registry',
      'deprecatetruncate',
      '-b',
      imageOf(ETCD[1] as BundleSpec),
      '-d',
      start,
      '--use-http',
    ]);
    if (t.code !== 0) throw new Error(t.stderr);
    const refDb = path.join(dir, 'ref.db');
    const ourDb = path.join(dir, 'ours.db');
    copyFileSync(start, refDb);
    copyFileSync(start, ourDb);
    expect(opmRef(addArgs(refDb, [LATER])).code).toBe(0);
    const ours = await opmOurs(addArgs(ourDb, [LATER]));
    expect(ours.code, ours.stderr).toBe(0);
    expect(normalisedDump(ourDb)).toEqual(normalisedDump(refDb));
    const a = opmRef(['render', refDb, '-o', 'yaml']).stdout;
    const b = (await opmOurs(['render', ourDb, '-o', 'yaml'])).stdout;
    expect(b).toBe(a);
    expect(b).toContain('name: etcd.v0.9.6');
    expect(b).not.toContain('name: etcd.v0.9.0');
  });
});

describe('registry add: refusals', () => {
  it('a bundle replacing a missing one, without --permissive: both fail with the same words; opm-ts leaves no file', async () => {
    const dir = mkdtempSync(path.join(tmp, 'refuse-'));
    const theirs = opmRef(addArgs(path.join(dir, 'ref.db'), [ORPHAN]));
    const ours = await opmOurs(addArgs(path.join(dir, 'ours.db'), [ORPHAN]));
    expect(theirs.code).toBe(1);
    expect(ours.code).toBe(1);
    expect(theirs.stderr).toContain(
      'Invalid bundle orphan.v2.0.0, replaces nonexistent bundle orphan.v1.0.0',
    );
    expect(ours.stderr).toContain('Invalid bundle orphan.v2.0.0, replaces nonexistent bundle orphan.v1.0.0');
    expect(existsSync(path.join(dir, 'ours.db'))).toBe(false);
  });

  /** Both tools from the same start: the reference's database built by the reference, copied. */
  async function refusal(setup: Scenario['steps'], last: Scenario['steps'][number]): Promise<void> {
    const dir = mkdtempSync(path.join(tmp, 'refusal-'));
    const start = path.join(dir, 'start.db');
    for (const step of setup) {
      const r = opmRef(addArgs(start, step.bundles, step.flags));
      if (r.code !== 0) throw new Error(`reference registry add: ${r.stderr}`);
    }
    const refDb = path.join(dir, 'ref.db');
    const ourDb = path.join(dir, 'ours.db');
    copyFileSync(start, refDb);
    copyFileSync(start, ourDb);
    const theirs = opmRef(addArgs(refDb, last.bundles, last.flags));
    const ours = await opmOurs(addArgs(ourDb, last.bundles, last.flags));
    expect(theirs.code, theirs.stderr).not.toBe(0);
    // opm's own exit codes: 2 when the bundle image is already there, 3 for the package and CSV.
    expect(ours.code, ours.stderr).toBe(theirs.code);
    const said = /^Error: (.*)$/m.exec(theirs.stderr)?.[1] ?? '';
    expect(said).not.toBe('');
    expect(ours.stderr).toContain(said);
    // opm-ts leaves the database as it was.
    expect(normalisedDump(ourDb)).toEqual(normalisedDump(start));
  }

  it('the same bundle twice', async () => {
    await refusal([{ bundles: [ETCD[0] as BundleSpec] }], { bundles: [ETCD[0] as BundleSpec] });
  });

  it('semver-skippatch: a second patch of a minor', async () => {
    const flags = ['--mode', 'semver-skippatch'];
    await refusal(
      SKIPPATCH.map((b) => ({ bundles: [b], flags })),
      { bundles: [SKIPPATCH_LATE], flags },
    );
  });

  it('semver: a version already in the channel', async () => {
    const flags = ['--mode', 'semver'];
    await refusal(
      SEMVER.slice(0, 2).map((b) => ({ bundles: [b], flags })),
      { bundles: [{ ...(SEMVER[1] as BundleSpec) }], flags },
    );
  });
});
