// `opm alpha bundle build`: the container tool's command line as opm forms it (pkg/lib/bundle/build.go
// in operator-registry v1.73.0: `docker|podman build -f bundle.Dockerfile -t TAG .`, `buildah bud
// --format=docker -f bundle.Dockerfile -t TAG .`), recorded by a script of that name put first in
// PATH; it records its arguments and working folder and builds nothing. A real build with buildah is
// in buildah.test.ts.
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';
import { buildBundle, buildCommand } from '../../src/action/alpha-bundle/build.js';
import { eventually } from '../patience.js';

const fixtures = path.resolve('testdata/alpha-bundle');
let tmp: string;
let bin: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'opm-bundle-build-'));
  bin = path.join(tmp, 'bin');
  mkdirSync(bin);
  for (const tool of ['docker', 'podman', 'buildah']) {
    const script = path.join(bin, tool);
    // Its argv (one per line) and working folder go to $RECORD; it says something on both streams
    // and exits with $EXIT_WITH.
    writeFileSync(
      script,
      [
        '#!/bin/sh',
        'printf "%s\\n" "$0" "$@" > "$RECORD"',
        'pwd >> "$RECORD"',
        'echo "building with $(basename "$0")"',
        'echo "progress on stderr" >&2',
        'exit "${EXIT_WITH:-0}"',
        '',
      ].join('\n'),
    );
    chmodSync(script, 0o755);
  }
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let n = 0;
function work(): string {
  const w = path.join(tmp, `w${++n}`);
  mkdirSync(w);
  cpSync(path.join(fixtures, 'plain'), path.join(w, 'plain'), { recursive: true });
  return w;
}

const ARGS = [
  'alpha',
  'bundle',
  'build',
  '-d',
  'plain/manifests',
  '-t',
  'quay.io/example/plain:v1',
  '-p',
  'plain',
  '-c',
  'stable',
];

function env(w: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: `${bin}:/usr/bin:/bin`, RECORD: path.join(w, 'record.txt'), ...extra };
}

