import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import type { InitFlags } from './init-run.js';

export function registerInit(program: Command, io: CliIO): void {
  program
    .command('init')
    .argument('<packageName>')
    .description('Generate an olm.package declarative config blob')
    .option(
      '-c, --default-channel <string>',
      'The channel that subscriptions will default to if unspecified',
      '',
    )
    .option('-d, --description <string>', "Path to the operator's README.md (or other documentation)", '')
    .option('-i, --icon <string>', "Path to package's icon", '')
    .option('-o, --output <string>', 'Output format (json|yaml)', 'json')
    .action(async (name: string, flags: InitFlags) => {
      const { runInit } = await import('./init-run.js');
      await runInit(io, name, flags);
    });
}
