// needs-build: it runs bin/opm.js over dist/.
// The installed command line draws the graph: the layout library, left out of the bundle, is found
// when a picture is asked for, and the bytes are those the sources write.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const bin = path.resolve('bin/opm.js');
const env = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' };
const scenario = path.resolve('testdata/graph/several-channels');

describe('opm alpha render-graph -o svg|html (the built process)', () => {
  it.each(['svg', 'html'])('writes the expected %s on stdout and nothing on stderr', (format) => {
    const r = spawnSync(
      process.execPath,
      [bin, 'alpha', 'render-graph', path.join(scenario, 'catalog'), '-o', format],
      {
        encoding: 'utf8',
        env,
      },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(readFileSync(path.join(scenario, `expected.${format}`), 'utf8'));
  });
});
