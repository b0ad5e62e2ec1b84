// node:fs's promise API is taken when a file is read (fs.promises is a getter): most runs read none.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { initPackage } from '../../action/init.js';
import { emptyConfig } from '../../declcfg/types.js';
import { writeJson, writeYaml } from '../../declcfg/write.js';
import { OpmError } from '../../errors.js';
import type { CliIO } from '../io.js';
import { outputFormat } from '../global-options.js';
import { writeChunks } from '../output.js';
import { decodeUtf8KeepingInvalid } from '../../go/utf8.js';
import { errnoText } from '../../go/errno.js';

export interface InitFlags {
  defaultChannel: string;
  description: string;
  icon: string;
  output: string;
}

async function readInput(kind: 'icon' | 'description', file: string, cwd: string): Promise<Buffer> {
  try {
    return await fsp.readFile(path.resolve(cwd, file));
  } catch (err) {
    throw new OpmError(`open ${kind} file "${file}": ${errnoText(err)}`);
  }
}

/** `opm init PACKAGE`. */
export async function runInit(io: CliIO, name: string, flags: InitFlags): Promise<void> {
  const format = outputFormat(flags.output, ['json', 'yaml'] as const);
  const pkg = initPackage({
    package: name,
    defaultChannel: flags.defaultChannel,
    ...(flags.description === ''
      ? {}
      : { description: decodeUtf8KeepingInvalid(await readInput('description', flags.description, io.cwd)) }),
    ...(flags.icon === '' ? {} : { icon: await readInput('icon', flags.icon, io.cwd), iconPath: flags.icon }),
  });
  const cfg = emptyConfig();
  cfg.packages.push(pkg);
  await writeChunks(io.stdout, format === 'json' ? writeJson(cfg) : writeYaml(cfg));
}
