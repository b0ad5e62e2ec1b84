// needs-corpus: every bundle directory of community-bundles, copied to a temporary folder first
// `opm alpha bundle generate` against the reference opm: the same files (bytes and modes) and the
// same log lines, on every corpus bundle directory and on our fixtures (testdata/alpha-bundle/).
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { reference } from './reference-opm.js';
import { corpusPath } from '../corpus.js';
import { communityBundleDirs } from '../render/corpus-helpers.js';
import { readAnnotations } from '../../src/authoring/annotations.js';
import { logLines, readTree } from '../alpha-bundle/tree.js';

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'opm-bundle-generate-ref-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Outcome {
  code: number;
  log: string[];
  tree: ReturnType<typeof readTree>;
  /** The failure's message: opm's `Error: …` line, our `error: …` line without its hint. */
  error: string;
}

let runs = 0;
/** Run both opms on two copies of `src` (placed at `<copy>/<name>`), each from its copy. */
async function both(src: string, name: string, args: string[]): Promise<{ ref: Outcome; ours: Outcome }> {
  runs++;
  const result: Partial<Record<'ref' | 'ours', Outcome>> = {};
  for (const who of ['ref', 'ours'] as const) {
    const dir = path.join(tmp, `${runs}-${who}`);
    mkdirSync(dir);
    if (src !== '') cpSync(src, path.join(dir, name), { recursive: true });
    let code: number;
    let stderr: string;
    if (who === 'ref') {
      const r = spawnSync(reference, ['alpha', 'bundle', 'generate', ...args], {
        cwd: dir,
        encoding: 'utf8',
      });
      code = r.status ?? -1;
      stderr = r.stderr;
    } else {
      const r = await runOpm(['alpha', 'bundle', 'generate', ...args], { cwd: dir });
      code = r.code;
      stderr = r.stderr;
    }
    const lines = logLines(stderr, dir);
    const errorLine = lines.find((l) => /^(?:Error|error): /.test(l)) ?? '';
    result[who] = {
      code,
      log: lines.filter((l) => l.startsWith('level=')),
      tree: readTree(dir),
      error: errorLine.replace(/^(?:Error|error): /, '').replace(/ \([^()]*\)$/, ''),
    };
  }
  return result as { ref: Outcome; ours: Outcome };
}

const corpusBundles = (): string[] => communityBundleDirs().map((b) => b.dir);

describe('alpha bundle generate: every corpus bundle directory, as the reference opm', () => {
  const dirs = corpusBundles();

  it('has bundle directories to compare', () => {
    expect(dirs.length).toBeGreaterThan(100);
  });

  it.each(dirs.map((d) => [path.relative(corpusPath('community-bundles'), d), d]))(
    '%s: with its package and channels',
    async (_name, dir) => {
      const a = readAnnotations(readFileSync(path.join(dir, 'metadata', 'annotations.yaml'), 'utf8'));
      const get = (k: string): string => a?.get(`operators.operatorframework.io.bundle.${k}`) ?? '';
      const args = ['-d', 'b/manifests', '-p', get('package.v1'), '-c', get('channels.v1')];
      if (get('channel.default.v1') !== '') args.push('-e', get('channel.default.v1'));
      const { ref, ours } = await both(dir, 'b', args);
      expect(ref.code).toBe(0);
      expect(ours.code).toBe(0);
      expect(ours.log).toEqual(ref.log);
      expect(ours.tree).toEqual(ref.tree);
    },
  );

  // Fewer of these: the same paths through the code with other flags.
  it.each(
    dirs.filter((_, i) => i % 12 === 0).map((d) => [path.relative(corpusPath('community-bundles'), d), d]),
  )(
    '%s: into --output-dir, from another base image, and without a package (opm fails)',
    async (_name, dir) => {
      const out = await both(dir, 'b', [
        '-d',
        'b/manifests',
        '-p',
        'pkg',
        '-c',
        'stable',
        '-u',
        'out',
        '--base-image',
        'registry.example.com/base:1',
      ]);
      expect(ref(out).code).toBe(0);
      expect(out.ours.log).toEqual(out.ref.log);
      expect(out.ours.tree).toEqual(out.ref.tree);
      const bare = await both(dir, 'b', ['-d', 'b/manifests']);
      expect(bare.ref.code).toBe(1);
      expect(bare.ours.code).toBe(1);
      expect(bare.ours.error).toBe(bare.ref.error);
      expect(bare.ours.log).toEqual(bare.ref.log);
      expect(bare.ours.tree).toEqual(bare.ref.tree);
    },
  );
});

