import { Argument, Command, Option } from 'commander';
import { completionScript, SHELLS, type Shell } from './completion.js';
import { commandPath, formatHelp, helpWidth } from './help.js';
import { writeAll } from './output.js';
import type { CliIO } from './io.js';
import { UsageError } from '../errors.js';
import { registerInit } from './commands/init.js';
import { registerRender } from './commands/render.js';
import { registerValidate } from './commands/validate.js';
import { registerGenerate } from './commands/generate-dockerfile.js';
import { registerMigrate } from './commands/migrate.js';
import { registerVersion } from './commands/version.js';
import { isNotProvided, notProvidedError } from './commands/not-provided.js';
import { registerIndex } from './commands/index-cmd.js';
import { registerAlpha } from './commands/alpha.js';
import { registerFilter } from './commands/filter.js';
import { registerDiff } from './commands/diff.js';
import { registerListGroup } from './commands/list-images.js';
import { registerServe } from './commands/serve.js';
import { registerRegistry } from './commands/registry.js';
import { registerCompose } from './commands/compose.js';
import { registerImage } from './commands/image.js';

/**
 * The top-level commands in the order help lists them, each with the names it registers and the
 * function that registers it (test/cli/program.test.ts checks the names against the full tree).
 */
const TOP_LEVEL: readonly (readonly [readonly string[], (program: Command, io: CliIO) => void])[] = [
  [['init'], registerInit],
  [['render'], registerRender],
  [['validate'], registerValidate],
  [['generate', 'generate-dockerfile'], registerGenerate],
  [['migrate'], registerMigrate],
  [['version'], registerVersion],
  [['index'], registerIndex],
  [['registry'], registerRegistry],
  [['serve'], registerServe],
  [['image'], registerImage],
  [['alpha'], registerAlpha],
  [['filter'], registerFilter],
  [['diff'], registerDiff],
  [['list'], registerListGroup],
  [['compose'], registerCompose],
  [['completion'], registerCompletion],
];

/** The names of the top-level commands, in the order of the full tree. */
export const TOP_LEVEL_NAMES: readonly (readonly string[])[] = TOP_LEVEL.map(([names]) => names);

/**
 * Build the command tree. Nothing here touches `process`: tests run it in-process with their own IO.
 *
 * With `argv` whose first word names a top-level command, only that command is built under the
 * program (commander builds every option of every command it is given, a few milliseconds of each
 * start). Parsing such a command line never looks at the other commands: the root's help, `opm
 * help`, completion and an unknown command's suggestions are reached only from command lines
 * that do not start with a command's name, which get the full tree; a group's answer to an unknown
 * subcommand, which searches the whole tree, builds the full tree for it.
 */
export function createProgram(io: CliIO, argv?: readonly string[]): Command {
  const width = helpWidth(io.env, io.stdout);
  const program = new Command('opm')
    .description('opm: build, render and validate File-Based Catalogs of the Operator Framework')
    .usage('[command] [flags]')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // Usage errors are printed by the single error handler in main.ts.
      outputError: () => undefined,
    })
    .showSuggestionAfterError(true)
    // Laid out as opm's help, within the terminal's width (80 columns otherwise); inherited by
    // every command made with .command().
    .configureHelp({ formatHelp: (cmd) => formatHelp(cmd, width) })
    .enablePositionalOptions(false)
    .option(
      '--skip-tls-verify',
      'skip TLS certificate verification for container image registries while pulling images',
      false,
    )
    .option('--use-http', 'use plain HTTP for container image registries while pulling images', false)
    .addOption(new Option('--skip-tls', 'deprecated: use --use-http').default(false).hideHelp())
    .option(
      '--platform <os/arch[/variant]>',
      'platform to pull from multi-platform images (default: linux/<host arch>)',
    )
    .option('--no-cache', 'do not read or write the local image blob cache')
    .option('--quiet', 'show no progress on stderr (warnings and errors are still shown)', false)
    .addOption(new Option('--debug', 'print debug output, including stack traces').default(false).hideHelp());

  const named = argv?.[0];
  const only = TOP_LEVEL.find(
    ([names]) => named !== undefined && names.includes(named) && named !== 'completion',
  );
  for (const entry of only === undefined ? TOP_LEVEL : [only]) entry[1](program, io);
  groupsPrintHelp(program, io, only === undefined ? () => program : () => createProgram(io));

  return program;
}

/** `opm completion <shell>`: the script completes the whole tree it is part of. */
function registerCompletion(program: Command, io: CliIO): void {
  program
    .command('completion')
    .addArgument(new Argument('<shell>', 'the shell to complete in').choices(SHELLS))
    .description('Generate the autocompletion script for the specified shell')
    .action(async (shell: Shell) => {
      await writeAll(io.stdout, completionScript(program, shell));
    });
}

/**
 * A command group (`opm alpha`, `opm alpha list`, `opm generate`) run without a subcommand prints
 * its help on stdout and exits 0, as cobra does; an unknown subcommand is a usage error (exit 2).
 */
function groupsPrintHelp(cmd: Command, io: CliIO, fullTree: () => Command): void {
  if (cmd.commands.length === 0) return;
  for (const sub of cmd.commands) groupsPrintHelp(sub, io, fullTree);
  cmd.allowExcessArguments(true).action((...args: unknown[]) => {
    const self = args.at(-1) as Command;
    const names = commandPath(self).split(' ');
    const unknown = self.args[0];
    // `opm help [command]`, as cobra has it.
    if (unknown === 'help') {
      const target = self.commands.find(
        (c) => c.name() === self.args[1] || c.aliases().includes(self.args[1] ?? ''),
      );
      const answer = target === undefined ? undefined : notProvidedError(target);
      if (answer !== undefined) throw answer;
      io.stdout.write((target ?? self).helpInformation());
      return;
    }
    if (unknown !== undefined) {
      const near = self.commands
        .filter((c) => !isNotProvided(c))
        .map((c) => c.name())
        .filter((n) => editDistance(n, unknown) <= 2);
      // A command of that name elsewhere (`opm list packages` is `opm alpha list packages`).
      const elsewhere = near.length > 0 ? [] : commandsNamed(fullTree(), unknown);
      const meant = near.length > 0 ? near : elsewhere;
      throw new UsageError(
        `unknown command ${JSON.stringify(unknown)} for ${JSON.stringify(names.join(' '))}`,
        {
          hint: meant.length > 0 ? `did you mean ${meant.join(' or ')}?` : `see '${names.join(' ')} --help'`,
        },
      );
    }
    io.stdout.write(self.helpInformation());
  });
}

/** The full paths of the commands called `name` anywhere in the tree (`opm alpha list packages`). */
function commandsNamed(cmd: Command, name: string): string[] {
  return cmd.commands.flatMap((c) => {
    if (isNotProvided(c)) return [];
    const here = c.name() === name ? [commandPath(c)] : [];
    return [...here, ...commandsNamed(c, name)];
  });
}

/** Levenshtein distance, for suggesting the command that was meant (as cobra does, up to 2). */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        (prev[j] ?? 0) + 1,
        (row[j - 1] ?? 0) + 1,
        (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}
