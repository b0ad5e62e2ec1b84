// needs-registry: bundle images pushed to a real docker-registry on 127.0.0.1, from which the
// reference opm's `registry add` builds the index databases.
// `registry rm`, `prune` and `prune-stranded` on databases the reference opm v1.73 wrote: the same
// verb by both tools on copies of one database leaves the same rows (`sqlite3 .dump` of both), and
// each tool renders the other's result as it renders its own.
import { copyFileSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { bundleRegistry } from './bundle-registry.js';
import { csvName, type BundleSpec } from '../sqlite/bundles.js';

const reg = bundleRegistry('opm-sqlite-edit-ref-');
const { tmp, registry, env, opmRef, addAll } = reg;

/** Three packages; etcd requires prom's API (api_requirer rows, and the api clean-up triggers). */
const SPECS: BundleSpec[] = [
  { pkg: 'etcd', version: '0.9.0', channels: ['alpha'], defaultChannel: 'alpha', owns: ['EtcdCluster'] },
  {
    pkg: 'etcd',
    version: '0.9.2',
    channels: ['alpha', 'stable'],
    defaultChannel: 'stable',
    replaces: csvName('etcd', '0.9.0'),
    owns: ['EtcdCluster', 'EtcdBackup'],
    relatedImages: [{ name: 'backup', image: 'quay.io/example/etcd-backup:0.9.2' }],
  },
  {
    pkg: 'etcd',
    version: '0.9.4',
    channels: ['alpha', 'stable'],
    defaultChannel: 'stable',
    replaces: csvName('etcd', '0.9.2'),
    skips: [csvName('etcd', '0.9.1')],
    owns: ['EtcdCluster', 'EtcdBackup'],
    requires: [{ name: 'prometheuses.prom.example.com', kind: 'Prometheus', version: 'v1' }],
    dependencies: [{ type: 'olm.package', value: { packageName: 'prom', version: '>=1.0.0' } }],
  },
  { pkg: 'prom', version: '1.0.0', channels: ['beta'], defaultChannel: 'beta', owns: ['Prometheus'] },
  {
    pkg: 'prom',
    version: '1.1.0',
    channels: ['beta'],
    replaces: csvName('prom', '1.0.0'),
    owns: ['Prometheus'],
  },
  { pkg: 'sv', version: '1.0.0', channels: ['stable'], defaultChannel: 'stable', owns: ['Thing'] },
  { pkg: 'sv', version: '1.1.0', channels: ['stable'], replaces: csvName('sv', '1.0.0'), owns: ['Thing'] },
];
const ORPHAN: BundleSpec = {
  pkg: 'orphan',
  version: '2.0.0',
  channels: ['stable'],
  defaultChannel: 'stable',
  replaces: csvName('orphan', '1.0.0'),
};

const dbs: Record<string, string> = {};

beforeAll(async () => {
  await reg.start();
  await reg.push([...SPECS, ORPHAN]);
  dbs.three = path.join(tmp, 'three.db');
  addAll(dbs.three, SPECS);
  dbs.truncated = path.join(tmp, 'truncated.db');
  copyFileSync(dbs.three, dbs.truncated);
  reg.deprecateTruncate(dbs.truncated, SPECS[1] as BundleSpec);
  dbs.orphan = path.join(tmp, 'orphan.db');
  copyFileSync(dbs.three, dbs.orphan);
  addAll(dbs.orphan, [ORPHAN], ['--permissive']);
}, 600_000);

afterAll(reg.stop);

function copyOf(name: string, tag: string): string {
  const to = path.join(tmp, `${name}-${tag}-${Math.random().toString(36).slice(2)}.db`);
  copyFileSync(dbs[name] as string, to);
  return to;
}

function dump(file: string): string {
  const r = spawnSync('sqlite3', [file, '.dump'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout;
}

function integrity(file: string): string {
  return spawnSync('sqlite3', [file, 'PRAGMA integrity_check'], { encoding: 'utf8' }).stdout.trim();
}

/** Both tools' render of `file` (each on a copy: the reference migrates what it reads). */
async function renders(file: string): Promise<[string, string]> {
  const a = `${file}.r1`;
  const b = `${file}.r2`;
  copyFileSync(file, a);
  copyFileSync(file, b);
  const theirs = opmRef(['render', a, '-o', 'yaml']);
  const ours = await runOpm(['render', b, '-o', 'yaml'], { cwd: tmp, env: env() });
  expect(theirs.code).toBe(0);
  expect(ours.code).toBe(0);
  return [theirs.stdout, ours.stdout];
}

const CASES: [string, string[]][] = [
  ['three', ['rm', '-o', 'etcd']],
  ['three', ['rm', '-o', 'prom']],
  ['three', ['rm', '-o', 'prom,sv']],
  ['three', ['rm', '-o', 'sv', '-o', 'etcd']],
  ['three', ['prune', '-p', 'prom']],
  ['three', ['prune', '-p', 'etcd,sv']],
  ['three', ['prune-stranded']],
  ['truncated', ['rm', '-o', 'etcd']],
  ['truncated', ['prune', '-p', 'etcd']],
  ['truncated', ['prune-stranded']],
  ['orphan', ['prune-stranded']],
  ['orphan', ['rm', '-o', 'prom']],
  ['orphan', ['prune', '-p', 'sv']],
  ['three', ['deprecatetruncate', '-b', '@etcd:0.9.2']],
  ['three', ['deprecatetruncate', '-b', '@etcd:0.9.0']],
  ['three', ['deprecatetruncate', '-b', '@prom:1.0.0,@sv:1.0.0']],
  ['three', ['deprecatetruncate', '-b', '@etcd:0.9.4', '--permissive']],
  ['three', ['deprecatetruncate', '-b', '@etcd:0.9.4', '--allow-package-removal']],
  ['three', ['deprecatetruncate', '-b', '@prom:1.1.0,@etcd:0.9.0', '--allow-package-removal']],
  ['truncated', ['deprecatetruncate', '-b', '@prom:1.0.0']],
  ['truncated', ['deprecatetruncate', '-b', '@etcd:0.9.2']],
  ['orphan', ['deprecatetruncate', '-b', '@sv:1.0.0']],
];

/** `@pkg:version` stands for that bundle's image in the registry started for the run. */
const images = (args: string[]): string[] =>
  args.map((a) =>
    a.replace(
      /@([a-z]+):([0-9.]+)/g,
      (_m, pkg: string, version: string) => `${registry().plain.host}/bundles/${pkg}:${version}`,
    ),
  );

describe.each(CASES)('a %s database, registry %j', (name, verb) => {
  it('the rows both tools leave are the same, and each renders the other’s result as its own', async () => {
    const theirsDb = copyOf(name, 'ref');
    const oursDb = copyOf(name, 'ours');
    const theirs = opmRef(['registry', ...images(verb), '-d', theirsDb]);
    const ours = await runOpm(['registry', ...images(verb), '-d', oursDb], { cwd: tmp, env: env() });
    expect(theirs.code, theirs.stderr).toBe(0);
    expect(ours.code, ours.stderr).toBe(0);
    expect(integrity(oursDb)).toBe('ok');
    expect(dump(oursDb)).toBe(dump(theirsDb));
    // Each case changes something, but prune-stranded where no bundle is stranded (only orphan has one).
    const unchanged =
      (name !== 'orphan' && verb[0] === 'prune-stranded') ||
      (verb.includes('@etcd:0.9.4') && !verb.includes('--allow-package-removal'));
    if (unchanged) expect(dump(oursDb)).toBe(dump(dbs[name] as string));
    else expect(dump(oursDb)).not.toBe(dump(dbs[name] as string));
    const [refOfTheirs, oursOfTheirs] = await renders(theirsDb);
    const [refOfOurs, oursOfOurs] = await renders(oursDb);
    expect(oursOfTheirs).toBe(refOfTheirs);
    expect(refOfOurs).toBe(refOfTheirs);
    expect(oursOfOurs).toBe(refOfTheirs);
  });
});

describe('deprecatetruncate refused', () => {
  it.each([
    ['the default channel head', ['-b', '@etcd:0.9.4']],
    ['an image the database does not hold', ['-b', '@etcd:9.9.9']],
  ])('%s: both exit 1; opm-ts leaves the file as it was', async (_what, args) => {
    const theirs = opmRef(['registry', 'deprecatetruncate', ...images(args), '-d', copyOf('three', 'ref')]);
    const oursDb = copyOf('three', 'ours');
    const before = readFileSync(oursDb);
    const ours = await runOpm(['registry', 'deprecatetruncate', ...images(args), '-d', oursDb], {
      cwd: tmp,
      env: env(),
    });
    expect(theirs.code).toBe(1);
    expect(ours.code).toBe(1);
    expect(readFileSync(oursDb).equals(before)).toBe(true);
  });
});

describe('a package the database does not hold', () => {
  it('both exit 1; opm-ts leaves the file as it was', async () => {
    const theirs = opmRef(['registry', 'rm', '-o', 'nosuch', '-d', copyOf('three', 'ref')]);
    const oursDb = copyOf('three', 'ours');
    const before = readFileSync(oursDb);
    const ours = await runOpm(['registry', 'rm', '-o', 'nosuch', '-d', oursDb], { cwd: tmp, env: env() });
    expect(theirs.code).toBe(1);
    expect(ours.code).toBe(1);
    expect(ours.stderr).toContain('no package found for packagename nosuch');
    expect(readFileSync(oursDb).equals(before)).toBe(true);
  });

  it('with --permissive both go on and leave the same rows', async () => {
    const theirsDb = copyOf('three', 'ref');
    const oursDb = copyOf('three', 'ours');
    expect(opmRef(['registry', 'rm', '-o', 'nosuch,prom', '--permissive', '-d', theirsDb]).code).toBe(0);
    const ours = await runOpm(['registry', 'rm', '-o', 'nosuch,prom', '--permissive', '-d', oursDb], {
      cwd: tmp,
      env: env(),
    });
    expect(ours.code).toBe(0);
    expect(dump(oursDb)).toBe(dump(theirsDb));
  });
});

describe('the reference reads what opm-ts wrote', () => {
  it('a database read and written again whole: the same dump, the same render by the reference', async () => {
    const { readDatabaseContent, writeDatabaseContent } = await import('../../src/sqlite/write/content.js');
    const src = copyOf('truncated', 'src');
    const out = path.join(tmp, 'rewritten.db');
    writeDatabaseContent(out, readDatabaseContent(src));
    expect(integrity(out)).toBe('ok');
    expect(dump(out)).toBe(dump(src));
    const [refOfSrc] = await renders(src);
    const [refOfOut, oursOfOut] = await renders(out);
    expect(refOfOut).toBe(refOfSrc);
    expect(oursOfOut).toBe(refOfSrc);
  });
});