function ref(o: { ref: Outcome }): Outcome {
  return o.ref;
}

const fixtures = path.resolve('testdata/alpha-bundle');

describe('alpha bundle generate: our fixtures, as the reference opm', () => {
  it.each([
    ['packagemanifests', ['-d', 'etcd/0.9.0']],
    ['packagemanifests', ['-d', 'etcd/0.9.4']],
    ['packagemanifests', ['-d', 'etcd/0.9.2', '-c', 'fast']],
    ['packagemanifests', ['-d', 'etcd/0.9.2', '-p', 'other']],
    ['packagemanifests', ['-d', 'etcd/0.9.0', '-u', 'out']],
    ['packagemanifests-no-channel', ['-d', 'etcd/0.9.0']],
    ['helm', ['-d', 'chart', '-p', 'hello', '-c', 'stable']],
    [
      'plain',
      [
        '-d',
        'manifests',
        '-p',
        'plain',
        '-c',
        'stable,beta',
        '-e',
        'beta',
        '--base-image',
        'registry.example.com/base:1',
      ],
    ],
    ['plain', ['-d', 'manifests', '-p', '1.0', '-c', 'true', '-e', 'a: b']],
    ['plain', ['-d', 'manifests', '-p', 'on', '-c', `${'x '.repeat(50)}`, '-e', '0o17']],
    ['plain', ['-d', './manifests/', '-p', 'p', '-c', 'c', '-u', 'out2']],
  ])('%s %j: the same files and log lines', async (scenario, args) => {
    const { ref: r, ours } = await both(path.join(fixtures, scenario), scenario, [
      ...args.slice(0, 1),
      `${scenario}/${args[1] ?? ''}`,
      ...args.slice(2),
    ]);
    expect(r.code).toBe(0);
    expect(ours.code).toBe(0);
    expect(ours.log).toEqual(r.log);
    expect(ours.tree).toEqual(r.tree);
  });

  it.each([
    ['missing folder', '', ['-d', 'nowhere', '-p', 'p', '-c', 'c']],
    ['empty folder', 'empty', ['-d', 'empty', '-p', 'p', '-c', 'c']],
  ])('%s: the same error', async (_what, made, args) => {
    const src = made === '' ? '' : path.join(tmp, `made-${made}`);
    if (src !== '') mkdirSync(src, { recursive: true });
    const { ref: r, ours } = await both(src, made, args);
    expect(r.code).toBe(1);
    expect(ours.code).toBe(1);
    expect(ours.error).toBe(r.error);
    expect(ours.tree).toEqual(r.tree);
  });

  it('a packagemanifests bundle in no channel: both fail, ours naming the folder and --channels', async () => {
    const { ref: r, ours } = await both(path.join(fixtures, 'packagemanifests-no-channel'), 'pm', [
      '-d',
      'pm/etcd/0.9.2',
    ]);
    expect(r.code).toBe(1);
    expect(r.error).toBe('error interpreting channels, please manually input channels instead');
    expect(ours.code).toBe(1);
    expect(ours.log).toEqual(r.log);
    expect(ours.tree).toEqual(r.tree);
    expect(ours.error).toMatch(
      /^error interpreting channels: the bundle in <dir>\/pm\/etcd\/0\.9\.2 is in no channel/,
    );
  });
});
