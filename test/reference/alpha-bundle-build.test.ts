// `opm alpha bundle build` against the reference opm: with a recording script named docker, podman
// or buildah first in PATH (it records its arguments and working folder, and builds nothing), both
// run the same command line in the same folder, write the same files and log the same lines; an
// existing annotations file that disagrees with the flags fails both with the same text.
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { reference } from './reference-opm.js';
import { logLines, readTree } from '../alpha-bundle/tree.js';

let tmp: string;
let bin: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'opm-bundle-build-ref-'));
  bin = path.join(tmp, 'bin');
  mkdirSync(bin);
  for (const tool of ['docker', 'podman', 'buildah']) {
    writeFileSync(
      path.join(bin, tool),
      '#!/bin/sh\nprintf "%s\\n" "$(basename "$0")" "$@" > record.txt\npwd >> record.txt\necho "built by $(basename "$0")"\n',
    );
    chmodSync(path.join(bin, tool), 0o755);
  }
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Outcome {
  code: number;
  stdout: string;
  log: string[];
  error: string;
  tree: ReturnType<typeof readTree>;
}

let runs = 0;
async function both(args: string[], prepare: (dir: string) => void = () => undefined) {
  runs++;
  const result: Partial<Record<'ref' | 'ours', Outcome>> = {};
  for (const who of ['ref', 'ours'] as const) {
    const dir = path.join(tmp, `${runs}-${who}`);
    mkdirSync(dir);
    cpSync(path.resolve('testdata/alpha-bundle/plain'), path.join(dir, 'plain'), { recursive: true });
    prepare(dir);
    const argv = ['alpha', 'bundle', 'build', ...args];
    const env = { PATH: `${bin}:/usr/bin:/bin`, HOME: dir };
    const r =
      who === 'ref'
        ? (() => {
            const p = spawnSync(reference, argv, { cwd: dir, encoding: 'utf8', env });
            return { code: p.status ?? -1, stdout: p.stdout, stderr: p.stderr };
          })()
        : await runOpm(argv, { cwd: dir, env });
    const lines = logLines(r.stderr, dir);
    result[who] = {
      code: r.code,
      stdout: r.stdout,
      log: lines.filter((l) => l.startsWith('level=')),
      error: (lines.find((l) => /^(?:Error|error): /.test(l)) ?? '').replace(/^(?:Error|error): /, ''),
      tree: readTree(dir),
    };
  }
  return result as { ref: Outcome; ours: Outcome };
}

const BASE = [
  '-d',
  'plain/manifests',
  '-t',
  'quay.io/example/plain:v1',
  '-p',
  'plain',
  '-c',
  'stable,beta',
  '-e',
  'beta',
];

describe('alpha bundle build, as the reference opm', () => {
  it.each([['docker'], ['podman'], ['buildah']])(
    '-b %s: the same command line, files and log lines',
    async (tool) => {
      const { ref, ours } = await both([...BASE, '-b', tool]);
      expect(ref.code).toBe(0);
      expect(ours.code).toBe(0);
      expect(ours.stdout).toBe(ref.stdout);
      expect(ours.stdout).toBe(`built by ${tool}\n`);
      expect(ours.log).toEqual(ref.log);
      // record.txt is in the tree: argv and working folder, each run in its own folder.
      const norm = (o: Outcome) =>
        o.tree.map((e) =>
          e.path === 'record.txt'
            ? { ...e, content: e.content.replace(/\/[^\n]*-(?:ref|ours)\n$/, '<dir>\n') }
            : e,
        );
      expect(norm(ours)).toEqual(norm(ref));
      expect(ours.tree.find((e) => e.path === 'record.txt')?.content).toMatch(
        tool === 'buildah'
          ? /^buildah\nbud\n--format=docker\n-f\nbundle\.Dockerfile\n-t\nquay\.io\/example\/plain:v1\n\.\n/
          : new RegExp(
              `^${tool}\\nbuild\\n-f\\nbundle\\.Dockerfile\\n-t\\nquay\\.io/example/plain:v1\\n\\.\\n`,
            ),
      );
    },
  );

  it('an existing annotations file that agrees is kept, and one that does not fails with the same text', async () => {
    const key = 'operators.operatorframework.io.bundle.channels.v1';
    const write = (channels: string) => (dir: string) => {
      mkdirSync(path.join(dir, 'plain/metadata'));
      const text = readFileSync(
        path.resolve('testdata/alpha-bundle/plain/expected/plain/annotations.yaml'),
        'utf8',
      );
      writeFileSync(
        path.join(dir, 'plain/metadata/annotations.yaml'),
        text.replace(/channels\.v1: .*/, `channels.v1: ${channels}`),
      );
    };
    const agree = await both([...BASE], write('stable,beta'));
    expect(agree.ref.code).toBe(0);
    expect(agree.ours.code).toBe(0);
    expect(agree.ours.log).toEqual(agree.ref.log);
    expect(agree.ours.tree.map((e) => e.path)).toEqual(agree.ref.tree.map((e) => e.path));
    const differ = await both([...BASE], write('alpha'));
    expect(differ.ref.code).toBe(1);
    expect(differ.ours.code).toBe(1);
    expect(differ.ref.error).toBe(`Expect field "${key}" to have value "stable,beta" instead of "alpha"`);
    // Ours: the same text after the file's path, and a hint.
    expect(differ.ours.error).toContain(`: ${differ.ref.error} (`);
    expect(differ.ours.log).toEqual(differ.ref.log);
  });
});
