// The two tools side by side for the differential suite: the reference opm (OPM_REFERENCE) as a
// process, opm-ts in-process.
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { runOpm } from '../run-cli.js';

// Absolute: some runs happen in a fixture's folder.
export const reference =
  (process.env.OPM_REFERENCE ?? '') === '' ? '' : path.resolve(process.env.OPM_REFERENCE ?? '');
if (reference === '' || !existsSync(reference)) {
  throw new Error(
    'OPM_REFERENCE must name a reference opm binary (scripts/build-reference-opm.sh builds one)',
  );
}

export interface Run {
  code: number;
  stdout: string;
}

export function ref(args: string[], cwd = process.cwd()): Run {
  const r = spawnSync(reference, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
  return { code: r.status ?? -1, stdout: r.stdout };
}

export async function ours(args: string[], cwd = process.cwd()): Promise<Run> {
  const r = await runOpm(args, { cwd });
  return { code: r.code, stdout: r.stdout };
}
