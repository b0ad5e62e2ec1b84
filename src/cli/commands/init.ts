import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { initPackage } from '../../action/init.js';
import { emptyConfig } from '../../declcfg/types.js';
import { writeJson, writeYaml } from '../../declcfg/write.js';
import { OpmError } from '../../errors.js';
import type { CliIO } from '../io.js';
import { outputFormat } from '../global-options.js';
import { writeChunks } from '../output.js';

interface InitFlags {
  defaultChannel: string;
  description: string;
  icon: string;
  output: string;
}

async function readInput(kind: 'icon' | 'description', file: string, cwd: string): Promise<Buffer> {
  try {
    return await readFile(path.resolve(cwd, file));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'no such file or directory' : code === 'EISDIR' ? 'is a directory' : String(err);
    throw new OpmError(`open ${kind} file "${file}": ${why}`);
  }
}

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
      const format = outputFormat(flags.output, ['json', 'yaml'] as const);
      const pkg = initPackage({
        package: name,
        defaultChannel: flags.defaultChannel,
        ...(flags.description === ''
          ? {}
          : { description: (await readInput('description', flags.description, io.cwd)).toString('utf8') }),
        ...(flags.icon === ''
          ? {}
          : { icon: await readInput('icon', flags.icon, io.cwd), iconPath: flags.icon }),
      });
      const cfg = emptyConfig();
      cfg.packages.push(pkg);
      await writeChunks(io.stdout, format === 'json' ? writeJson(cfg) : writeYaml(cfg));
    });
}
