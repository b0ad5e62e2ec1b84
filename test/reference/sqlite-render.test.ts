// needs-registry: bundle images pushed to a real docker-registry on 127.0.0.1, from which the
// reference opm's `registry add` builds the index databases.
// SQLite index databases written by the reference opm v1.73 itself (`registry add` in the three
// modes, `registry deprecatetruncate`, `--permissive`), rendered and migrated by both tools: the
// same bytes, and the database opm-ts read left as it was.
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { bundleRegistry } from './bundle-registry.js';
import { csvName, type BundleSpec } from '../sqlite/bundles.js';

const reg = bundleRegistry('opm-sqlite-ref-');
const { tmp, env, opmRef, addAll } = reg;

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex').toString('base64');

/** The bundles of each scenario, added in this order. */
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
      { type: 'custom.flag', value: { on: true, n: 4.1 } },
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
    icon: { data: `${PNG.slice(0, 8)} ${PNG.slice(8)}`, mediatype: 'image/png' },
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
  {
    pkg: 'prom',
    version: '1.0.0',
    channels: ['beta'],
    defaultChannel: 'beta',
    owns: ['Prometheus'],
  },
  {
    pkg: 'prom',
    version: '1.1.0',
    channels: ['beta'],
    replaces: csvName('prom', '1.0.0'),
    owns: ['Prometheus'],
    icon: { data: '!!not base64!!', mediatype: 'image/svg+xml' },
  },
];

const SEMVER: BundleSpec[] = [
  { pkg: 'sv', version: '1.0.0', channels: ['stable'], defaultChannel: 'stable', owns: ['Thing'] },
  { pkg: 'sv', version: '1.0.1', channels: ['stable'], owns: ['Thing'] },
  { pkg: 'sv', version: '1.1.0', channels: ['stable'], owns: ['Thing'] },
  { pkg: 'sv', version: '1.1.3', channels: ['stable'], owns: ['Thing'] },
  { pkg: 'sv', version: '2.0.0', channels: ['stable'], owns: ['Thing'] },
];

/** semver-skippatch: a patch after a minor that already had one is refused by the reference ("Invalid graph"). */
const SKIPPATCH: BundleSpec[] = SEMVER.filter((b) => b.version !== '1.1.3');

const dbs: Record<string, string> = {};

beforeAll(async () => {
  await reg.start();
  const orphan: BundleSpec = {
    pkg: 'orphan',
    version: '2.0.0',
    channels: ['stable'],
    defaultChannel: 'stable',
    replaces: csvName('orphan', '1.0.0'),
  };
  await reg.push([...ETCD, ...SEMVER, orphan]);
  dbs.replaces = path.join(tmp, 'replaces.db');
  addAll(dbs.replaces, ETCD);
  dbs.semver = path.join(tmp, 'semver.db');
  addAll(dbs.semver, SEMVER, ['--mode', 'semver']);
  dbs.skippatch = path.join(tmp, 'skippatch.db');
  addAll(dbs.skippatch, SKIPPATCH, ['--mode', 'semver-skippatch']);
  dbs.truncated = path.join(tmp, 'truncated.db');
  addAll(dbs.truncated, ETCD);
  reg.deprecateTruncate(dbs.truncated, ETCD[1] as BundleSpec);
  dbs.permissive = path.join(tmp, 'permissive.db');
  addAll(dbs.permissive, [orphan], ['--permissive']);
}, 600_000);

afterAll(reg.stop);

const sha = (f: string): string => createHash('sha256').update(readFileSync(f)).digest('hex');

/** A fresh copy of a scenario's database: the reference migrates what it reads in place. */
function copyOf(name: string, tag: string): string {
  const to = path.join(tmp, `${name}-${tag}-${Math.random().toString(36).slice(2)}.db`);
  copyFileSync(dbs[name] as string, to);
  return to;
}

function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string): void => {
    for (const n of readdirSync(d).sort()) {
      const abs = path.join(d, n);
      if (statSync(abs).isDirectory()) walk(abs, `${rel}${n}/`);
      else out[`${rel}${n}`] = readFileSync(abs, 'utf8');
    }
  };
  walk(dir, '');
  return out;
}

describe('what the databases hold', () => {
  it('the replaces database: skips, skipRange, icons (one with spaces, one refused), dependencies', async () => {
    const ours = await runOpm(['render', copyOf('replaces', 'look'), '-o', 'yaml'], { cwd: tmp, env: env() });
    expect(ours.code).toBe(0);
    for (const text of [
      'skips:',
      'skipRange:',
      'base64data:',
      'olm.package.required',
      'olm.gvk.required',
      'olm.maxOpenShiftVersion',
      'custom.flag',
    ]) {
      expect(ours.stdout).toContain(text);
    }
    expect(ours.stderr).toContain('base64 decode CSV icon for bundle "prom.v1.1.0"');
  });

  it('the truncated database leaves out the deprecated bundle and those it truncated', async () => {
    const ours = await runOpm(['render', copyOf('truncated', 'look'), '-o', 'yaml'], {
      cwd: tmp,
      env: env(),
    });
    expect(ours.code).toBe(0);
    expect(ours.stdout).not.toContain('name: etcd.v0.9.0');
    expect(ours.stdout).not.toContain('name: etcd.v0.9.2');
    expect(ours.stdout).toContain('name: etcd.v0.9.4');
  });
});

