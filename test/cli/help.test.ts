// `--help` of every command: cobra's layout (Usage, Available Commands, Flags, Global Flags, the
// "Use … --help" line), flags as pflag lists them, and no line wider than the width.
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../../src/cli/program.js';
import { commandPath, hangingText, helpWidth } from '../../src/cli/help.js';
import { quietIO, runOpm } from '../run-cli.js';

/** Every command path of the tree, hidden ones included, but not those that only answer "not provided". */
function commandPaths(env: NodeJS.ProcessEnv): string[][] {
  const io = quietIO(env);
  const out: string[][] = [];
  const visit = (cmd: Command): void => {
    if (/^\(not provided/.test(cmd.description())) return;
    out.push(commandPath(cmd).split(' ').slice(1));
    for (const sub of cmd.commands) visit(sub);
  };
  visit(createProgram(io));
  return out;
}

const PLAIN = commandPaths({});
const ALPHA = commandPaths({ HELP_ALPHA: 'true' });

describe('--help', () => {
  it('covers the whole tree', () => {
    const names = PLAIN.map((p) => p.join(' '));
    for (const c of [
      '',
      'render',
      'alpha list packages',
      'alpha render-template',
      'generate dockerfile',
      'list images',
      'serve',
      'index add',
      'registry add',
      'index export',
    ])
      expect(names).toContain(c);
    expect(names).not.toContain('registry mirror');
  });

  it.each([...PLAIN.map((p) => [p, {}] as const), ...ALPHA.map((p) => [p, { HELP_ALPHA: 'true' }] as const)])(
    '%j %j: no line over 80 columns, cobra sections',
    async (path, env) => {
      const r = await runOpm([...path, '--help'], { env });
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      const lines = r.stdout.split('\n');
      const wide = lines.filter((l) => l.length > 80);
      expect(wide).toEqual([]);
      expect(lines.filter((l) => / $/.test(l))).toEqual([]);
      expect(r.stdout).toContain(`\nUsage:\n  ${['opm', ...path].join(' ')} `);
      expect(r.stdout).toMatch(/\nFlags:\n(?:.*\n)* {2}-h, --help +help for /);
    },
  );

  it('lays out opm --help as cobra does', async () => {
    const r = await runOpm(['--help']);
    const text = r.stdout;
    expect(text).toContain('\nUsage:\n  opm [command]\n\nAvailable Commands:\n');
    // Names padded to the longest name, descriptions in one column, wrapped under it.
    const rows = text.split('Available Commands:\n')[1]?.split('\n\n')[0]?.split('\n') ?? [];
    const starts = new Set(
      rows.filter((l) => /^ {2}\S/.test(l)).map((l) => /^ {2}\S+ +/.exec(l)?.[0].length),
    );
    expect(starts.size).toBe(1);
    const column = [...starts][0] ?? 0;
    for (const l of rows.filter((x) => /^ {3}/.test(x))) expect(l.slice(0, column).trim()).toBe('');
    expect(rows.map((l) => /^ {2}(\S+)/.exec(l)?.[1]).filter((n) => n !== undefined)).toEqual([
      'completion',
      'compose',
      'diff',
      'filter',
      'generate',
      'generate-dockerfile',
      'help',
      'image',
      'index',
      'init',
      'list',
      'migrate',
      'registry',
      'render',
      'serve',
      'validate',
      'version',
    ]);
    expect(text).toContain('\nFlags:\n  -h, --help ');
    expect(text).toMatch(/\n {6}--use-http +use plain HTTP/);
    expect(text.endsWith('\nUse "opm [command] --help" for more information about a command.\n')).toBe(true);
  });

  it('prints flags as pflag does: type word, default, sorted, global flags apart', async () => {
    const r = await runOpm(['render', '--help']);
    expect(r.stdout).toMatch(
      /\n {2}-o, --output string +Output format of the streamed file-based catalog\n +objects \(json\|yaml\) \(default "json"\)\n/,
    );
    expect(r.stdout).toMatch(
      /\n {6}--migrate-level string +Name of the last migration to run \(default: none\)\n\n +The migrator/,
    );
    const flags = r.stdout.split('\nFlags:\n')[1]?.split('\n\nGlobal Flags:')[0] ?? '';
    const names = [...flags.matchAll(/^ {2}(?:-\w, | {4})--([\w-]+)/gm)].map((m) => m[1]);
    expect(names).toEqual(['help', 'migrate', 'migrate-level', 'output']);
    expect(r.stdout).toMatch(/\nGlobal Flags:\n(?:.*\n)* {6}--skip-tls-verify +skip TLS/);
    expect(r.stdout).not.toContain('Use "opm render');
  });

  it('keeps commands opm-ts does not provide out of the listings', async () => {
    const root = await runOpm(['--help']);
    expect(root.stdout).toMatch(/^ {2}index /m);
    const registry = await runOpm(['registry', '--help']);
    expect(registry.stdout).toMatch(/^ {2}serve /m);
    expect(registry.stdout).toMatch(/^ {2}add /m);
    expect(registry.stdout).toMatch(/^ {2}deprecatetruncate /m);
    expect(registry.stdout).not.toMatch(/^ {2}mirror /m);
    const index = await runOpm(['index', '--help']);
    expect(index.stdout).toMatch(/^ {2}add /m);
    expect(index.stdout).toMatch(/^ {2}export /m);
    const alpha = await runOpm(['alpha', '--help'], { env: { HELP_ALPHA: 'true' } });
    expect(alpha.stdout).toMatch(/^ {2}render-template /m);
    expect(alpha.stdout).toMatch(/^ {2}bundle /m);
    const bundle = await runOpm(['alpha', 'bundle', '--help'], { env: { HELP_ALPHA: 'true' } });
    for (const name of ['generate', 'build', 'validate', 'unpack', 'extract'])
      expect(bundle.stdout).toMatch(new RegExp(`^ {2}${name} `, 'm'));
    // Still there when called, with their one line.
    for (const args of [
      ['registry', 'mirror', '--help'],
      ['registry', 'mirror'],
    ]) {
      const r = await runOpm(args);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^error: opm registry mirror is not provided by opm-ts \(.+\)\n$/);
    }
  });

  it('follows COLUMNS', async () => {
    const r = await runOpm(['validate', '--help'], { env: { COLUMNS: '60' } });
    const lines = r.stdout.split('\n');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(60);
    expect(Math.max(...lines.map((l) => l.length))).toBeGreaterThan(50);
  });
});

