// needs-registry: bundle and index images on a real docker-registry on 127.0.0.1.
// `index export` of the same index image by the reference opm v1.73 and by opm-ts: the
// package-manifest trees are compared byte for byte, with every file's and folder's mode, and the
// log messages on stderr. Index images come from the reference's `registry add` and from opm-ts's
// `index add -c none --push`. Where opm-ts differs on purpose (an unknown package, a bundle that
// cannot be exported) it writes nothing at all.
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { bundleRegistry } from './bundle-registry.js';
import { csvName, type BundleSpec } from '../sqlite/bundles.js';
import { buildImage, pushImage, type TarEntrySpec } from '../registry/image-builder.js';

const reg = bundleRegistry('opm-index-export-');
const { tmp, registry, env, imageOf, opmRef } = reg;

const SPECS: BundleSpec[] = [
  { pkg: 'etcd', version: '0.9.0', channels: ['stable'], defaultChannel: 'stable', owns: ['EtcdCluster'] },
  {
    pkg: 'etcd',
    version: '0.9.2',
    // Channels met out of byte order: package.yaml lists them in byte order.
    channels: ['stable', 'alpha', 'Beta'],
    defaultChannel: 'stable',
    replaces: csvName('etcd', '0.9.0'),
    owns: ['EtcdCluster'],
  },
  {
    pkg: 'etcd',
    version: '0.9.4',
    channels: ['stable'],
    defaultChannel: 'stable',
    replaces: csvName('etcd', '0.9.2'),
    owns: ['EtcdCluster'],
  },
  { pkg: 'prom', version: '1.0.0', channels: ['beta'], defaultChannel: 'beta', owns: ['Prometheus'] },
  // Names go-yaml quotes.
  { pkg: 'quoted', version: '2.0.0', channels: ['stable', '1.0'], defaultChannel: 'stable' },
];

const annotations = (pkg: string, manifests = 'manifests/'): Record<string, string> => ({
  'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
  'operators.operatorframework.io.bundle.manifests.v1': manifests,
  'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
  'operators.operatorframework.io.bundle.package.v1': pkg,
  'operators.operatorframework.io.bundle.channels.v1': 'stable',
});

const annotationsFile = (pkg: string, manifests = 'manifests/'): Buffer =>
  Buffer.from(
    `annotations:\n${Object.entries(annotations(pkg, manifests))
      .map(([k, v]) => `  ${k}: ${v}\n`)
      .join('')}`,
  );

const csv = (pkg: string): Buffer =>
  Buffer.from(
    JSON.stringify({
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'ClusterServiceVersion',
      metadata: { name: `${pkg}.v1.0.0` },
      spec: { version: '1.0.0' },
    }),
  );

/** A bundle image built entry by entry: modes other than 0644/0755, a nested folder. */
async function pushOddBundle(): Promise<string> {
  const entries: TarEntrySpec[] = [
    { name: 'manifests', type: 'directory', mode: 0o700 },
    { name: 'manifests/odd.clusterserviceversion.yaml', content: csv('odd'), mode: 0o600 },
    { name: 'manifests/sub', type: 'directory', mode: 0o750 },
    { name: 'manifests/sub/x.yaml', content: Buffer.from('a: 1\n'), mode: 0o755 },
    { name: 'metadata', type: 'directory' },
    { name: 'metadata/annotations.yaml', content: annotationsFile('odd') },
  ];
  const image = await buildImage({ layers: [{ entries }], labels: annotations('odd') });
  await pushImage(image, { url: registry().plain.url, repo: 'bundles/odd', tag: '1.0.0' });
  return `${registry().plain.host}/bundles/odd:1.0.0`;
}

/** The bundle GONE once added: its image replaced by one without `manifests/` (opm's export copies that folder). */
const GONE: BundleSpec = { pkg: 'gone', version: '1.0.0', channels: ['stable'], defaultChannel: 'stable' };

