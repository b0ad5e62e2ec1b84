// needs-registry: bundle and index images on a real docker-registry on 127.0.0.1.
// `index add`: with --generate, both tools leave the same Dockerfile bytes and a database with the
// same rows (from scratch, --from-index an index image, and --overwrite-latest of its channel
// head, --enable-alpha of a substitute); with -c none, opm-ts builds the index
// image itself, pushes it, and `render` of the pushed image by both tools gives the same bytes.
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { bundleRegistry, insertRows as rows, normalToolLog } from './bundle-registry.js';
import { csvName, type BundleSpec } from '../sqlite/bundles.js';

const reg = bundleRegistry('opm-index-add-');
const { tmp, registry, env, imageOf, opmRef } = reg;

const BUNDLES: BundleSpec[] = [
  { pkg: 'etcd', version: '0.9.0', channels: ['alpha'], defaultChannel: 'alpha', owns: ['EtcdCluster'] },
  {
    pkg: 'etcd',
    version: '0.9.2',
    channels: ['alpha', 'stable'],
    defaultChannel: 'stable',
    replaces: csvName('etcd', '0.9.0'),
    skips: [csvName('etcd', '0.9.1')],
    owns: ['EtcdCluster'],
  },
];
// Names its default channel: opm adds the bundles of one call in Go map order, and takes the
// default channel from the last bundle at the highest version so far that names one.
const NEXT: BundleSpec = {
  pkg: 'etcd',
  version: '0.9.4',
  channels: ['stable'],
  defaultChannel: 'stable',
  replaces: csvName('etcd', '0.9.2'),
  owns: ['EtcdCluster'],
};

/** The head 0.9.2 of the index image again, from another image with another API. */
const HEAD_B: BundleSpec = {
  ...(BUNDLES[1] as BundleSpec),
  tag: '0.9.2-b',
  owns: ['EtcdCluster', 'EtcdBackup'],
};
/** 0.9.0 again: not a channel head in the index image. */
const TAIL_B: BundleSpec = { ...(BUNDLES[0] as BundleSpec), tag: '0.9.0-b' };

/** An index of one package for --enable-alpha: 1.0.0 and 1.0.1, then a rebuild substituting for 1.0.1. */
const SUB: BundleSpec[] = [
  { pkg: 'sub', version: '1.0.0', channels: ['stable'], defaultChannel: 'stable' },
  { pkg: 'sub', version: '1.0.1', channels: ['stable'], replaces: csvName('sub', '1.0.0') },
];
const SUB_C: BundleSpec = {
  pkg: 'sub',
  version: '1.0.1+1',
  tag: '1.0.1-1',
  channels: ['stable'],
  replaces: csvName('sub', '1.0.0'),
  substitutesFor: csvName('sub', '1.0.1'),
  owns: ['Thing'],
};

let base = '';
let subIndex = '';
let fromIndex = '';

beforeAll(async () => {
  await reg.start();
  await reg.push([...BUNDLES, NEXT, HEAD_B, TAIL_B, ...SUB, SUB_C]);
  base = await reg.pushBase();
  // An index image of the first two bundles, its database made by the reference.
  const dir = mkdtempSync(path.join(tmp, 'from-'));
  const r = opmRef(['index', 'add', '--generate', '-b', BUNDLES.map(imageOf).join(','), '--use-http'], dir);
  if (r.code !== 0) throw new Error(r.stderr);
  fromIndex = await reg.pushIndex(path.join(dir, 'database', 'index.db'), 'index/etcd');
  const subDb = path.join(tmp, 'sub.db');
  reg.addAll(subDb, SUB);
  subIndex = await reg.pushIndex(subDb, 'index/sub');
}, 600_000);

afterAll(reg.stop);