describe('alpha bundle build', () => {
  it.each([
    ['docker', ['build', '-f', 'bundle.Dockerfile', '-t', 'quay.io/example/plain:v1', '.']],
    ['podman', ['build', '-f', 'bundle.Dockerfile', '-t', 'quay.io/example/plain:v1', '.']],
    ['buildah', ['bud', '--format=docker', '-f', 'bundle.Dockerfile', '-t', 'quay.io/example/plain:v1', '.']],
  ])('-b %s runs opm command line in the working folder, its output passed through', async (tool, argv) => {
    const w = work();
    const r = await runOpm([...ARGS, '-b', tool], { cwd: w, env: env(w) });
    expect(r.code).toBe(0);
    const record = readFileSync(path.join(w, 'record.txt'), 'utf8').trim().split('\n');
    expect(record).toEqual([path.join(bin, tool), ...argv, w]);
    expect(r.stdout).toBe(`building with ${tool}\n`);
    expect(r.stderr).toContain('progress on stderr\n');
    expect(r.stderr).toMatch(/level=info msg="Building bundle image"\n/);
    expect(readFileSync(path.join(w, 'bundle.Dockerfile'), 'utf8')).toContain(
      'COPY plain/manifests /manifests/\n',
    );
    expect(buildCommand(tool, 'quay.io/example/plain:v1')).toEqual([tool, ...argv]);
  });

  it('docker is the default tool', async () => {
    const w = work();
    expect((await runOpm(ARGS, { cwd: w, env: env(w) })).code).toBe(0);
    expect(readFileSync(path.join(w, 'record.txt'), 'utf8')).toMatch(/\/docker\nbuild\n/);
  });

  it("the tool's exit status is ours, with opm's line naming the command", async () => {
    const w = work();
    const r = await runOpm(ARGS, { cwd: w, env: env(w, { EXIT_WITH: '3' }) });
    expect(r.code).toBe(3);
    expect(r.stderr.trim().split('\n').at(-1)).toBe(
      'error: Failed to exec []string{"docker", "build", "-f", "bundle.Dockerfile", "-t", "quay.io/example/plain:v1", "."}: exit status 3',
    );
  });

  it('a tool that is not installed is one line saying so', async () => {
    const w = work();
    const r = await runOpm([...ARGS, '-b', 'podman'], { cwd: w, env: { PATH: path.join(w, 'no-bin') } });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(
      /^error: exec: "podman": executable file not found in \$PATH \(install podman, or choose another tool/,
    );
  });

  it('an unknown tool is refused before anything is written', async () => {
    const w = work();
    const r = await runOpm([...ARGS, '-b', 'kaniko'], { cwd: w, env: env(w) });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^error: kaniko is not supported image builder \(use one of docker, podman, buildah, or none to build without a container engine\)\n$/,
    );
    expect(existsSync(path.join(w, 'bundle.Dockerfile'))).toBe(false);
    expect(existsSync(path.join(w, 'plain/metadata'))).toBe(false);
  });

  it('-t and -d are required', async () => {
    const w = work();
    const r = await runOpm(['alpha', 'bundle', 'build', '-d', 'plain/manifests'], { cwd: w, env: env(w) });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--tag/);
  });

  describe('an annotations file that is there', () => {
    const existing = (w: string, text: string): void => {
      mkdirSync(path.join(w, 'plain/metadata'));
      writeFileSync(path.join(w, 'plain/metadata/annotations.yaml'), text);
    };
    const key = (k: string): string => `operators.operatorframework.io.bundle.${k}`;

    it('is kept when it agrees with the flags (extra annotations are fine), and the image is built', async () => {
      const w = work();
      const text = `annotations:\n  ${key('mediatype.v1')}: plain\n  ${key('manifests.v1')}: manifests/\n  ${key('metadata.v1')}: metadata/\n  ${key('package.v1')}: plain\n  ${key('channels.v1')}: stable\n  custom: x\n`;
      existing(w, text);
      const r = await runOpm(ARGS, { cwd: w, env: env(w) });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain('msg="An annotations.yaml already exists in the directory: metadata/"');
      expect(r.stderr).toContain('msg="Validating existing annotations.yaml"');
      expect(readFileSync(path.join(w, 'plain/metadata/annotations.yaml'), 'utf8')).toBe(text);
      expect(existsSync(path.join(w, 'record.txt'))).toBe(true);
    });

    it("says what is missing or different in opm's words, and builds nothing", async () => {
      const w = work();
      existing(w, `annotations:\n  ${key('mediatype.v1')}: registry+v1\n  ${key('channels.v1')}: beta\n`);
      const r = await runOpm(ARGS, { cwd: w, env: env(w) });
      expect(r.code).toBe(1);
      const file = path.join(w, 'plain/metadata/annotations.yaml');
      expect(r.stderr.trim().split('\n').at(-1)).toBe(
        `error: ${file}: [Expect field "${key('channels.v1')}" to have value "stable" instead of "beta", Missing field: ${key('manifests.v1')}, Expect field "${key('mediatype.v1')}" to have value "plain" instead of "registry+v1", Missing field: ${key('metadata.v1')}, Missing field: ${key('package.v1')}] (fix the file or the flags, or pass --overwrite to replace it)`,
      );
      expect(existsSync(path.join(w, 'record.txt'))).toBe(false);
      expect(existsSync(path.join(w, 'bundle.Dockerfile'))).toBe(false);
    });

    it('is replaced with -o, and so is bundle.Dockerfile', async () => {
      const w = work();
      existing(w, 'annotations:\n  x: y\n');
      writeFileSync(path.join(w, 'bundle.Dockerfile'), 'FROM other\n');
      const r = await runOpm([...ARGS, '-o'], { cwd: w, env: env(w) });
      expect(r.code).toBe(0);
      expect(readFileSync(path.join(w, 'plain/metadata/annotations.yaml'), 'utf8')).toContain(
        `${key('package.v1')}: plain`,
      );
      expect(readFileSync(path.join(w, 'bundle.Dockerfile'), 'utf8')).toMatch(/^FROM scratch\n/);
    });

    it('without -o a bundle.Dockerfile that is there is kept', async () => {
      const w = work();
      writeFileSync(path.join(w, 'bundle.Dockerfile'), 'FROM other\n');
      const r = await runOpm(ARGS, { cwd: w, env: env(w) });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(
        `msg="A bundle.Dockerfile already exists in current working directory: ${w}"`,
      );
      expect(readFileSync(path.join(w, 'bundle.Dockerfile'), 'utf8')).toBe('FROM other\n');
    });
  });
});