describe('helpWidth', () => {
  it.each([
    [{ COLUMNS: '120' }, { columns: 100 }, 120],
    [{}, { columns: 100 }, 100],
    [{}, {}, 80],
    [{ COLUMNS: 'wide' }, {}, 80],
    [{ COLUMNS: '0' }, { columns: 0 }, 80],
  ])('env %j, stdout %j: %d', (env, stdout, want) => {
    expect(helpWidth(env, stdout)).toBe(want);
  });
});

describe('hangingText', () => {
  it("wraps under the column it starts at, keeping the text's own lines", () => {
    const text =
      'one two three four five six seven eight nine ten eleven twelve\n\n  - item : a list item that goes on past the end of the line';
    const out = hangingText(text, 30, 60);
    const lines = `${' '.repeat(30)}${out}`.split('\n');
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(60);
    expect(lines.filter((l) => l !== '').every((l) => l.startsWith(' '.repeat(30)))).toBe(true);
    expect(out.replace(/\s+/g, ' ')).toBe(text.replace(/\s+/g, ' '));
    // A list item goes on under its text.
    expect(lines.at(-1)).toMatch(/^ {34}\S/);
  });

  it('starts on the next line when fewer than 24 columns are left', () => {
    const out = hangingText('a description of some length', 50, 60);
    expect(out.startsWith(`\n${' '.repeat(16)}a description`)).toBe(true);
  });

  it('puts a word longer than the room on a line of its own', () => {
    const long = 'x'.repeat(40);
    expect(
      hangingText(`short ${long} end`, 10, 40)
        .split('\n')
        .map((l) => l.trim()),
    ).toEqual(['short', long, 'end']);
  });
});
