import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { commandPath } from '../../src/cli/help.js';
import { createProgram, TOP_LEVEL_NAMES } from '../../src/cli/program.js';
import { quietIO, runOpm } from '../run-cli.js';

describe('opm command line', () => {
  it('prints version info like opm', async () => {
    const r = await runOpm(['version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^Version: version\.Version\{OpmVersion:"v1\.73\.0\+opm-ts\.\d+\.\d+\.\d+", GitCommit:"[^"]*", BuildDate:"[^"]*", GoOs:"\w+", GoArch:"\w+"\}\n$/,
    );
  });

  it('rejects an unknown command with one line and exit 2', async () => {
    const r = await runOpm(['frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`error: unknown command "frobnicate" for "opm" (see 'opm --help')\n`);
    expect(r.stdout).toBe('');
  });

  it.each([
    [['alpha', 'bogus'], `error: unknown command "bogus" for "opm alpha" (see 'opm alpha --help')\n`],
    [
      ['alpha', 'list', 'bogus'],
      `error: unknown command "bogus" for "opm alpha list" (see 'opm alpha list --help')\n`,
    ],
    [['rendr', 'x'], `error: unknown command "rendr" for "opm" (did you mean render?)\n`],
    [
      ['list', 'packages', 'x'],
      `error: unknown command "packages" for "opm list" (did you mean opm alpha list packages?)\n`,
    ],
    [
      ['render-template', 'basic', 't.yaml'],
      `error: unknown command "render-template" for "opm" (did you mean opm alpha render-template?)\n`,
    ],
    [
      ['alpha', 'list', 'bundle'],
      `error: unknown command "bundle" for "opm alpha list" (did you mean bundles?)\n`,
    ],
  ])('an unknown command at any depth: %j exits 2 with one line', async (args, line) => {
    const r = await runOpm(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(line);
    expect(r.stdout).toBe('');
  });

  it.each([
    [
      ['alpha', 'bundle', 'build', '-d', 'm', '-t', 'a/b:1', '--puhs'],
      `error: unknown option '--puhs' (did you mean --push?)\n`,
    ],
    [['render', 'x', '--outptu', 'json'], `error: unknown option '--outptu' (did you mean --output?)\n`],
    [['render', 'x', '--zzz'], `error: unknown option '--zzz' (see 'opm --help')\n`],
  ])('an unknown option %j: one line, its suggestion written as our other hints', async (args, line) => {
    const r = await runOpm(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(line);
    expect(r.stdout).toBe('');
  });

  it.each([[['help', 'render']], [['help']], [['alpha', 'help', 'list']]])(
    'help %j prints that help',
    async (args) => {
      const r = await runOpm(args);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/\nUsage:\n {2}opm /);
      if (args[1] === 'render') expect(r.stdout).toMatch(/\nUsage:\n {2}opm render /);
    },
  );

  it.each([[[]], [['alpha']], [['alpha', 'list']], [['generate']]])(
    'a command group without a subcommand prints its help on stdout: %j',
    async (args) => {
      const r = await runOpm(args);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/\nUsage:\n {2}opm /);
      expect(r.stderr).toBe('');
    },
  );

  it.each([[['registry', 'mirror', 'x']], [['registry', 'mirror', '--help']]])(
    'an opm command opm-ts does not provide says what to use instead: %j',
    async (args) => {
      const r = await runOpm(args);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^error: opm [a-z ]+ is not provided by opm-ts \(.+\)\n$/);
    },
  );

  it('rejects an unknown flag with exit 2', async () => {
    const r = await runOpm(['validate', '--bogus', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('prints help on stdout and exits 0', async () => {
    const r = await runOpm(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('render');
    expect(r.stdout).toContain('validate');
  });
});

describe('serve', () => {
  it('fails start-up with one fatal line in logrus form and exit 1', async () => {
    const r = await runOpm(['serve', 'testdata/does-not-exist', '-t', '/dev/null']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^time="[^"]+" level=fatal msg="failed to load or rebuild cache: failed to rebuild cache: catalog directory \\"testdata\/does-not-exist\\" does not exist or cannot be read"\n$/,
    );
  });
});

describe('the tree built for a command line that names a top-level command', () => {
  const io = quietIO;
  /** Every command of a tree by its path, with its help text, usage and options as commander holds them. */
  const described = (root: Command): Map<string, string> => {
    const out = new Map<string, string>();
    const visit = (cmd: Command): void => {
      const options = cmd.options.map((o) => `${o.flags} ${String(o.defaultValue)} ${String(o.hidden)}`);
      out.set(commandPath(cmd), `${cmd.helpInformation()}\n${cmd.usage()}\n${options.join('\n')}`);
      for (const sub of cmd.commands) visit(sub);
    };
    visit(root);
    return out;
  };

  it('lists the top-level commands of the full tree, in its order', () => {
    const full = createProgram(io()).commands.map((c) => c.name());
    expect(TOP_LEVEL_NAMES.flat()).toEqual(full);
  });

  it.each([{}, { HELP_ALPHA: 'true' }])(
    'holds only that command, built as in the full tree (env %j)',
    (env) => {
      const full = described(createProgram(io(env)));
      for (const names of TOP_LEVEL_NAMES) {
        for (const name of names) {
          const program = createProgram(io(env), [name, 'x']);
          if (name === 'completion') {
            // The completion script covers the whole tree: its command line gets the full tree.
            expect(described(program)).toEqual(full);
            continue;
          }
          expect(program.commands.map((c) => c.name())).toEqual(names);
          const partial = described(program);
          for (const [path, text] of partial) {
            // The program's own help lists the commands it holds; it is never shown for such a line.
            if (path !== 'opm') expect(text, path).toBe(full.get(path));
          }
          expect([...partial.keys()].filter((p) => p !== 'opm').length).toBeGreaterThan(0);
        }
      }
    },
  );

  it.each([[['--help']], [['help', 'render']], [['--quiet', 'render', 'x']], [['rendr']], [[]]])(
    'is the full tree for a command line that does not start with a command: %j',
    (argv) => {
      expect(createProgram(io(), argv).commands.map((c) => c.name())).toEqual(TOP_LEVEL_NAMES.flat());
    },
  );
});
