// needs-registry: a plain-HTTP registry on 127.0.0.1 holds the bundle images
// needs-corpus: the images are built from every community-bundles directory
// `opm alpha bundle unpack --use-http` against the reference opm: the same tree with the same modes,
// on an image built from each corpus bundle directory, on an image whose entries carry unusual
// modes, and the same failures (format checks, an output path that is a file).
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { reference } from './reference-opm.js';
import { corpusPath } from '../corpus.js';
import { communityBundleDirs } from '../render/corpus-helpers.js';
import { startPlainRegistry, type RegistryProcess } from '../registry/fixture.js';
import { buildImage, pushImage, type TarEntrySpec } from '../registry/image-builder.js';
import { logLines, readTree } from '../alpha-bundle/tree.js';

let tmp: string;
let registry: RegistryProcess;
beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'opm-bundle-unpack-ref-'));
  registry = await startPlainRegistry(tmp, 'bundles');
}, 120_000);
afterAll(async () => {
  await registry.stop();
  rmSync(tmp, { recursive: true, force: true });
});

interface Outcome {
  code: number;
  log: string[];
  error: string;
  /** The output folder's mode, and its tree. */
  mode: string;
  tree: ReturnType<typeof readTree>;
}

let runs = 0;
/** Unpack `ref` with both opms, each from a fresh folder, into `out` there (made first when `prepare` says). */
async function both(
  image: string,
  args: string[] = [],
  prepare: (dir: string) => void = () => undefined,
): Promise<{ ref: Outcome; ours: Outcome }> {
  runs++;
  const result: Partial<Record<'ref' | 'ours', Outcome>> = {};
  for (const who of ['ref', 'ours'] as const) {
    const dir = path.join(tmp, `${runs}-${who}`);
    mkdirSync(dir);
    prepare(dir);
    const argv = ['alpha', 'bundle', 'unpack', image, '--use-http', '-o', 'out', ...args];
    const env = { HOME: dir, OLM_CACHE_DIR: path.join(dir, '.cache') };
    let code: number;
    let stderr: string;
    if (who === 'ref') {
      const r = spawnSync(reference, argv, { cwd: dir, encoding: 'utf8', env: { ...process.env, ...env } });
      code = r.status ?? -1;
      stderr = r.stderr;
    } else {
      const r = await runOpm(argv, { cwd: dir, env, configRoot: dir });
      code = r.code;
      stderr = r.stderr;
    }
    const lines = logLines(stderr, dir);
    const errorLine = lines.find((l) => /^(?:Error|error): /.test(l)) ?? '';
    const out = path.join(dir, 'out');
    const isDir = existsSync(out) && statSync(out).isDirectory();
    result[who] = {
      code,
      log: lines.filter((l) => l.startsWith('level=')),
      error: errorLine.replace(/^(?:Error|error): /, '').replace(/ \([^()]*\)$/, ''),
      mode: isDir ? (statSync(out).mode & 0o7777).toString(8) : '',
      tree: isDir ? readTree(out) : [],
    };
  }
  return result as { ref: Outcome; ours: Outcome };
}

async function push(repo: string, layers: Parameters<typeof buildImage>[0]['layers']): Promise<string> {
  const image = await buildImage({ layers, labels: {} });
  await pushImage(image, { url: registry.url, repo, tag: 'v1' });
  return `${registry.host}/${repo}:v1`;
}

const corpusBundles = (): string[] => communityBundleDirs().map((b) => b.dir);

describe('alpha bundle unpack: images of every corpus bundle directory, as the reference opm', () => {
  const dirs = corpusBundles();
  it.each(dirs.map((d) => [path.relative(corpusPath('community-bundles'), d), d]))(
    '%s: the same tree and modes',
    async (name, dir) => {
      const image = await push(`corpus/${name.replace(/[^a-z0-9/]+/g, '-')}`, [{ dir }]);
      const { ref, ours } = await both(image);
      expect(ref.code).toBe(0);
      expect(ours.code).toBe(0);
      expect(ours.log).toEqual(ref.log);
      expect(ours.mode).toBe(ref.mode);
      expect(ours.tree).toEqual(ref.tree);
      expect(ours.tree.length).toBeGreaterThan(2);
    },
  );
});

const ANNOTATIONS = (pkg: string, channels: string, extra = ''): string =>
  [
    'annotations:',
    '  operators.operatorframework.io.bundle.mediatype.v1: plain',
    '  operators.operatorframework.io.bundle.manifests.v1: manifests/',
    '  operators.operatorframework.io.bundle.metadata.v1: metadata/',
    ...(pkg === '' ? [] : [`  operators.operatorframework.io.bundle.package.v1: ${pkg}`]),
    `  operators.operatorframework.io.bundle.channels.v1: ${channels}`,
    ...(extra === '' ? [] : [extra]),
    '',
  ].join('\n');
