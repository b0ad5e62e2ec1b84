import { Argument, Command, Option } from 'commander';
import { completionScript, SHELLS, type Shell } from './completion.js';
import { writeAll } from './output.js';
import type { CliIO } from './io.js';
import { UsageError } from '../errors.js';
import { registerInit } from './commands/init.js';
import { registerRender } from './commands/render.js';
import { registerValidate } from './commands/validate.js';
import { registerGenerate } from './commands/generate-dockerfile.js';
import { registerMigrate } from './commands/migrate.js';
import { registerVersion } from './commands/version.js';
import { registerNotProvided } from './commands/not-provided.js';
import { registerAlpha } from './commands/alpha.js';
import { registerFilter } from './commands/filter.js';
import { registerDiff } from './commands/diff.js';
import { registerListGroup } from './commands/list-images.js';

/** Build the command tree. Nothing here touches `process`: tests run it in-process with their own IO. */
export function createProgram(io: CliIO): Command {
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
    // Every command's help lists the global flags too, wrapped to the terminal (80 columns otherwise).
    .configureHelp({ showGlobalOptions: true, helpWidth: terminalColumns(io) })
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

  registerInit(program, io);
  registerRender(program, io);
  registerValidate(program, io);
  registerGenerate(program, io);
  registerMigrate(program, io);
  registerVersion(program, io);
  registerNotProvided(program);
  registerAlpha(program, io);
  registerFilter(program, io);
  registerDiff(program, io);
  registerListGroup(program, io);
  program
    .command('completion')
    .addArgument(new Argument('<shell>', 'the shell to complete in').choices(SHELLS))
    .description('Generate the autocompletion script for the specified shell')
    .action(async (shell: Shell) => {
      await writeAll(io.stdout, completionScript(program, shell));
    });
  groupsPrintHelp(program, io);

  return program;
}

/**
 * A command group (`opm alpha`, `opm alpha list`, `opm generate`) run without a subcommand prints
 * its help on stdout and exits 0, as cobra does; an unknown subcommand is a usage error (exit 2).
 */
function groupsPrintHelp(cmd: Command, io: CliIO): void {
  if (cmd.commands.length === 0) return;
  for (const sub of cmd.commands) groupsPrintHelp(sub, io);
  cmd.allowExcessArguments(true).action((...args: unknown[]) => {
    const self = args.at(-1) as Command;
    const names: string[] = [];
    for (let p: Command | null = self; p !== null; p = p.parent) names.unshift(p.name());
    const unknown = self.args[0];
    // `opm help [command]`, as cobra has it.
    if (unknown === 'help') {
      const target = self.commands.find(
        (c) => c.name() === self.args[1] || c.aliases().includes(self.args[1] ?? ''),
      );
      io.stdout.write((target ?? self).helpInformation());
      return;
    }
    if (unknown !== undefined) {
      const near = self.commands.map((c) => c.name()).filter((n) => editDistance(n, unknown) <= 2);
      throw new UsageError(
        `unknown command ${JSON.stringify(unknown)} for ${JSON.stringify(names.join(' '))}`,
        { hint: near.length > 0 ? `did you mean ${near.join(' or ')}?` : `see '${names.join(' ')} --help'` },
      );
    }
    io.stdout.write(self.helpInformation());
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

function terminalColumns(io: CliIO): number {
  const columns = (io.stdout as { columns?: unknown }).columns;
  return typeof columns === 'number' && columns > 0 ? columns : 80;
}
