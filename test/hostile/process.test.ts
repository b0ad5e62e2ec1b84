// needs-build: it runs bin/opm.js over dist/.
// Hostile input and failing machines, through the real process (bin/opm.js over dist/): bounded
// memory (a child with a small heap), full disks (a small tmpfs), write errors, signals.
import { spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type Fixture } from '../registry/fixture.js';
import { BUNDLE_LABELS, buildImage, pushImage } from '../registry/image-builder.js';
import { PATIENCE_MS } from '../patience.js';

const bin = path.resolve('bin/opm.js');
const example = path.resolve('testdata/examples/catalog');
const tmp = mkdtempSync(path.join(tmpdir(), 'opm-hostile-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * Run bin/opm.js; `heapMb` bounds its heap, `addressSpaceMb` all the memory it may map (ulimit -v,
 * buffers included): a machine without that much memory, at no cost to the one running the test.
 */
function opm(
  args: string[],
  opts: { heapMb?: number; addressSpaceMb?: number; cwd?: string; env?: NodeJS.ProcessEnv } = {},
) {
  const flags = opts.heapMb === undefined ? [] : [`--max-old-space-size=${opts.heapMb}`];
  const command = [process.execPath, ...flags, bin, ...args];
  const [file, argv] =
    opts.addressSpaceMb === undefined
      ? [process.execPath, command.slice(1)]
      : ['sh', ['-c', `ulimit -v ${opts.addressSpaceMb * 1024} && exec "$@"`, 'sh', ...command]];
  return spawnSync(file, argv, {
    encoding: 'utf8',
    cwd: opts.cwd ?? process.cwd(),
    env: { PATH: process.env.PATH, HOME: tmp, NO_COLOR: '1', ...opts.env },
    maxBuffer: 1 << 26,
    timeout: PATIENCE_MS,
  });
}

/** One `error:` line on stderr, nothing on stdout, no stack trace. */
function expectOneErrorLine(r: { status: number | null; stdout: string; stderr: string }): void {
  expect(r.status).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(/^error: /);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

/** A small tmpfs (root only, as in CI), unmounted after the test. */
function smallDisk(kb: number): { dir: string; fill(): void; free(): void; unmount(): void } {
  const dir = mkdtempSync(path.join(tmp, 'disk-'));
  const m = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${kb}k`, 'tmpfs', dir], { encoding: 'utf8' });
  if (m.status !== 0) throw new Error(`cannot mount a tmpfs (these tests run as root): ${m.stderr}`);
  const filler = path.join(dir, 'filler');
  return {
    dir,
    fill: () => {
      // Fill whatever is left: dd stops with ENOSPC.
      spawnSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=1k', `count=${kb * 2}`], { encoding: 'utf8' });
    },
    free: () => rmSync(filler, { force: true }),
    unmount: () => void spawnSync('umount', [dir]),
  };
}

describe('bounded memory', () => {
  it('a YAML alias bomb is refused at once, in a process with a 128 MB heap', () => {
    const r = opm(['render', 'testdata/load/alias-bomb/catalog', '-o', 'json'], { heapMb: 128 });
    expectOneErrorLine(r);
    expect(r.stderr).toContain('excessive aliasing');
  });

  it('a truncated 20 MB JSON array gets its error in linear time and bounded memory', () => {
    const dir = path.join(tmp, 'truncated');
    mkdirSync(dir);
    const item = JSON.stringify({
      schema: 'olm.bundle',
      name: 'b',
      package: 'p',
      image: 'x',
      properties: [],
    });
    const text = `[${Array<string>(200_000).fill(item).join(',')}]`;
    writeFileSync(path.join(dir, 'catalog.json'), text.slice(0, -50));
    // 512 MB of heap and a generous deadline: a quadratic error path needs minutes. --quiet: on a
    // loaded machine the load takes over a second, and its progress line would join the error's.
    const r = opm(['render', dir, '--quiet'], { heapMb: 512 });
    expectOneErrorLine(r);
  });

  it('a JSON number that overflows a float64 fails at load with its line, writing nothing', () => {
    const r = opm(['render', 'testdata/load/number-overflow/catalog', '-o', 'json']);
    expectOneErrorLine(r);
    expect(r.stderr).toContain('index.json:3: ');
    expect(r.stderr).toContain('1e400');
  });
});

describe('outputs too large to write', () => {
  // 2.6 MB written once and aliased 900 times: within go-yaml's alias rule, 2.3 GB once expanded.
  // Writing it would take gigabytes and minutes before the limit is met (a buffer or string
  // larger than V8 allows); run in 1.5 GB of address space, the process meets the same failure
  // (an allocation that fails) after a few hundred MB, as on a machine without the memory.
  const dir = path.join(tmp, 'huge');
  beforeAll(() => {
    mkdirSync(dir);
    const lines = [
      'schema: olm.bundle',
      'name: foo.v1',
      'package: foo',
      'image: example.com/foo:v1',
      'properties:',
      '- type: example.big',
      '  value:',
      `    s: &s "${'x'.repeat(2_600_000)}"`,
      `    l: [${Array<string>(900).fill('*s').join(',')}]`,
    ];
    writeFileSync(path.join(dir, 'catalog.yaml'), lines.join('\n') + '\n');
  });

  it.each(['json', 'yaml'])('-o %s fails with one line instead of cutting the output short', (format) => {
    const r = opm(['render', dir, '-o', format], { addressSpaceMb: 1536 });
    expectOneErrorLine(r);
    expect(r.stderr).toMatch(/^error: the output is too large to be written \(/);
  });
});

describe('write failures', () => {
  it('stdout on a full device: one line, exit 1', () => {
    const r = spawnSync(
      'sh',
      ['-c', `"${process.execPath}" "${bin}" render "${example}" -o yaml > /dev/full`],
      {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, HOME: tmp },
      },
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('error: write /dev/stdout: no space left on device\n');
  });

  it('generate dockerfile on a full disk leaves no file, and a later run succeeds', () => {
    const disk = smallDisk(64);
    try {
      cpSync(example, path.join(disk.dir, 'bar'), { recursive: true });
      disk.fill();
      const r = opm(['generate', 'dockerfile', path.join(disk.dir, 'bar')]);
      expectOneErrorLine(r);
      expect(r.stderr).toContain('no space left on device');
      expect(readdirSync(disk.dir).sort()).toEqual(['bar', 'filler']);
      disk.free();
      expect(opm(['generate', 'dockerfile', path.join(disk.dir, 'bar')]).status).toBe(0);
      expect(existsSync(path.join(disk.dir, 'bar.Dockerfile'))).toBe(true);
    } finally {
      disk.unmount();
    }
  });

  it('migrate into a full disk leaves the output folder empty', () => {
    const disk = smallDisk(64);
    try {
      disk.fill();
      const r = opm(['migrate', example, disk.dir]);
      expect(r.status).toBe(1);
      expect(readdirSync(disk.dir)).toEqual(['filler']);
    } finally {
      disk.unmount();
    }
  });
});

describe('migrate into a directory that exists', () => {
  it('writes into a mount point (as `docker -v $PWD/out:/out` gives), a symlink, and a plain folder keeping its mode', () => {
    const disk = smallDisk(1024);
    try {
      expect(opm(['migrate', example, disk.dir]).status).toBe(0);
      expect(readdirSync(disk.dir)).toEqual(['example-operator']);
    } finally {
      disk.unmount();
    }
    const real = path.join(tmp, 'real');
    mkdirSync(real);
    symlinkSync(real, path.join(tmp, 'link'));
    expect(opm(['migrate', example, path.join(tmp, 'link')]).status).toBe(0);
    expect(lstatSync(path.join(tmp, 'link')).isSymbolicLink()).toBe(true);
    expect(readdirSync(real)).toEqual(['example-operator']);
    const plain = path.join(tmp, 'plain');
    mkdirSync(plain, { mode: 0o750 });
    expect(opm(['migrate', example, plain]).status).toBe(0);
    expect(statSync(plain).mode & 0o777).toBe(0o750);
    expect(readdirSync(plain)).toEqual(['example-operator']);
  });
});

describe('control characters in file names', () => {
  it('are escaped in the error line: no forged lines, no terminal escapes', () => {
    const dir = path.join(tmp, 'names');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'a\nerror: forged\u001b[31m.yaml'), 'schema: olm.package\nname: [\n');
    const r = opm(['render', dir]);
    expectOneErrorLine(r);
    expect(r.stderr).toContain('a\\nerror: forged\\x1b[31m.yaml:3: ');
  });
});

describe('signals during an image pull', () => {
  let fx: Fixture;
  let ref: string;
  beforeAll(async () => {
    fx = await startFixture();
    const image = await buildImage({
      layers: [{ dir: path.resolve('testdata/render/good/properties-and-dependencies') }],
      labels: BUNDLE_LABELS('demo'),
    });
    await pushImage(image, { url: fx.plain.url, repo: 'example/demo', tag: 'v1' });
    ref = `${fx.proxy.host}/example/demo:v1`;
  });
  afterAll(async () => fx.stop());

  it('SIGINT removes the temporary tree, and a later run removes what a killed run left', async () => {
    const work = mkdtempSync(path.join(tmp, 'work-'));
    // What a run killed outright (no chance to clean up) would have left behind.
    const stale = path.join(work, 'opm-unpack-999999-abcdef');
    mkdirSync(path.join(stale, 'manifests'), { recursive: true });
    fx.proxy.reset();
    fx.proxy.faults.push({ kind: 'trickle', on: 'blob', times: 100 });
    const child = spawn(process.execPath, [bin, '--use-http', '--no-cache', 'render', ref], {
      env: { PATH: process.env.PATH, HOME: tmp, TMPDIR: work },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    // Wait until the pull has made its scratch folder and the blob is trickling in.
    const deadline = Date.now() + PATIENCE_MS;
    while (!readdirSync(work).some((n) => n.startsWith(`opm-blobs-${child.pid}-`)) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(readdirSync(work).some((n) => n.startsWith('opm-blobs-'))).toBe(true);
    expect(existsSync(stale)).toBe(false);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(readdirSync(work)).toEqual([]);
    fx.proxy.reset();
  });
});
