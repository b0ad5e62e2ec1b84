import { Command, Option } from 'commander';
import type { CliIO } from './io.js';
import { registerInit } from './commands/init.js';
import { registerRender } from './commands/render.js';
import { registerValidate } from './commands/validate.js';
import { registerGenerate } from './commands/generate-dockerfile.js';
import { registerMigrate } from './commands/migrate.js';
import { registerVersion } from './commands/version.js';
import { registerServe } from './commands/serve.js';
import { registerAlpha } from './commands/alpha.js';

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
    .addOption(new Option('--debug', 'print debug output, including stack traces').default(false).hideHelp());

  registerInit(program, io);
  registerRender(program, io);
  registerValidate(program, io);
  registerGenerate(program, io);
  registerMigrate(program, io);
  registerVersion(program, io);
  registerServe(program);
  registerAlpha(program, io);

  return program;
}