async function replaceGoneImage(): Promise<void> {
  const entries: TarEntrySpec[] = [
    { name: 'metadata', type: 'directory' },
    { name: 'metadata/annotations.yaml', content: annotationsFile('gone') },
  ];
  const image = await buildImage({ layers: [{ entries }], labels: annotations('gone') });
  await pushImage(image, { url: registry().plain.url, repo: 'bundles/gone', tag: '1.0.0' });
}

/** Every file and folder under `dir`: path, mode, and a file's hash, in path order. */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = path.join(d, name);
      const r = rel === '' ? name : `${rel}/${name}`;
      const st = lstatSync(p);
      const mode = (st.mode & 0o7777).toString(8);
      if (st.isDirectory()) {
        out.push(`${r}/ ${mode}`);
        walk(p, r);
      } else out.push(`${r} ${mode} ${createHash('sha256').update(readFileSync(p)).digest('hex')}`);
    }
  };
  walk(dir, '');
  return out;
}

/**
 * The messages of logrus lines, less the image config containerd's resolver logs and the
 * deprecation notice (one line in opm-ts, compatibility row Q26).
 */
const messages = (stderr: string): string[] =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('time='))
    .map((l) => l.replace(/^time="[^"]*" /, ''))
    .filter((l) => !l.startsWith('level=warning msg="{') && !l.includes('DEPRECATION NOTICE'));

/** `args` run by both tools, each in a new folder of its own. */
async function both(args: string[]): Promise<{
  ref: { code: number; stderr: string; dir: string };
  ours: { code: number; stderr: string; stdout: string; dir: string };
}> {
  const refDir = mkdtempSync(path.join(tmp, 'ref-'));
  const ourDir = mkdtempSync(path.join(tmp, 'ours-'));
  const r = opmRef(args, refDir);
  const o = await runOpm(args, { cwd: ourDir, env: env() });
  return { ref: { ...r, dir: refDir }, ours: { ...o, dir: ourDir } };
}

let index = '';
let oddImage = '';

beforeAll(async () => {
  await reg.start();
  await reg.push(SPECS);
  oddImage = await pushOddBundle();
  const db = path.join(tmp, 'index.db');
  reg.addAll(db, SPECS);
  const r = opmRef(['registry', 'add', '-b', oddImage, '-d', db, '--use-http']);
  if (r.code !== 0) throw new Error(r.stderr);
  index = await reg.pushIndex(db, 'index/all');
}, 600_000);

afterAll(reg.stop);

describe('index export: the same tree as opm v1.73', () => {
  const cases: [string, () => string[], string][] = [
    ['every package, to the default folder', () => ['-i', index], 'downloaded'],
    ['-p etcd,odd to a nested folder', () => ['-i', index, '-p', 'etcd,odd', '-f', 'out/sub'], 'out/sub'],
    ['-f . (the working folder, which exists)', () => ['-i', index, '-p', 'prom', '-f', '.'], 'prom'],
    [
      '-o (the hidden shorthand), -c with a tool opm falls back from',
      () => ['-i', index, '-o', 'prom', '-c', 'bogus'],
      'downloaded',
    ],
  ];
  for (const [name, args, folder] of cases) {
    it(name, async () => {
      const { ref, ours } = await both(['index', 'export', ...args(), '--use-http']);
      expect(ref.code, ref.stderr).toBe(0);
      expect(ours.code, ours.stderr).toBe(0);
      expect(ours.stdout).toBe('');
      const theirs = tree(ref.dir);
      expect(tree(ours.dir)).toEqual(theirs);
      expect(theirs.some((l) => l.startsWith(`${folder}/`))).toBe(true);
      expect(messages(ours.stderr)).toEqual(messages(ref.stderr));
      expect(ours.stderr).toContain('DEPRECATION NOTICE');
    });
  }

  it('-c docker: opm pulls with docker, opm-ts without an engine, to the same tree', async () => {
    const refDir = mkdtempSync(path.join(tmp, 'ref-'));
    const ourDir = mkdtempSync(path.join(tmp, 'ours-'));
    const ref = opmRef(['index', 'export', '-i', index, '-p', 'prom', '--use-http'], refDir);
    const ours = await runOpm(['index', 'export', '-i', index, '-p', 'prom', '-c', 'docker', '--use-http'], {
      cwd: ourDir,
      env: { ...env(), PATH: '/nonexistent' },
    });
    expect(ref.code, ref.stderr).toBe(0);
    expect(ours.code, ours.stderr).toBe(0);
    expect(tree(ourDir)).toEqual(tree(refDir));
  });

  it('an index with a deprecated bundle, a truncated one and one added with --permissive', async () => {
    const orphan: BundleSpec = {
      pkg: 'orphan',
      version: '2.0.0',
      channels: ['stable'],
      defaultChannel: 'stable',
      replaces: csvName('orphan', '1.0.0'),
    };
    await reg.push([orphan]);
    const db = path.join(tmp, 'deprecated.db');
    reg.addAll(db, SPECS.slice(0, 3));
    reg.deprecateTruncate(db, SPECS[1] as BundleSpec);
    reg.addAll(db, [orphan], ['--permissive']);
    const image = await reg.pushIndex(db, 'index/deprecated');
    const { ref, ours } = await both(['index', 'export', '-i', image, '--use-http']);
    expect(ref.code, ref.stderr).toBe(0);
    expect(ours.code, ours.stderr).toBe(0);
    const theirs = tree(ref.dir);
    expect(tree(ours.dir)).toEqual(theirs);
    expect(theirs.some((l) => l.startsWith('downloaded/etcd/0.9.0/'))).toBe(false);
    expect(theirs.some((l) => l.startsWith('downloaded/etcd/0.9.2/'))).toBe(true);
    expect(messages(ours.stderr)).toEqual(messages(ref.stderr));
  });

  it('the package.yaml and modes opm writes', async () => {
    const { ours } = await both(['index', 'export', '-i', index, '-p', 'etcd,quoted,odd', '--use-http']);
    expect(ours.code, ours.stderr).toBe(0);
    const read = (p: string): string => readFileSync(path.join(ours.dir, 'downloaded', p), 'utf8');
    expect(read('etcd/package.yaml')).toBe(
      'packageName: etcd\nchannels:\n    - name: Beta\n      currentCSV: etcd.v0.9.2\n    - name: alpha\n      currentCSV: etcd.v0.9.2\n    - name: stable\n      currentCSV: etcd.v0.9.4\ndefaultChannel: stable\n',
    );
    expect(read('quoted/package.yaml')).toBe(
      'packageName: quoted\nchannels:\n    - name: "1.0"\n      currentCSV: quoted.v2.0.0\n    - name: stable\n      currentCSV: quoted.v2.0.0\ndefaultChannel: stable\n',
    );
    const modes = tree(path.join(ours.dir, 'downloaded', 'odd'));
    expect(modes.map((l) => l.split(' ').slice(0, 2).join(' '))).toEqual([
      '1.0.0/ 700',
      '1.0.0/odd.clusterserviceversion.yaml 600',
      '1.0.0/sub/ 750',
      '1.0.0/sub/x.yaml 755',
      'package.yaml 644',
    ]);
  });

  it('an index image opm-ts built with index add -c none --push', async () => {
    const base = await reg.pushBase();
    const tag = `${registry().plain.host}/index/ours:v1`;
    const dir = mkdtempSync(path.join(tmp, 'build-'));
    const bundles = [SPECS[0], SPECS[1], SPECS[3]].map((b) => imageOf(b as BundleSpec)).join(',');
    const built = await runOpm(
      ['index', 'add', '-b', bundles, '-c', 'none', '-i', base, '-t', tag, '--push', '--use-http'],
      { cwd: dir, env: env() },
    );
    expect(built.code, built.stderr).toBe(0);
    const { ref, ours } = await both(['index', 'export', '-i', tag, '--use-http']);
    expect(ref.code, ref.stderr).toBe(0);
    expect(ours.code, ours.stderr).toBe(0);
    expect(tree(ours.dir)).toEqual(tree(ref.dir));
    expect(
      tree(ours.dir).filter((l) => l.endsWith('package.yaml 644') || l.includes('package.yaml')),
    ).toHaveLength(2);
  });
});

describe('index export: failures leave nothing written', () => {
  it('an unknown package: opm writes an empty package.yaml and succeeds, opm-ts refuses', async () => {
    const { ref, ours } = await both(['index', 'export', '-i', index, '-p', 'etcd,nosuch', '--use-http']);
    expect(ref.code).toBe(0);
    expect(readFileSync(path.join(ref.dir, 'downloaded/nosuch/package.yaml'), 'utf8')).toBe(
      'packageName: nosuch\nchannels: []\ndefaultChannel: ""\n',
    );
    expect(ours.code).toBe(1);
    expect(ours.stderr).toContain('has no package nosuch: nothing was exported');
    expect(tree(ours.dir)).toEqual([]);
  });

  it('an image without the database label: both refuse, nothing written', async () => {
    const { ref, ours } = await both(['index', 'export', '-i', oddImage, '--use-http']);
    expect(ref.code).toBe(1);
    expect(ours.code).toBe(1);
    const line = `index image ${oddImage} missing label operators.operatorframework.io.index.database.v1`;
    expect(ref.stderr).toContain(line);
    expect(ours.stderr).toContain(line);
    expect(tree(ref.dir)).toEqual([]);
    expect(tree(ours.dir)).toEqual([]);
  });

  it('a bundle image without manifests/: opm leaves the other bundles written, opm-ts leaves the folder as it was', async () => {
    const db = path.join(tmp, 'gone.db');
    await reg.push([GONE]);
    reg.addAll(db, [SPECS[3] as BundleSpec, GONE]);
    await replaceGoneImage();
    const bad = await reg.pushIndex(db, 'index/gone');
    const refDir = mkdtempSync(path.join(tmp, 'ref-'));
    const ourDir = mkdtempSync(path.join(tmp, 'ours-'));
    // A download folder that already holds a file: it stays as it was.
    for (const d of [refDir, ourDir]) {
      mkdirSync(path.join(d, 'downloaded'));
      writeFileSync(path.join(d, 'downloaded', 'keep.txt'), 'kept\n');
    }
    const ref = opmRef(['index', 'export', '-i', bad, '--use-http'], refDir);
    const ours = await runOpm(['index', 'export', '-i', bad, '--use-http'], { cwd: ourDir, env: env() });
    expect(ref.code).toBe(1);
    expect(ref.stderr).toContain(`exporting bundle image:${imageOf(GONE)} failed`);
    expect(tree(refDir).some((l) => l.startsWith('downloaded/prom/1.0.0/'))).toBe(true);
    expect(ours.code).toBe(1);
    expect(ours.stderr).toContain(`exporting bundle image ${imageOf(GONE)} failed`);
    expect(ours.stderr).toContain('has no manifests/ folder');
    expect(tree(ourDir).map((l) => l.split(' ')[0])).toEqual(['downloaded/', 'downloaded/keep.txt']);
  });
});

describe('registry mirror', () => {
  it('opm v1.73 has none (its registry help, exit 0); opm-ts says so in one line, exit 1', async () => {
    const { ref, ours } = await both(['registry', 'mirror', 'a', 'b']);
    expect(ref.code).toBe(0);
    expect(opmRef(['registry', 'mirror', 'a', 'b']).stdout).toBe(opmRef(['registry', '--help']).stdout);
    expect(ours.code).toBe(1);
    expect(ours.stdout).toBe('');
    expect(ours.stderr.trim().split('\n')).toHaveLength(1);
    expect(ours.stderr).toContain('opm v1.73 has no `registry mirror` either');
  });
});
