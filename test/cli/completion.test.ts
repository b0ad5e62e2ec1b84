// `opm completion`: the bash script, loaded by a real bash, completes commands, flags and -o values.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runOpm } from '../run-cli.js';

async function complete(words: string[]): Promise<string[]> {
  const script = path.join(mkdtempSync(path.join(tmpdir(), 'opm-completion-')), 'opm.bash');
  writeFileSync(script, (await runOpm(['completion', 'bash'])).stdout);
  const r = spawnSync(
    'bash',
    [
      '-c',
      `source "$0"; complete -p opm >/dev/null || exit 3; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _opm; printf '%s\\n' "\${COMPREPLY[@]}"`,
      script,
      ...words,
    ],
    { encoding: 'utf8' },
  );
  expect(r.status).toBe(0);
  return r.stdout.split('\n').filter((l) => l !== '');
}

describe('opm completion bash', () => {
  it.each([
    [
      ['opm', 're'],
      ['render', 'registry'],
    ],
    [['opm', 'se'], ['serve']],
    [
      ['opm', 'comp'],
      ['compose', 'completion'],
    ],
    [
      ['opm', 'compose', 'catalog.yaml', '-o', ''],
      ['json', 'yaml'],
    ],
    [['opm', 'alpha', 'b'], ['bundle']],
    [
      ['opm', 'alpha', 'bundle', ''],
      ['generate', 'build', 'unpack', 'validate', 'extract'],
    ],
    [['opm', 'alpha', 'bundle', 'build', '--image'], ['--image-builder']],
    [['opm', 'alpha', 'l'], ['list']],
    [
      ['opm', 'alpha', 'list', ''],
      ['packages', 'channels', 'bundles', 'images'],
    ],
    [
      ['opm', 'render', 'dir', '-o', ''],
      ['json', 'yaml'],
    ],
    [
      ['opm', 'diff', 'a', 'b', '-o', ''],
      ['text', 'markdown', 'json', 'yaml'],
    ],
    [
      ['opm', 'alpha', 'render-template', '-o', ''],
      ['json', 'yaml', 'mermaid'],
    ],
    [['opm', 'init', 'p', '--def'], ['--default-channel']],
    [
      ['opm', 'in'],
      ['init', 'index'],
    ],
    [
      ['opm', 'index', ''],
      ['add', 'deprecatetruncate', 'export', 'prune', 'prune-stranded', 'rm'],
    ],
    [['opm', 'index', 'export', '--do'], ['--download-folder']],
    [
      ['opm', 'registry', ''],
      ['serve', 'add', 'rm', 'prune', 'prune-stranded', 'deprecatetruncate'],
    ],
    [['opm', 'render', '--use'], ['--use-http']],
  ])('%j completes to %j', async (words, want) => {
    expect(await complete(words)).toEqual(want);
  });

  it.each(['zsh', 'fish', 'powershell'])('writes a %s script naming every command', async (shell) => {
    const r = await runOpm(['completion', shell]);
    expect(r.code).toBe(0);
    for (const c of ['init', 'render', 'validate', 'migrate', 'render-template'])
      expect(r.stdout).toContain(c);
  });

  it.each(['bash', 'zsh', 'fish', 'powershell'])(
    'the %s script offers no command opm-ts does not provide',
    async (shell) => {
      const script = (await runOpm(['completion', shell])).stdout;
      // `index` is provided whole; `registry` for `serve`, `add` and the verbs that remove from a
      // database (opm v1.73 has no `mirror` either); those not provided are neither offered as a
      // word nor a path of their own.
      expect(script).toMatch(/[ ']index[ ']/);
      expect(script).toMatch(/[ ']export[ ']/);
      expect(script).toMatch(/[ ']registry[ ']/);
      expect(script).toMatch(/[ ']deprecatetruncate[ ']/);
      expect(script).not.toMatch(/[ ']mirror[ ']/);
      // `alpha bundle` is provided, `validate` and its validators included.
      expect(script).toMatch(/[ ']unpack[ ']/);
      expect(script).toMatch(/--optional-validators/);
    },
  );

  it('refuses an unknown shell as a usage error', async () => {
    expect((await runOpm(['completion', 'tcsh'])).code).toBe(2);
  });
});
