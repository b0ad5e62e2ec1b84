// diff's text output is coloured only when asked (a terminal on stdout, or FORCE_COLOR), and the
// colours never reach the other formats. In a changed list, what was added is green and what was
// removed red inside the line's yellow.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';

const curate = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../testdata/curate');
const cwd = path.join(curate, 'diff');
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

  it('a list change: added green, removed red, the rest of the line yellow', async () => {
    const r = await runOpm(['diff', 'old', 'new'], {
      cwd: path.join(curate, 'diff-lists'),
      env: { FORCE_COLOR: '1' },
    });
    const [yellow, green, red, end] = ['33', '32', '31', '39'].map((n) => `${ESC}[${n}m`);
    const lines = r.stdout.split('\n');
    // Where a nested colour ends, the line's colour is opened again.
    const back = `${end}${yellow}`;
    expect(lines).toContain(
      `  ${yellow}~ skips of lists.v1.1.0 in channel stable: ${green}added lists.v0.22.0, lists.v0.23.0${back}; ${red}removed lists.v0.3.0, lists.v0.17.0${back}${end}`,
    );
    expect(lines).toContain(`    ${yellow}example.com/team: ${green}added "platform"${back}${end}`);
    expect(lines).toContain(
      `  ${yellow}~ skips of lists.v1.2.0 in channel stable: ${red}removed lists.v0.40.0, lists.v0.41.0${back}${end}`,
    );
  });
});