const SCENARIOS = ['replaces', 'semver', 'skippatch', 'truncated', 'permissive'];

describe.each(SCENARIOS)('a %s database', (name) => {
  it.each([
    ['json', []],
    ['yaml', []],
    ['json', ['--migrate-level', 'bundle-object-to-csv-metadata']],
    ['yaml', ['--migrate']],
  ] as const)('render -o %s %s: the same bytes, the input unchanged', async (format, more) => {
    const theirs = opmRef(['render', copyOf(name, 'ref'), '-o', format, ...more]);
    const mine = copyOf(name, 'ours');
    const before = sha(mine);
    const ours = await runOpm(['render', mine, '-o', format, ...more], { cwd: tmp, env: env() });
    expect(theirs.code).toBe(0);
    expect(ours.code).toBe(0);
    expect(ours.stdout).toBe(theirs.stdout);
    expect(ours.stderr).toContain('DEPRECATION NOTICE');
    expect(sha(mine)).toBe(before);
    if (name === 'permissive') expect(ours.stdout).toBe('');
    else expect(ours.stdout).toContain('olm.bundle');
  });

  it.each([['json'], ['yaml']])('migrate -o %s: the same tree', async (format) => {
    const outRef = path.join(tmp, `${name}-migrate-ref-${format}`);
    const outOurs = path.join(tmp, `${name}-migrate-ours-${format}`);
    const theirs = opmRef(['migrate', copyOf(name, 'ref'), outRef, '-o', format]);
    const ours = await runOpm(['migrate', copyOf(name, 'ours'), outOurs, '-o', format], {
      cwd: tmp,
      env: env(),
    });
    expect(theirs.code).toBe(0);
    expect(ours.code).toBe(0);
    expect(tree(outOurs)).toEqual(tree(outRef));
  });
});

describe('an index image (the database under the label operators.operatorframework.io.index.database.v1)', () => {
  const DB_LABEL = 'operators.operatorframework.io.index.database.v1';

  const pushIndex = (tag: string, labels: Record<string, string>): Promise<string> =>
    reg.pushIndex(dbs.replaces as string, 'index/catalog', tag, labels);

  it.each([['json'], ['yaml']])('render -o %s: the same bytes', async (format) => {
    const ref = await pushIndex('v1', { [DB_LABEL]: '/database/index.db' });
    const theirs = opmRef(['render', ref, '-o', format, '--use-http']);
    const ours = await runOpm(['render', ref, '-o', format, '--use-http'], { cwd: tmp, env: env() });
    expect(theirs.code).toBe(0);
    expect(ours.code).toBe(0);
    expect(ours.stdout).toBe(theirs.stdout);
    expect(ours.stdout).toContain('etcd.v0.9.4');
  });

  // The reference's migrate pulls over HTTPS whatever --use-http says: it migrates the file instead.
  it('migrate: the tree the reference writes from the same database', async () => {
    const ref = await pushIndex('v1', { [DB_LABEL]: '/database/index.db' });
    const outRef = path.join(tmp, 'index-migrate-ref');
    const outOurs = path.join(tmp, 'index-migrate-ours');
    expect(opmRef(['migrate', copyOf('replaces', 'ref'), outRef]).code).toBe(0);
    const ours = await runOpm(['migrate', ref, outOurs, '--use-http'], { cwd: tmp, env: env() });
    expect(ours.code).toBe(0);
    expect(tree(outOurs)).toEqual(tree(outRef));
  });

  it('without the label: both refuse, opm-ts in one line', async () => {
    const ref = await pushIndex('nolabel', { other: 'x' });
    const theirs = opmRef(['render', ref, '--use-http']);
    const ours = await runOpm(['render', ref, '--use-http'], { cwd: tmp, env: env() });
    expect(theirs.code).toBe(1);
    expect(ours.code).toBe(1);
    expect(ours.stdout).toBe('');
    expect(ours.stderr.trim().split('\n')).toHaveLength(1);
    expect(ours.stderr).toContain('image type could not be determined');
  });

  // The reference's migrate pulls over HTTPS and its index verbs pull with podman: opm-ts alone.
  it.each([
    ['migrate', (ref: string) => ['migrate', ref, 'out-nolabel'], 'image type could not be determined'],
    [
      'index rm --generate',
      (ref: string) => ['index', 'rm', '--generate', '-f', ref, '-o', 'etcd'],
      'missing label',
    ],
    [
      'index prune --generate',
      (ref: string) => ['index', 'prune', '--generate', '-f', ref, '-p', 'etcd'],
      'missing label',
    ],
  ] as const)('without the label, %s: one line, exit 1, nothing written', async (_n, args, says) => {
    const ref = await pushIndex('nolabel', { other: 'x' });
    const dir = mkdtempSync(path.join(tmp, 'nolabel-'));
    const ours = await runOpm([...args(ref), '--use-http'], { cwd: dir, env: env() });
    expect(ours.code).toBe(1);
    expect(ours.stdout).toBe('');
    const lines = ours.stderr
      .split('\n')
      .filter(
        (l) => l.trim() !== '' && !l.includes('DEPRECATION NOTICE') && !/level=(info|warning) /.test(l),
      );
    expect(lines, ours.stderr).toHaveLength(1);
    expect(lines[0]).toContain(says);
    expect(readdirSync(dir)).toEqual([]);
  });
});
