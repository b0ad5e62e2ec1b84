// needs-build: it runs bin/opm.js over dist/.
// A few tests of the real process (bin/opm.js over dist/): exit codes and
// streams as a shell sees them.
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const bin = path.resolve('bin/opm.js');
const env = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' };

describe('the opm process', () => {
  it('prints help on stdout and exits 0', () => {
    const r = spawnSync(process.execPath, [bin, '--help'], { encoding: 'utf8', env });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('\nUsage:\n  opm [command]\n');
    expect(r.stderr).toBe('');
  });

  it('exits 2 with one line for an unknown command', () => {
    const r = spawnSync(process.execPath, [bin, 'frobnicate'], { encoding: 'utf8', env });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toBe('');
  });

  it('stops quietly when the reader of stdout goes away (| head)', async () => {
    const catalog = path.resolve('testdata/examples/catalog');
    // Many copies of the catalog make more output than a pipe buffers.
    const child = spawn(
      process.execPath,
      [bin, 'render', ...Array<string>(200).fill(catalog), '-o', 'yaml'],
      {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(stderr).toBe('');
    expect(code).toBe(141);
  });
});
