// needs-build: it runs bin/opm.js over dist/.
// Standard output that cannot take everything: every command that writes data to stdout, with
// stdout a file on a small tmpfs and more output than the tmpfs holds, ends with opm's one line
// (`write /dev/stdout: no space left on device`) and exit 1, where a short write used to leave a
// cut-short file and exit 0. Folders written by migrate and filter --output-dir on such a disk are
// refused whole. The reader of a pipe going away still ends the run quietly (141).
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATIENCE_MS } from '../patience.js';

const bin = path.resolve('bin/opm.js');
const tmp = mkdtempSync(path.join(tmpdir(), 'opm-stdout-'));
const env = { PATH: process.env.PATH, HOME: tmp, NO_COLOR: '1' };
const DISK_KB = 16;
const FULL = 'error: write /dev/stdout: no space left on device\n';

/**
 * A catalog of one package with `n` bundles in one channel, each bundle with a related image.
 * `unknownField` adds a field opm drops to every bundle, which validate warns about.
 */
function writeCatalog(dir: string, n: number, unknownField = false): void {
  mkdirSync(path.join(dir, 'big'), { recursive: true });
  const blobs: object[] = [{ schema: 'olm.package', name: 'big', defaultChannel: 'stable' }];
  const entries: object[] = [];
  for (let i = 0; i < n; i++) {
    const name = `big.v1.0.${i}`;
    entries.push(i === 0 ? { name } : { name, replaces: `big.v1.0.${i - 1}` });
    blobs.push({
      schema: 'olm.bundle',
      name,
      package: 'big',
      image: `example.com/big/bundle:v1.0.${i}`,
      properties: [
        { type: 'olm.package', value: { packageName: 'big', version: `1.0.${i}` } },
        { type: 'olm.gvk', value: { group: 'example.com', kind: 'Widget', version: 'v1' } },
      ],
      relatedImages: [{ name: 'operator', image: `example.com/big/operator:v1.0.${i}` }],
      ...(unknownField ? { extra: i } : {}),
    });
  }
  blobs.push({ schema: 'olm.channel', name: 'stable', package: 'big', entries });
  writeFileSync(
    path.join(dir, 'big', 'catalog.json'),
    blobs.map((b) => JSON.stringify(b, null, 2)).join('\n'),
  );
}

const big = path.join(tmp, 'big');
const small = path.join(tmp, 'small');
const warned = path.join(tmp, 'warned');
const icon = path.join(tmp, 'icon.svg');
const template = path.join(tmp, 'template.json');
let disk = '';