describe('index add --generate', () => {
  it.each([
    ['from scratch', () => [...BUNDLES, NEXT], () => [] as string[]],
    ['--from-index an index image', () => [NEXT], () => ['--from-index', fromIndex]],
    [
      '-d a named Dockerfile and -i a binary image',
      () => [...BUNDLES, NEXT],
      () => ['-d', 'my.Dockerfile', '-i', base],
    ],
  ] as const)('%s: the same Dockerfile bytes and database rows', async (_name, bundles, more) => {
    const refDir = mkdtempSync(path.join(tmp, 'gen-ref-'));
    const ourDir = mkdtempSync(path.join(tmp, 'gen-ours-'));
    const args = [
      'index',
      'add',
      '--generate',
      '-b',
      bundles().map(imageOf).join(','),
      ...more(),
      '--use-http',
    ];
    const theirs = opmRef(args, refDir);
    const ours = await runOpm(args, { cwd: ourDir, env: env() });
    expect(theirs.code, theirs.stderr).toBe(0);
    expect(ours.code, ours.stderr).toBe(0);
    const file = more().includes('-d') ? 'my.Dockerfile' : 'index.Dockerfile';
    expect(readFileSync(path.join(ourDir, file), 'utf8')).toBe(readFileSync(path.join(refDir, file), 'utf8'));
    expect(rows(path.join(ourDir, 'database', 'index.db'))).toEqual(
      rows(path.join(refDir, 'database', 'index.db')),
    );
  });

  it("--overwrite-latest of the index image's channel head: the same Dockerfile bytes and rows", async () => {
    const refDir = mkdtempSync(path.join(tmp, 'over-ref-'));
    const ourDir = mkdtempSync(path.join(tmp, 'over-ours-'));
    const args = ['index', 'add', '--generate', '-b', imageOf(HEAD_B), '--from-index', fromIndex];
    const theirs = opmRef([...args, '--overwrite-latest', '--use-http'], refDir);
    const ours = await runOpm([...args, '--overwrite-latest', '--use-http'], { cwd: ourDir, env: env() });
    expect(theirs.code, theirs.stderr).toBe(0);
    expect(ours.code, ours.stderr).toBe(0);
    const file = 'index.Dockerfile';
    expect(readFileSync(path.join(ourDir, file), 'utf8')).toBe(readFileSync(path.join(refDir, file), 'utf8'));
    const mine = rows(path.join(ourDir, 'database', 'index.db'));
    expect(mine).toEqual(rows(path.join(refDir, 'database', 'index.db')));
    // The head now comes from the other image, and the old one is gone.
    expect(mine.join('\n')).toContain(`'${imageOf(HEAD_B)}'`);
    expect(mine.join('\n')).not.toContain(`'${imageOf(BUNDLES[1] as BundleSpec)}'`);
  });

  it.each([
    ['without --overwrite-latest, the head again', HEAD_B, [] as string[]],
    ['--overwrite-latest of a bundle that is not a channel head', TAIL_B, ['--overwrite-latest']],
  ] as const)('%s: both refuse, in the same words', async (_name, bundle, flags) => {
    const refDir = mkdtempSync(path.join(tmp, 'over-no-ref-'));
    const ourDir = mkdtempSync(path.join(tmp, 'over-no-ours-'));
    const args = ['index', 'add', '--generate', '-b', imageOf(bundle), '--from-index', fromIndex, ...flags];
    const theirs = opmRef([...args, '--use-http'], refDir);
    const ours = await runOpm([...args, '--use-http'], { cwd: ourDir, env: env() });
    expect(theirs.code, theirs.stderr).not.toBe(0);
    expect(ours.code, ours.stderr).not.toBe(0);
    const said = /^Error: (.*)$/m.exec(theirs.stderr)?.[1] ?? '';
    expect(said).not.toBe('');
    expect(ours.stderr).toContain(said);
  });

  it.each([
    ['--enable-alpha: a substitute added', ['--enable-alpha'], 0],
    ['without --enable-alpha: a substitute refused', [] as string[], 1],
  ] as const)('%s, as the reference does', async (_name, flags, code) => {
    const refDir = mkdtempSync(path.join(tmp, 'alpha-ref-'));
    const ourDir = mkdtempSync(path.join(tmp, 'alpha-ours-'));
    const args = ['index', 'add', '--generate', '-b', imageOf(SUB_C), '--from-index', subIndex, ...flags];
    const theirs = opmRef([...args, '--use-http'], refDir);
    const ours = await runOpm([...args, '--use-http'], { cwd: ourDir, env: env() });
    expect(theirs.code, theirs.stderr).toBe(code);
    expect(ours.code, ours.stderr).toBe(code);
    if (code !== 0) {
      const said = /^Error: (.*)$/m.exec(theirs.stderr)?.[1] ?? '';
      expect(said).toContain('SubstitutesFor is an alpha-only feature');
      expect(ours.stderr).toContain(said);
      return;
    }
    const file = 'index.Dockerfile';
    expect(readFileSync(path.join(ourDir, file), 'utf8')).toBe(readFileSync(path.join(refDir, file), 'utf8'));
    const mine = rows(path.join(ourDir, 'database', 'index.db'));
    expect(mine).toEqual(rows(path.join(refDir, 'database', 'index.db')));
    expect(mine.join('\n')).toContain("'sub.v1.0.1+1'");
  });

  it('an image without the database label: both refuse, in the same words', async () => {
    const dir = mkdtempSync(path.join(tmp, 'nolabel-'));
    const args = ['index', 'add', '--generate', '-b', imageOf(NEXT), '--from-index', base, '--use-http'];
    const theirs = opmRef(args, dir);
    const ours = await runOpm(args, { cwd: dir, env: env() });
    expect(theirs.code).not.toBe(0);
    expect(ours.code).toBe(1);
    expect(theirs.stderr).toContain(`index image ${base} missing label`);
    expect(ours.stderr).toContain(`index image ${base} missing label`);
  });
});

