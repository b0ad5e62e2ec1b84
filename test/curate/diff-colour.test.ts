// diff's text output is coloured only when asked (a terminal on stdout, or FORCE_COLOR), and the
// colours never reach the other formats.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';

const cwd = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../testdata/curate/diff');
const ESC = String.fromCharCode(27);

describe('diff colours', () => {
  it('none on a pipe, with FORCE_COLOR on text only', async () => {
    const plain = await runOpm(['diff', 'old', 'new'], { cwd });
    expect(plain.stdout).not.toContain(ESC);
    const forced = await runOpm(['diff', 'old', 'new'], { cwd, env: { FORCE_COLOR: '1' } });
    expect(forced.code).toBe(1);
    expect(forced.stdout).toContain(`${ESC}[`);
    expect(forced.stdout.replace(new RegExp(`${ESC}\\[[0-9;]*m`, 'g'), '')).toBe(plain.stdout);
    for (const format of ['markdown', 'json', 'yaml']) {
      const r = await runOpm(['diff', 'old', 'new', '-o', format], { cwd, env: { FORCE_COLOR: '1' } });
      expect(r.stdout).not.toContain(ESC);
    }
  });
});