beforeAll(() => {
  writeCatalog(big, 400);
  writeCatalog(small, 10);
  writeCatalog(warned, 400, true);
  writeFileSync(icon, `<svg xmlns="http://www.w3.org/2000/svg"><!-- ${'x'.repeat(40_000)} --></svg>\n`);
  const description = 'd'.repeat(40_000);
  writeFileSync(
    template,
    JSON.stringify({
      schema: 'olm.template.basic',
      entries: [{ schema: 'olm.package', name: 'big', description }],
    }),
  );
  disk = path.join(tmp, 'disk');
  mkdirSync(disk);
  const m = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${DISK_KB}k`, 'tmpfs', disk], {
    encoding: 'utf8',
  });
  if (m.status !== 0) throw new Error(`cannot mount a tmpfs (these tests run as root): ${m.stderr}`);
});

afterAll(() => {
  if (disk !== '') spawnSync('umount', [disk]);
  rmSync(tmp, { recursive: true, force: true });
});

/** Empty the small disk; `full` then fills it, so that the first byte written is refused. */
function resetDisk(full: boolean): void {
  for (const name of readdirSync(disk)) rmSync(path.join(disk, name), { recursive: true, force: true });
  if (full) {
    // dd stops with ENOSPC once the disk is full.
    spawnSync('dd', ['if=/dev/zero', `of=${path.join(disk, 'filler')}`, 'bs=1k', `count=${DISK_KB * 2}`]);
  }
}

/** Progress lines (work over a second) are not what these tests are about: stderr holds only errors. */
const QUIET = '--quiet';

/** Run opm with stdout a file on the small disk. */
function runIntoDisk(args: string[]): { status: number | null; stderr: string; written: number } {
  const out = path.join(disk, 'out');
  const fd = openSync(out, 'w');
  try {
    const r = spawnSync(process.execPath, [bin, QUIET, ...args], {
      encoding: 'utf8',
      env,
      stdio: ['ignore', fd, 'pipe'],
      timeout: PATIENCE_MS,
    });
    return { status: r.status, stderr: r.stderr, written: statSync(out).size };
  } finally {
    closeSync(fd);
  }
}

/** Run opm with stdout a pipe read to its end: the whole output. */
function runWhole(args: string[]): { status: number | null; stdout: Buffer; stderr: string } {
  const r = spawnSync(process.execPath, [bin, QUIET, ...args], {
    env,
    maxBuffer: 1 << 26,
    timeout: PATIENCE_MS,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.toString('utf8') };
}

/** Exit codes of a command: when all is written, and when stdout cannot take its output. */
interface Codes {
  written: number;
  failed: number;
}
const PLAIN: Codes = { written: 0, failed: 1 };
// diff exits 1 for catalogs that differ, 2 for trouble (as diff(1) does), a failed write included.
const DIFF: Codes = { written: 1, failed: 2 };

// Every command and output format that writes data to stdout, each with more output than the disk.
const LARGE: Array<[string, string[], Codes]> = [
  ['render', ['render', big], PLAIN],
  ['render -o yaml', ['render', big, '-o', 'yaml'], PLAIN],
  ['filter -o json', ['filter', big, '--package', 'big', '-o', 'json'], PLAIN],
  ['filter -o yaml', ['filter', big, '--package', 'big', '-o', 'yaml'], PLAIN],
  ['validate -o json', ['validate', warned, '-o', 'json'], PLAIN],
  ['validate -o yaml', ['validate', warned, '-o', 'yaml'], PLAIN],
  ['validate -o sarif', ['validate', warned, '-o', 'sarif'], PLAIN],
  ['validate -o github', ['validate', warned, '-o', 'github'], PLAIN],
  ['alpha render-graph (mermaid)', ['alpha', 'render-graph', big], PLAIN],
  ['alpha render-graph -o svg', ['alpha', 'render-graph', big, '-o', 'svg'], PLAIN],
  ['alpha render-graph -o html', ['alpha', 'render-graph', big, '-o', 'html'], PLAIN],
  ['diff (text)', ['diff', small, big], DIFF],
  ['diff -o markdown', ['diff', small, big, '-o', 'markdown'], DIFF],
  ['diff -o json', ['diff', small, big, '-o', 'json'], DIFF],
  ['diff -o yaml', ['diff', small, big, '-o', 'yaml'], DIFF],
  ['list images (text)', ['list', 'images', big], PLAIN],
  ['list images -o json', ['list', 'images', big, '-o', 'json'], PLAIN],
  ['list images -o yaml', ['list', 'images', big, '-o', 'yaml'], PLAIN],
  ['alpha list bundles', ['alpha', 'list', 'bundles', big], PLAIN],
  [
    'alpha convert-template basic',
    ['alpha', 'convert-template', 'basic', path.join(big, 'big', 'catalog.json')],
    PLAIN,
  ],
  [
    'alpha render-template basic -o json',
    ['alpha', 'render-template', 'basic', template, '-o', 'json'],
    PLAIN,
  ],
  [
    'alpha render-template basic -o yaml',
    ['alpha', 'render-template', 'basic', template, '-o', 'yaml'],
    PLAIN,
  ],
  ['init -o json', ['init', 'big', '--icon', icon, '-o', 'json'], PLAIN],
  ['init -o yaml', ['init', 'big', '--icon', icon, '-o', 'yaml'], PLAIN],
];

// Commands whose output is smaller than a page of the disk: run on a disk that is already full.
const SMALL: Array<[string, string[]]> = [
  ['version', ['version']],
  ['version --help', ['version', '--help']],
  ['--help', ['--help']],
  ['alpha (group help)', ['alpha']],
  ['completion bash', ['completion', 'bash']],
  ['alpha list packages', ['alpha', 'list', 'packages', small]],
];

describe('stdout on a disk that fills up', () => {
  it.each(LARGE)('%s: one line, exit 1 (diff: 2), the disk holding what fitted', (_name, args, codes) => {
    const whole = runWhole(args);
    expect(whole.status).toBe(codes.written);
    // The scenario holds: more output than the disk has room for.
    expect(whole.stdout.length).toBeGreaterThan(DISK_KB * 1024);
    resetDisk(false);
    const r = runIntoDisk(args);
    expect(r.stderr).toBe(FULL);
    expect(r.status).toBe(codes.failed);
    expect(r.written).toBeLessThan(whole.stdout.length);
  });

  it.each(SMALL)('%s on a full disk: one line, exit 1', (_name, args) => {
    const whole = runWhole(args);
    expect(whole.status).toBe(0);
    expect(whole.stdout.length).toBeGreaterThan(0);
    resetDisk(true);
    const r = runIntoDisk(args);
    expect(r.stderr).toBe(FULL);
    expect(r.status).toBe(1);
    expect(r.written).toBe(0);
  });

  it('the same commands write everything when the disk has room', () => {
    resetDisk(false);
    const args = ['render', small, '-o', 'yaml'];
    const whole = runWhole(args);
    expect(whole.stdout.length).toBeLessThan(DISK_KB * 1024 - 4096);
    const r = runIntoDisk(args);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.written).toBe(whole.stdout.length);
  });
});

describe('folders written on a disk that fills up', () => {
  it.each([
    ['migrate', (out: string) => ['migrate', big, out]],
    ['filter --output-dir', (out: string) => ['filter', big, '--package', 'big', '--output-dir', out]],
  ])('%s: one line naming the file, exit 1, nothing left', (_name, args) => {
    resetDisk(false);
    const out = path.join(disk, 'catalog');
    const r = spawnSync(process.execPath, [bin, QUIET, ...args(out)], {
      encoding: 'utf8',
      env,
      timeout: PATIENCE_MS,
    });
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `error: write file "${path.join(out, 'big', 'catalog.json')}": no space left on device\n`,
    );
    expect(r.status).toBe(1);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(disk)).toEqual([]);
  });
});

describe('the reader of stdout going away', () => {
  it.each([
    ['render', ['render', big]],
    ['render -o yaml', ['render', big, '-o', 'yaml']],
    ['alpha render-graph -o html', ['alpha', 'render-graph', big, '-o', 'html']],
    ['diff', ['diff', small, big]],
    ['validate -o sarif', ['validate', warned, '-o', 'sarif']],
    ['version', ['version']],
  ])('%s: quiet, exit 141', async (_name, args) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    // Closed before the child has written anything: its first write finds no reader.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(stderr).toBe('');
    expect(code).toBe(141);
  });
});