describe('index add with a container tool: the command line opm runs', () => {
  // docker and podman on PATH are recorders (reg.recorded): only the command line is compared, not an engine.
  it.each([
    ['-u docker', ['-u', 'docker']],
    ['-u podman', ['-u', 'podman']],
    ['-u podman -d F', ['-u', 'podman', '-d', 'my.Dockerfile']],
  ] as const)('%s: the same argv and Dockerfile, nothing left behind', async (_n, tool) => {
    const out: string[] = [];
    for (const side of ['ref', 'ours'] as const) {
      const args = [
        'index',
        'add',
        '-b',
        imageOf(NEXT),
        '--from-index',
        fromIndex,
        '-t',
        'example.com/i:1',
        ...tool,
        '--use-http',
      ];
      const r = await reg.recorded(side, args);
      expect(r.code, r.stderr).toBe(0);
      out.push(normalToolLog(r.log));
      const left = readdirSync(r.dir).filter((f) => f !== 'my.Dockerfile' && !f.startsWith('bundle_tmp'));
      expect(left, side).toEqual([]);
    }
    expect(out[1]).toBe(out[0]);
    expect(out[0]).toContain('example.com/i:1');
  });
});

describe('index add -c none (opm-ts builds the image itself)', () => {
  it('pushes an index image whose render by both tools is the same, with the same digest twice', async () => {
    const dir = mkdtempSync(path.join(tmp, 'build-'));
    const tag = `${registry().plain.host}/index/etcd:v2`;
    const args = ['index', 'add', '-c', 'none', '-b', imageOf(NEXT), '--from-index', fromIndex];
    const build = async (): Promise<string> => {
      const r = await runOpm([...args, '-i', base, '-t', tag, '--push', '--use-http'], {
        cwd: dir,
        env: { ...env(), SOURCE_DATE_EPOCH: '0' },
      });
      expect(r.code, r.stderr).toBe(0);
      return r.stdout.trim();
    };
    const first = await build();
    expect(first).toMatch(/^sha256:[0-9a-f]{64}$/);
    // Nothing left behind in the working folder.
    expect(spawnSync('ls', ['-A', dir], { encoding: 'utf8' }).stdout).toBe('');
    const theirs = opmRef(['render', tag, '--use-http', '-o', 'yaml'], dir);
    const ours = await runOpm(['render', tag, '--use-http', '-o', 'yaml'], { cwd: dir, env: env() });
    expect(theirs.code, theirs.stderr).toBe(0);
    expect(ours.code).toBe(0);
    expect(ours.stdout).toBe(theirs.stdout);
    expect(ours.stdout).toContain('name: etcd.v0.9.4');
    expect(ours.stdout).toContain('name: etcd.v0.9.0');
  });

  it('without --push or --oci-layout: one line saying where the image could go', async () => {
    const dir = mkdtempSync(path.join(tmp, 'nowhere-'));
    const r = await runOpm(['index', 'add', '-c', 'none', '-b', imageOf(NEXT), '--use-http'], {
      cwd: dir,
      env: env(),
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('--oci-layout');
  });
});
