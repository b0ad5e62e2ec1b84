// `opm alpha bundle generate` on our fixtures (testdata/alpha-bundle/<scenario>/), each run on a
// temporary copy; what it writes is compared with the files beside the fixture
// (`expected/<case>/`), written by this code and reviewed (UPDATE_FIXTURES=1 rewrites them). The
// same cases are compared with the reference opm in test/reference/alpha-bundle-generate.test.ts.
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { logLines } from './tree.js';
import { generateBundle } from '../../src/action/alpha-bundle/generate.js';
import { OpmError } from '../../src/errors.js';

const fixtures = path.resolve('testdata/alpha-bundle');
let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'opm-bundle-generate-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let n = 0;
/** A copy of the scenario at `<work>/<scenario>`; returns `<work>`. */
function copyOf(scenario: string): string {
  const work = path.join(tmp, String(++n));
  mkdirSync(work);
  cpSync(path.join(fixtures, scenario), path.join(work, scenario), { recursive: true });
  return work;
}

const cases: Array<[scenario: string, name: string, args: string[], annotationsAt: string]> = [
  ['packagemanifests', 'inferred', ['-d', 'etcd/0.9.0'], 'SCENARIO/etcd/metadata'],
  ['packagemanifests', 'inferred-head', ['-d', 'etcd/0.9.4'], 'SCENARIO/etcd/metadata'],
  ['packagemanifests', 'channels-given', ['-d', 'etcd/0.9.2', '-c', 'fast'], 'SCENARIO/etcd/metadata'],
  ['packagemanifests', 'output-dir', ['-d', 'etcd/0.9.0', '-u', 'out'], 'out/metadata'],
  ['packagemanifests-no-channel', 'only-channel-default', ['-d', 'etcd/0.9.0'], 'SCENARIO/etcd/metadata'],
  ['helm', 'helm', ['-d', 'chart', '-p', 'hello', '-c', 'stable'], 'helm/metadata'],
  [
    'plain',
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
    'plain/metadata',
  ],
  ['plain', 'quoted-values', ['-d', 'manifests', '-p', '1.0', '-c', 'true', '-e', 'a: b'], 'plain/metadata'],
  // go-yaml v3 writes a long value on one line where v2 would fold it.
  ['plain', 'long-value', ['-d', 'manifests', '-p', 'p', '-c', 'x '.repeat(50)], 'plain/metadata'],
];

describe('alpha bundle generate on the fixtures', () => {
  it.each(cases)('%s (%s): the files beside the fixture', async (scenario, name, args, annotationsAt) => {
    const work = copyOf(scenario);
    const full = [args[0] ?? '', `${scenario}/${args[1] ?? ''}`, ...args.slice(2)];
    const r = await runOpm(['alpha', 'bundle', 'generate', ...full], { cwd: work });
    expect(r.stdout).toBe('');
    expect(r.code).toBe(0);
    const got: Record<string, string> = {
      'annotations.yaml': readFileSync(
        path.join(work, annotationsAt.replace('SCENARIO', scenario), 'annotations.yaml'),
        'utf8',
      ),
      'bundle.Dockerfile': readFileSync(path.join(work, 'bundle.Dockerfile'), 'utf8'),
      'log.txt': `${logLines(r.stderr, work).join('\n')}\n`,
    };
    const expectedDir = path.join(fixtures, scenario, 'expected', name);
    for (const [file, text] of Object.entries(got)) {
      const expectedFile = path.join(expectedDir, file);
      if (process.env.UPDATE_FIXTURES === '1') {
        mkdirSync(expectedDir, { recursive: true });
        writeFileSync(expectedFile, text);
      }
      expect(text, file).toBe(readFileSync(expectedFile, 'utf8'));
    }
    expect(statSync(path.join(work, 'bundle.Dockerfile')).mode & 0o777).toBe(0o644 & ~process.umask());
  });

  it('writes nothing and names the folder and --channels for a bundle in no channel', async () => {
    const work = copyOf('packagemanifests-no-channel');
    const r = await runOpm(['alpha', 'bundle', 'generate', '-d', 'packagemanifests-no-channel/etcd/0.9.2'], {
      cwd: work,
    });
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines.at(-1)).toBe(
      `error: error interpreting channels: the bundle in ${work}/packagemanifests-no-channel/etcd/0.9.2 is in no channel of package "etcd" (pass --channels)`,
    );
    expect(existsSync(path.join(work, 'bundle.Dockerfile'))).toBe(false);
    expect(existsSync(path.join(work, 'packagemanifests-no-channel/etcd/metadata'))).toBe(false);
  });

  it('a folder without files is refused in opm words, and -d is required', async () => {
    const work = path.join(tmp, 'empty-case');
    mkdirSync(path.join(work, 'empty'), { recursive: true });
    const r = await runOpm(['alpha', 'bundle', 'generate', '-d', 'empty', '-p', 'p', '-c', 'c'], {
      cwd: work,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`error: The directory ${work}/empty contains no yaml files\n`);
    const noDir = await runOpm(['alpha', 'bundle', 'generate', '-p', 'p'], { cwd: work });
    expect(noDir.code).toBe(2);
    expect(noDir.stderr).toMatch(/--directory/);
  });

  it('always overwrites, keeping the mode of a file that was there', async () => {
    const work = copyOf('plain');
    const args = ['-d', 'plain/manifests', '-p', 'p', '-c', 'a'];
    await generateBundle({ directory: args[1] ?? '', packageName: 'p', channels: 'a', cwd: work });
    const file = path.join(work, 'plain/metadata/annotations.yaml');
    writeFileSync(file, 'annotations: {}\n');
    chmodSync(file, 0o600);
    const r = await runOpm(['alpha', 'bundle', 'generate', ...args.slice(0, 4), '-c', 'b'], { cwd: work });
    expect(r.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('channels.v1: b\n');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('a use case: returns what it wrote and gives its log lines to the callback', async () => {
    const work = copyOf('helm');
    const lines: string[] = [];
    const g = await generateBundle({
      directory: 'helm/chart',
      packageName: 'hello',
      channels: 'stable',
      cwd: work,
      log: (l) => lines.push(l),
    });
    expect(g.annotations).toEqual({
      mediaType: 'helm',
      packageName: 'hello',
      channels: 'stable',
      defaultChannel: '',
    });
    expect(g.annotationsFile).toBe(path.join(work, 'helm/metadata/annotations.yaml'));
    expect(lines[0]).toBe('Building annotations.yaml');
    await expect(generateBundle({ directory: 'nowhere', cwd: work })).rejects.toThrow(OpmError);
  });
});