describe('alpha bundle build: what the user is told', () => {
  it.each(['docker', 'none'])(
    '-d naming the bundle folder (-b %s) says to name its manifests folder, and writes nothing',
    async (tool) => {
      const w = work();
      const args = ARGS.map((a) => (a === 'plain/manifests' ? 'plain' : a));
      const r = await runOpm([...args, '-b', tool, ...(tool === 'none' ? ['--oci-layout', 'out'] : [])], {
        cwd: w,
        env: env(w),
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        'error: -d plain is a bundle folder (it holds manifests/); -d names the manifests folder itself: use -d plain/manifests\n',
      );
      expect(existsSync(path.join(w, 'bundle.Dockerfile'))).toBe(false);
      expect(existsSync(path.join(w, 'plain/metadata'))).toBe(false);
      expect(existsSync(path.join(w, 'out'))).toBe(false);
      expect(existsSync(path.join(w, 'record.txt'))).toBe(false);
    },
  );

  it("a bundle.Dockerfile kept from another bundle's build is named as what the tool builds from", async () => {
    const w = work();
    cpSync(path.join(w, 'plain'), path.join(w, 'other'), { recursive: true });
    const other = ARGS.map((a) => (a === 'plain/manifests' ? 'other/manifests' : a));
    expect((await runOpm(other, { cwd: w, env: env(w) })).code).toBe(0);
    const left = readFileSync(path.join(w, 'bundle.Dockerfile'), 'utf8');
    const r = await runOpm(ARGS, { cwd: w, env: env(w) });
    expect(r.code).toBe(0);
    const file = path.join(w, 'bundle.Dockerfile');
    expect(r.stderr).toContain(
      `level=warning msg="docker builds from ${file}, which was kept as it was and is not the one these flags give (pass --overwrite to refresh it)"\n`,
    );
    expect(readFileSync(file, 'utf8')).toBe(left);
    // Built again for the same bundle, the kept file is the flags' own: nothing to warn about.
    const again = await runOpm(other, { cwd: w, env: env(w) });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('msg="A bundle.Dockerfile already exists');
    expect(again.stderr).not.toContain('level=warning');
  });

  it('with -b none, a kept bundle.Dockerfile of another bundle is said not to be what the image is built from', async () => {
    const w = work();
    writeFileSync(path.join(w, 'bundle.Dockerfile'), 'FROM scratch\nCOPY other/manifests /manifests/\n');
    const r = await runOpm([...ARGS, '-b', 'none', '--oci-layout', 'out'], { cwd: w, env: env(w) });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      `level=warning msg="the image is built from the flags, not from ${path.join(w, 'bundle.Dockerfile')}, which was kept as it was and describes another bundle (pass --overwrite to refresh it)"\n`,
    );
    expect(existsSync(path.join(w, 'out/index.json'))).toBe(true);
  });

  it('--quiet leaves out the info lines; the tool output and warnings stay', async () => {
    const w = work();
    writeFileSync(path.join(w, 'bundle.Dockerfile'), 'FROM other\n');
    const r = await runOpm(['--quiet', ...ARGS], { cwd: w, env: env(w) });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('building with docker\n');
    expect(r.stderr).not.toContain('level=info');
    expect(r.stderr).toContain('progress on stderr\n');
    expect(r.stderr).toMatch(/level=warning msg="docker builds from /);
    const generate = await runOpm(
      ['--quiet', 'alpha', 'bundle', 'generate', '-d', 'plain/manifests', '-p', 'plain', '-c', 'stable'],
      {
        cwd: w,
        env: env(w),
      },
    );
    expect(generate.code).toBe(0);
    expect(generate.stderr).toBe('');
  });
});

describe('alpha bundle extract', () => {
  it('accepts its flags and says in one line that it needs a cluster', async () => {
    const r = await runOpm([
      'alpha',
      'bundle',
      'extract',
      '-m',
      '/bundle',
      '-c',
      'cm',
      '-n',
      'ns',
      '-l',
      '100',
      '-z',
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^error: alpha bundle extract writes a ConfigMap into a Kubernetes cluster/);
  });
});

describe('buildBundle stopped by its signal', () => {
  it('ends the tool and rejects with the reason', async () => {
    const w = work();
    const slow = path.join(w, 'bin');
    mkdirSync(slow);
    const pidFile = path.join(w, 'pid');
    writeFileSync(path.join(slow, 'docker'), `#!/bin/sh\necho $$ > "${pidFile}"\nexec sleep 30\n`);
    chmodSync(path.join(slow, 'docker'), 0o755);
    const stop = new AbortController();
    const reason = new Error('stopped');
    const built = buildBundle({
      directory: 'plain/manifests',
      packageName: 'plain',
      channels: 'stable',
      tag: 't',
      cwd: w,
      env: { PATH: `${slow}:/usr/bin:/bin` },
      signal: stop.signal,
    });
    // Stopped once the tool is running.
    await eventually(() => existsSync(pidFile), 25);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    stop.abort(reason);
    await expect(built).rejects.toBe(reason);
    const gone = (): boolean => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    };
    const alive = !(await eventually(gone, 25));
    expect(alive).toBe(false);
  });
});
