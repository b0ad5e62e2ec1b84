/**
 * The command line hands its signal to the use case it runs: SIGTERM (main.ts aborts with
 * ExitCode(143)) stops a render, a validation and a migration mid-way, with the exit status of a
 * process killed by it, nothing on stdout, no message and no output directory.
 */
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/cli/exit-code.js';
import { runOpm } from '../run-cli.js';
import { entries, generateCatalog, signalFiringAt } from './generated.js';

let root: string;

beforeAll(() => {
  ({ root } = generateCatalog(40, 30));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A signal that fires as SIGTERM does in main.ts, at its `fireAt`-th look (a few files into the load). */
const sigtermAt = (fireAt: number): AbortSignal => signalFiringAt(fireAt, new ExitCode(143)).signal;

describe('a command stopped by SIGTERM', () => {
  it.each([
    ['render', ['render', 'catalog']],
    ['validate', ['validate', 'catalog']],
    ['migrate', ['migrate', 'catalog', 'out']],
  ])('%s exits 143 quietly, leaving nothing', async (_name, args) => {
    const r = await runOpm(args, { cwd: root, env: { OPM_THREADS: '1' }, signal: sigtermAt(8) });
    expect(r).toEqual({ code: 143, stdout: '', stderr: '' });
    expect(existsSync(path.join(root, 'out'))).toBe(false);
    expect(entries(root)).toEqual(['catalog']);
  });

  it('runs to the end when no signal comes', async () => {
    const r = await runOpm(['migrate', 'catalog', 'out'], { cwd: root, env: { OPM_THREADS: '1' } });
    expect(r.code).toBe(0);
    expect(entries(path.join(root, 'out'))).toHaveLength(40);
    rmSync(path.join(root, 'out'), { recursive: true });
  });
});