const CONFIGMAP = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n';

function plainBundle(annotations: string, more: TarEntrySpec[] = []): TarEntrySpec[] {
  return [
    { name: 'manifests', type: 'directory' },
    { name: 'manifests/configmap.yaml', content: CONFIGMAP },
    { name: 'metadata', type: 'directory' },
    { name: 'metadata/annotations.yaml', content: annotations },
    ...more,
  ];
}

describe('alpha bundle unpack: our images, as the reference opm', () => {
  it('modes as archived, made writable by their owner; folders the image does not list 0755', async () => {
    const image = await push('modes/bundle', [
      {
        entries: [
          { name: 'manifests', type: 'directory', mode: 0o555 },
          { name: 'manifests/configmap.yaml', content: CONFIGMAP, mode: 0o400 },
          { name: 'manifests/run.sh', content: '#!/bin/sh\n', mode: 0o750 },
          { name: 'metadata/annotations.yaml', content: ANNOTATIONS('p', 'stable'), mode: 0o600 },
          { name: 'extra/deep/file.txt', content: 'x', mode: 0o640 },
          { name: 'extra/link', type: 'symlink', linkname: 'deep/file.txt' },
        ],
      },
    ]);
    // -v: opm's content checks panic on a bundle without a CSV (a nil CSV in its bundle validator).
    const { ref, ours } = await both(image, ['-v']);
    expect(ref.code).toBe(0);
    expect(ours.code).toBe(0);
    expect(ours.mode).toBe(ref.mode);
    expect(ours.tree).toEqual(ref.tree);
  });

  it('-v skips the checks and says so', async () => {
    const image = await push('format/no-metadata', [
      { entries: [{ name: 'manifests/configmap.yaml', content: CONFIGMAP }] },
    ]);
    const { ref, ours } = await both(image, ['-v']);
    expect(ref.code).toBe(0);
    expect(ours.code).toBe(0);
    expect(ours.log).toEqual(ref.log);
    expect(ours.log).toEqual(['level=info msg="skipping bundle validation" cmd=unpack']);
    expect(ours.tree).toEqual(ref.tree);
  });

  it.each([
    ['no metadata folder', [{ name: 'manifests/configmap.yaml', content: CONFIGMAP }]],
    ['no folders at all', [{ name: 'README', content: 'hello' }]],
    [
      'no annotations file',
      [
        { name: 'manifests/configmap.yaml', content: CONFIGMAP },
        { name: 'metadata', type: 'directory' },
      ],
    ],
    ['no package annotation', plainBundle(ANNOTATIONS('', 'stable'))],
    ['an empty channel list', plainBundle(ANNOTATIONS('p', '""'))],
    [
      'an empty default channel',
      plainBundle(
        ANNOTATIONS('p', 'stable', '  operators.operatorframework.io.bundle.channel.default.v1: ""'),
      ),
    ],
    ['the wrong media type', plainBundle(ANNOTATIONS('p', 'stable').replace(': plain', ': helm'))],
    [
      'manifests without files',
      [
        { name: 'manifests', type: 'directory' },
        { name: 'metadata/annotations.yaml', content: ANNOTATIONS('p', 'stable') },
      ],
    ],
  ] as Array<[string, TarEntrySpec[]]>)('%s: the same failure, nothing written', async (what, entries) => {
    const image = await push(`format/${what.replace(/ /g, '-')}`, [{ entries }]);
    const { ref, ours } = await both(image);
    expect(ref.code).toBe(1);
    expect(ours.code).toBe(1);
    // opm names the temporary folder it unpacked into; ours names the folder in the image.
    const tempPath = /\/tmp\/bundle-\d+\/manifests/g;
    expect(ours.error).toBe(ref.error.replace(tempPath, 'manifests'));
    expect(ours.error).toMatch(/^bundle format validation failed: Bundle validation errors: /);
    expect(ours.tree).toEqual([]);
    expect(ref.tree).toEqual([]);
  });

  it('an output path that is a file: the same failure', async () => {
    const image = await push('ok/bundle', [{ entries: plainBundle(ANNOTATIONS('p', 'stable')) }]);
    const { ref, ours } = await both(image, [], (dir) => writeFileSync(path.join(dir, 'out'), 'x'));
    expect(ref.code).toBe(1);
    expect(ours.code).toBe(1);
    expect(ours.error).toBe(ref.error);
    expect(ours.error).toBe('out out is not a directory');
  });
});
