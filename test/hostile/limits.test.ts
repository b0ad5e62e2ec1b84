// needs-build: it runs bin/opm.js over dist/.
// Limits on what one input can make the process hold, measured on the real process: its peak
// resident memory (process.resourceUsage().maxRSS, written by a preloaded module on fd 3 as it
// exits), never its time.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PATIENCE_MS } from '../patience.js';

const bin = path.resolve('bin/opm.js');
const tmp = mkdtempSync(path.join(tmpdir(), 'opm-limits-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const REPORT_RSS =
  'data:text/javascript,process.on("exit",()=>process.getBuiltinModule("node:fs").writeSync(3,String(process.resourceUsage().maxRSS)))';

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  /** Peak resident memory, in MB. */
  peakMb: number;
}

function opm(args: string[], env: NodeJS.ProcessEnv = {}): Run {
  const r = spawnSync(process.execPath, ['--import', REPORT_RSS, bin, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: tmp, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    maxBuffer: 1 << 24,
    timeout: PATIENCE_MS,
  });
  const rss = Number(r.output[3]);
  expect(rss, `no peak memory reported; stderr: ${r.stderr}`).toBeGreaterThan(0);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, peakMb: rss / 1024 };
}

describe('one blob over the blob limit', () => {
  // 2 GiB on disk in name only: a JSON blob opening a string, then a hole. The reader must refuse
  // the blob after reading the limit's worth of it, whatever follows.
  const dir = path.join(tmp, 'huge-string');
  mkdirSync(dir);
  const file = path.join(dir, 'catalog.json');
  writeFileSync(file, '{"schema": "olm.package", "name": "p", "description": "');
  truncateSync(file, 2 * 1024 * 1024 * 1024);
  const env = { OPM_MAX_BLOB_BYTES: String(16 * 1024 * 1024) };

  it('validate says so at once, holding about the limit', () => {
    const r = opm(['validate', dir], env);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('catalog.json:1: error: a single blob is too large to parse (over 16 MiB)');
    expect(r.peakMb).toBeLessThan(250);
  });

  it('render says so at once in one line, writing nothing', () => {
    const r = opm(['render', dir, '-o', 'json'], env);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `error: ${file}:1: render reference "${dir}": a single blob is too large to parse (over 16 MiB)\n`,
    );
    expect(r.peakMb).toBeLessThan(250);
  });
});

describe('a configuration file that never ends', () => {
  it('filter --config /dev/zero stops at the 16 MiB cap', () => {
    const r = opm(['filter', path.resolve('testdata/examples/catalog'), '--config', '/dev/zero']);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'error: cannot read --config "/dev/zero": more than 16 MiB, too large for a configuration file (a device or a pipe that does not end?)\n',
    );
    expect(r.peakMb).toBeLessThan(200);
  });
});
