import { PassThrough } from 'node:stream';
import { runCli } from '../src/cli/main.js';
import type { CliIO } from '../src/cli/io.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** An IO for building the command tree without running it: streams nobody reads, cwd `/`. */
export function quietIO(env: NodeJS.ProcessEnv = {}): CliIO {
  return {
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    stdin: new PassThrough(),
    env,
    cwd: '/',
    stderrIsTTY: false,
  };
}

/** Options of runOpm and runOpmBytes. */
export interface RunOpmOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  stdin?: string;
  configRoot?: string;
  /** Stands for the process's signals (main.ts aborts the running command with ExitCode). */
  signal?: AbortSignal;
  /** Show progress lines on stderr (off by default: they depend on how long the work takes). */
  progress?: boolean;
  /** The command line to run: src/cli/main.ts's by default, or a built bundle's exports. */
  cli?: { runCli: typeof runCli };
}

/** What runOpmBytes captures: stdout as the bytes written, which a decoded string may not tell apart. */
export interface CliBytesResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** Run the CLI in-process, capturing stdout and stderr. */
export async function runOpm(args: string[], options: RunOpmOptions = {}): Promise<CliResult> {
  const r = await runOpmBytes(args, options);
  return { code: r.code, stdout: r.stdout.toString('utf8'), stderr: r.stderr };
}

/** runOpm with stdout kept as bytes. */
export async function runOpmBytes(args: string[], options: RunOpmOptions = {}): Promise<CliBytesResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (b: Buffer) => out.push(b));
  stderr.on('data', (b: Buffer) => err.push(b));
  const stdin = new PassThrough();
  stdin.end(options.stdin ?? '');
  const io: CliIO = {
    stdout,
    stderr,
    stdin,
    env: { NO_COLOR: '1', ...options.env },
    cwd: options.cwd ?? process.cwd(),
    stderrIsTTY: false,
    progress: options.progress === true,
    ...(options.configRoot !== undefined ? { configRoot: options.configRoot } : {}),
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
  };
  const code = await (options.cli ?? { runCli }).runCli(args, io);
  return { code, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') };
}
