// needs-registry: bundle and index images on a real docker-registry on 127.0.0.1.
// `index rm|prune|prune-stranded|deprecatetruncate` from an index image whose database the
// reference opm v1.73 wrote: with --generate, both tools leave the same Dockerfile bytes and a
// database with the same rows, which both render the same (also from an image whose database is at
// schema 9 to 12, migrated to 13 by both); `index rm -u docker|podman` runs the
// same command line on the same Dockerfile; with -c none, opm-ts builds the index
// image itself and pushes it, and `render` of the pushed image by both tools gives the same bytes.
import { copyFileSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { bundleRegistry, insertRows as rows, normalToolLog, type RefRun } from './bundle-registry.js';
import { normalisedDump } from './sqlite-dump.js';
import { FOO_BUNDLES, migrationInputsSql, rowsSql, schemaSql, sqlite3 } from '../sqlite/index-db.js';
import { csvName, type BundleSpec } from '../sqlite/bundles.js';

const reg = bundleRegistry('opm-index-edit-');
const { tmp, registry, env, imageOf, opmRef } = reg;

/** Two packages of two bundles each, and a bundle whose package the reference adds permissively. */
const SPECS: BundleSpec[] = [
  { pkg: 'etcd', version: '0.9.0', channels: ['alpha'], defaultChannel: 'alpha', owns: ['EtcdCluster'] },
  {
    pkg: 'etcd',
    version: '0.9.2',
    channels: ['alpha', 'stable'],
    defaultChannel: 'stable',
    replaces: csvName('etcd', '0.9.0'),
    owns: ['EtcdCluster'],
  },
  {
    pkg: 'etcd',
    version: '0.9.4',
    channels: ['alpha', 'stable'],
    defaultChannel: 'stable',
    replaces: csvName('etcd', '0.9.2'),
    owns: ['EtcdCluster'],
  },
  { pkg: 'prom', version: '1.0.0', channels: ['beta'], defaultChannel: 'beta', owns: ['Prometheus'] },
  {
    pkg: 'prom',
    version: '1.1.0',
    channels: ['beta'],
    replaces: csvName('prom', '1.0.0'),
    owns: ['Prometheus'],
  },
];
// Replaces a bundle that is not there: added with --permissive, it leaves a stranded bundle row.
const ORPHAN: BundleSpec = {
  pkg: 'orphan',
  version: '2.0.0',
  channels: ['stable'],
  defaultChannel: 'stable',
  replaces: csvName('orphan', '1.0.0'),
};

let base = '';
let fromIndex = '';
let indexDb = '';

beforeAll(async () => {
  await reg.start();
  await reg.push([...SPECS, ORPHAN]);
  base = await reg.pushBase();
  // The index image's database, made by the reference one bundle at a time.
  indexDb = path.join(tmp, 'index.db');
  reg.addAll(indexDb, SPECS);
  reg.addAll(indexDb, [ORPHAN], ['--permissive']);
  fromIndex = await reg.pushIndex(indexDb, 'index/all');
}, 600_000);

afterAll(reg.stop);

// opm's `index prune` and `prune-stranded` pull --from-index with their container tool (podman
// unless -c docker), which this machine does not have: there the reference's database is its
// registry verb's edit of a copy of the image's database, and its Dockerfile that of `index rm`
// (one function of opm writes it for every verb).
const VERBS: [string, () => string[], string[] | undefined][] = [
  ['rm', () => ['-o', 'prom'], undefined],
  ['prune', () => ['-p', 'etcd'], ['registry', 'prune', '-p', 'etcd']],
  ['prune-stranded', () => [], ['registry', 'prune-stranded']],
  ['deprecatetruncate', () => ['-b', imageOf(SPECS[1] as BundleSpec)], undefined],
];

/**
 * The reference's `index VERB` run as `args` in `refDir`; with `registryVerb`, its Dockerfile is that
 * of `index rm -o none` and its database its registry verb's edit of a copy of `db`.
 */
function reference(args: string[], refDir: string, registryVerb: string[] | undefined, db: string): RefRun {
  if (registryVerb === undefined) return opmRef(args, refDir);
  const fromIndex = args[args.indexOf('-f') + 1] as string;
  const rm = opmRef(
    ['index', 'rm', '--generate', '-f', fromIndex, '-o', 'none', '-i', base, '--use-http', '--permissive'],
    refDir,
  );
  if (rm.code !== 0) return rm;
  const refDb = path.join(refDir, 'database', 'index.db');
  copyFileSync(db, refDb);
  return opmRef([...registryVerb, '-d', refDb], refDir);
}

describe('index VERB --generate', () => {
  it.each(VERBS)(
    '%s: the same Dockerfile bytes, database rows and render',
    async (verb, more, registryVerb) => {
      const refDir = mkdtempSync(path.join(tmp, 'gen-ref-'));
      const ourDir = mkdtempSync(path.join(tmp, 'gen-ours-'));
      const args = ['index', verb, '--generate', '-f', fromIndex, ...more(), '-i', base, '--use-http'];
      const refDb = path.join(refDir, 'database', 'index.db');
      const theirs = reference(args, refDir, registryVerb, indexDb);
      const ours = await runOpm(args, { cwd: ourDir, env: env() });
      expect(theirs.code, theirs.stderr).toBe(0);
      expect(ours.code, ours.stderr).toBe(0);
      const file = 'index.Dockerfile';
      expect(readFileSync(path.join(ourDir, file), 'utf8')).toBe(
        readFileSync(path.join(refDir, file), 'utf8'),
      );
      const ourDb = path.join(ourDir, 'database', 'index.db');
      expect(rows(ourDb)).toEqual(rows(refDb));
      // Every verb changes something in this index.
      expect(rows(ourDb)).not.toEqual(rows(indexDb));
      const renderRef = opmRef(['render', refDb, '-o', 'yaml'], tmp);
      const renderOurs = await runOpm(['render', ourDb, '-o', 'yaml'], { cwd: tmp, env: env() });
      expect(renderRef.code, renderRef.stderr).toBe(0);
      expect(renderOurs.code, renderOurs.stderr).toBe(0);
      expect(renderOurs.stdout).toBe(renderRef.stdout);
    },
  );

  it('without --from-index: a usage error, as opm', async () => {
    const r = await runOpm(['index', 'rm', '-o', 'prom'], { cwd: tmp, env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--from-index');
  });
});

const OLD_VERBS: [string, string[], string[] | undefined][] = [
  ['rm', ['-o', 'foo'], undefined],
  ['prune-stranded', [], ['registry', 'prune-stranded']],
  ['deprecatetruncate', ['-b', 'example.com/foo:1.0.0'], undefined],
];

describe.each([9, 10, 11, 12])('index VERB --generate from an index image at schema %i', (version) => {
  let oldDb = '';
  let oldIndex = '';
  beforeAll(async () => {
    oldDb = path.join(tmp, `v${version}.db`);
    sqlite3(
      oldDb,
      `${schemaSql(version)}\n${rowsSql('foo', 'stable', FOO_BUNDLES, version)}\n${migrationInputsSql(version)}`,
    );
    oldIndex = await reg.pushIndex(oldDb, 'index/old', `v${version}`);
  });

  it.each(OLD_VERBS)(
    '%s: migrated to 13, the same Dockerfile bytes, rows and render',
    async (verb, more, rv) => {
      const refDir = mkdtempSync(path.join(tmp, 'old-ref-'));
      const ourDir = mkdtempSync(path.join(tmp, 'old-ours-'));
      const args = ['index', verb, '--generate', '-f', oldIndex, ...more, '-i', base, '--use-http'];
      const theirs = reference(args, refDir, rv, oldDb);
      const ours = await runOpm(args, { cwd: ourDir, env: env() });
      expect(theirs.code, theirs.stderr).toBe(0);
      expect(ours.code, ours.stderr).toBe(0);
      expect(readFileSync(path.join(ourDir, 'index.Dockerfile'), 'utf8')).toBe(
        readFileSync(path.join(refDir, 'index.Dockerfile'), 'utf8'),
      );
      const refDb = path.join(refDir, 'database', 'index.db');
      const ourDb = path.join(ourDir, 'database', 'index.db');
      const mine = normalisedDump(ourDb);
      expect(mine).toEqual(normalisedDump(refDb));
      expect(mine.rows.schema_migrations).toEqual(["13,'<time>'"]);
      const renderRef = opmRef(['render', refDb, '-o', 'yaml'], tmp);
      const renderOurs = await runOpm(['render', ourDb, '-o', 'yaml'], { cwd: tmp, env: env() });
      expect(renderRef.code, renderRef.stderr).toBe(0);
      expect(renderOurs.stdout).toBe(renderRef.stdout);
    },
  );
});

describe('index rm with a container tool: the command line opm runs', () => {
  // docker and podman on PATH are recorders (reg.recorded): only the command line is compared, not an engine.
  it.each(['docker', 'podman'])('-u %s: the same argv and Dockerfile, nothing left behind', async (tool) => {
    const out: string[] = [];
    for (const side of ['ref', 'ours'] as const) {
      const args = [
        'index',
        'rm',
        '-o',
        'prom',
        '-f',
        fromIndex,
        '-t',
        'example.com/i:1',
        '-u',
        tool,
        '--use-http',
      ];
      const r = await reg.recorded(side, args);
      expect(r.code, r.stderr).toBe(0);
      out.push(normalToolLog(r.log));
      expect(readdirSync(r.dir), side).toEqual([]);
    }
    expect(out[1]).toBe(out[0]);
    expect(out[0]).toContain('example.com/i:1');
  });
});

describe('index rm -c none (opm-ts builds the image itself)', () => {
  it('pushes an index image whose render by both tools is the same', async () => {
    const dir = mkdtempSync(path.join(tmp, 'build-'));
    const tag = `${registry().plain.host}/index/all:v2`;
    const r = await runOpm(
      [
        'index',
        'rm',
        '-c',
        'none',
        '-o',
        'prom',
        '-f',
        fromIndex,
        '-i',
        base,
        '-t',
        tag,
        '--push',
        '--use-http',
      ],
      { cwd: dir, env: { ...env(), SOURCE_DATE_EPOCH: '0' } },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^sha256:[0-9a-f]{64}$/);
    // Nothing left behind in the working folder.
    expect(spawnSync('ls', ['-A', dir], { encoding: 'utf8' }).stdout).toBe('');
    const theirs = opmRef(['render', tag, '--use-http', '-o', 'yaml'], dir);
    const ours = await runOpm(['render', tag, '--use-http', '-o', 'yaml'], { cwd: dir, env: env() });
    expect(theirs.code, theirs.stderr).toBe(0);
    expect(ours.code).toBe(0);
    expect(ours.stdout).toBe(theirs.stdout);
    expect(ours.stdout).toContain('name: etcd.v0.9.4');
    expect(ours.stdout).not.toContain('name: prom');
  });
});
