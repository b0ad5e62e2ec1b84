// Start-up of the `opm` command (bin/opm.js, through dist/launch.cjs). The command line and the
// libraries it uses are one CommonJS file, dist/opm.cjs (scripts/bundle.js), compiled here through
// node:vm with a V8 code cache so that a run does not parse and compile again what the build's
// warm-up already compiled. Node 20 has no compile cache of its own (module.enableCompileCache came
// with Node 22), and start-up was most of the wall time of a short command such as a cached
// `opm render <image>`.
//
// Each bundle has one code cache, written by the build under the V8 flags bin/opm.js sets for every
// start (<bundle>.cache, its .stamp naming the Node.js that made it). A run under other V8 flags (a
// NODE_OPTIONS heap size, say) compiles as usual the first time and leaves a cache for its own stamp
// in the user's cache folder. A cache V8 rejects only costs speed.
//
// `opm render <bundle dir>... [-o json|yaml]` is tried first from a third bundle holding that render
// alone (dist/opm-render-bundle.cjs, src/cli/render-bundle-fast.ts); it leaves any other outcome than
// a clean render to the command line, having written nothing.
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { errnoCode, errnoText } from '../go/errno.js';
import { defaultCacheDir } from '../util/cache-dir.js';
import { BROKEN_PIPE_STATUS } from './exit-code.js';
import { STDOUT_PATH, writeWholeSync } from './write-fd.js';
import { ownPackageFrom, versionLine } from './version-line.js';
import { plainBundleRender } from './render-bundle-args.js';
import type * as CliMain from './main.js';
import type * as RenderBundleFast from './render-bundle-fast.js';

/** What dist/opm.cjs exports: the entry points of src/cli/main.ts. */
export type CliModule = typeof CliMain;

/** What dist/opm-render-bundle.cjs exports: src/cli/render-bundle-fast.ts. */
export type RenderBundleModule = typeof RenderBundleFast;

export interface CompiledCli {
  cli: CliModule;
  script: vm.Script;
  /** True when `cachedData` was given and V8 accepted it. */
  cacheAccepted: boolean;
}

/** The code cache the build writes beside a bundle. */
export function shippedCacheFile(bundle: string): string {
  return `${bundle}.cache`;
}

/**
 * What a code cache depends on besides the source: V8 accepts a cache only from the same V8
 * version and the same V8 flags (from the command line or NODE_OPTIONS, such as a heap size).
 */
export function runtimeStamp(): string {
  const flags = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ').trim();
  return `${process.version} ${process.arch}${flags === '' ? '' : ` ${flags}`}`;
}

/** The stamp of the Node.js that wrote a shipped cache. */
export function shippedStampFile(bundle: string): string {
  return `${shippedCacheFile(bundle)}.stamp`;
}

function isCliModule(u: unknown): u is CliModule {
  return typeof u === 'object' && u !== null && 'main' in u && typeof u.main === 'function';
}

/**
 * How the build writes the bundle (scripts/bundle.js): a CommonJS module body inside a function
 * expression that takes what Node.js gives a module, compiled here as it is read.
 */
export const CLI_WRAPPER_HEAD = '(function (exports, require, module, __filename, __dirname) {';
export const CLI_WRAPPER_TAIL = '\n})';

/** A bundle compiled and run: its exports, checked by `is`. */
export interface Compiled<T> {
  exports: T;
  script: vm.Script;
  /** True when `cachedData` was given and V8 accepted it. */
  cacheAccepted: boolean;
}

/**
 * Compile and run a bundle's module body (with `cachedData` when given) and return its exports,
 * which `is` checks (`what` names them in the error).
 */
export function compileBundle<T>(
  file: string,
  cachedData: Buffer | undefined,
  is: (u: unknown) => u is T,
  what: string,
): Compiled<T> {
  // The build leaves the bundle ASCII only (scripts/bundle.js), so Latin-1 decodes it exactly.
  const source = readFileSync(file, 'latin1');
  if (!source.startsWith(CLI_WRAPPER_HEAD) || !source.endsWith(CLI_WRAPPER_TAIL))
    throw new Error(`${file}: not a bundle of this version: build opm-ts with \`npm run build\``);
  const script = new vm.Script(source, { filename: file, cachedData });
  const cacheAccepted = cachedData !== undefined && !script.cachedDataRejected;
  const module = { exports: {} as unknown };
  const body: unknown = script.runInThisContext();
  if (typeof body !== 'function') throw new Error(`${file}: not a module body`);
  body.call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  if (!is(module.exports)) throw new Error(`${file}: does not export ${what}`);
  return { exports: module.exports, script, cacheAccepted };
}

/** Compile and run the bundle's module body (with `cachedData` when given) and return its exports. */
export function compileCli(file: string, cachedData?: Buffer): CompiledCli {
  const { exports, script, cacheAccepted } = compileBundle(file, cachedData, isCliModule, 'main');
  return { cli: exports, script, cacheAccepted };
}

function isRenderBundleModule(u: unknown): u is RenderBundleModule {
  return (
    typeof u === 'object' &&
    u !== null &&
    'renderBundleDirsFast' in u &&
    typeof u.renderBundleDirsFast === 'function'
  );
}

/** Compile and run dist/opm-render-bundle.cjs (with `cachedData` when given). */
export function compileRenderBundle(file: string, cachedData?: Buffer): Compiled<RenderBundleModule> {
  return compileBundle(file, cachedData, isRenderBundleModule, 'renderBundleDirsFast');
}

function readOptional(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Write a file whole or not at all (a concurrent run may be writing the same one). */
export function writeAtomically(file: string, data: Buffer): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

/** 32-bit FNV-1a, to name a cache file after a stamp (loading node:crypto would cost more). */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/** The cache a run with this stamp keeps for itself, keyed also by the bundle's size and time. */
function userCacheFile(bundle: string, stamp: string): string {
  const st = statSync(bundle);
  const key = fnv1a(`${stamp}\0${st.size}\0${Math.trunc(st.mtimeMs)}`);
  return path.join(defaultCacheDir(process.env), 'code-cache', `opm-${key}.bin`);
}

function readText(file: string): string | undefined {
  return readOptional(file)?.toString('utf8').trim();
}

/**
 * Write `text` to standard output whole, synchronously (standard output may be a non-blocking pipe
 * shared with a parent). 'gone' when the reader has gone; otherwise the failed write's system error,
 * named after standard output, or undefined once all is written.
 */
export function writeStdoutSync(text: string): 'gone' | Error | undefined {
  const err = writeWholeSync(1, Buffer.from(text), STDOUT_PATH);
  return errnoCode(err) === 'EPIPE' ? 'gone' : err;
}

/**
 * `opm version` and nothing else: the one command that needs none of the command line. Printed by the
 * launcher, it costs a Node.js start and little more (every other form, `opm version --help`
 * included, goes through the command line as usual).
 */
export function isBareVersion(args: readonly string[], env: NodeJS.ProcessEnv = process.env): boolean {
  return args.length === 1 && args[0] === 'version' && env.OPM_DEBUG !== '1';
}

/**
 * The commands the short bundle holds whole (dist/opm-short.cjs, scripts/bundle.js): those that need
 * the least code, and the help and completion of every command.
 */
const SHORT_COMMANDS: ReadonlySet<string> = new Set([
  'init',
  'render',
  'generate',
  'generate-dockerfile',
  'version',
  'completion',
  'help',
  '--help',
  '-h',
]);

/**
 * Whether a command line runs from the short bundle: its first word is one of SHORT_COMMANDS (or
 * there is none). Any other command line, `opm --quiet render …` included, loads the whole bundle.
 */
export function runsShort(args: readonly string[]): boolean {
  const first = args[0];
  return first === undefined || SHORT_COMMANDS.has(first);
}

/** The short bundle the build writes beside the whole one. */
export function shortBundleFile(bundle: string): string {
  return path.join(path.dirname(bundle), 'opm-short.cjs');
}

/** The bundle of the render of bundle directories alone, beside the whole one. */
export function renderBundleFile(bundle: string): string {
  return path.join(path.dirname(bundle), 'opm-render-bundle.cjs');
}

/**
 * `opm render <bundle dir>... [-o json|yaml]` from dist/opm-render-bundle.cjs, without the command
 * line (render-bundle-fast.ts): 'written' when it rendered and wrote the whole output; 'declined'
 * when it declined, or could not write a byte: nothing was written, and the ordinary command line
 * runs from scratch and says whatever there is to say; otherwise the write failed after a part of
 * the output was out (or the reader went away), and the promise settles once that is reported as
 * the command line reports it, with its exit code.
 */
function renderBundleDirs(
  args: readonly string[],
  whole: string,
  stamp: string,
): 'written' | 'declined' | Promise<void> {
  const file = renderBundleFile(whole);
  const cache = readText(shippedStampFile(file)) === stamp ? readOptional(shippedCacheFile(file)) : undefined;
  let out: Uint8Array | undefined;
  try {
    out = compileRenderBundle(file, cache).exports.renderBundleDirsFast(args, process.cwd());
  } catch {
    // A bundle of another build: the command line does the render.
  }
  if (out === undefined) return 'declined';
  const progress = { written: 0 };
  const failed = writeWholeSync(1, out, STDOUT_PATH, progress);
  if (failed === undefined) return 'written';
  if (errnoCode(failed) === 'EPIPE') {
    process.exitCode = BROKEN_PIPE_STATUS;
    return Promise.resolve();
  }
  if (progress.written === 0) return 'declined';
  // Part of the output is out: the command line reports the failure as it would its own.
  const { cli } = compileCli(shortBundleFile(whole));
  return cli.reportOutputFailure(failed).then((code) => {
    process.exitCode = code;
  });
}

/**
 * Load the bundled command line and run it: dist/opm-short.cjs for the command lines that need
 * no more (runsShort) when the build wrote it, dist/opm.cjs (`whole`) otherwise. A plain render of
 * bundle directories is first tried without the command line (renderBundleDirs).
 */
export async function launch(whole: string): Promise<void> {
  if (isBareVersion(process.argv.slice(2))) {
    const line = versionLine(ownPackageFrom(path.dirname(whole)).version);
    const failed = writeStdoutSync(line);
    if (failed === 'gone') process.exitCode = BROKEN_PIPE_STATUS;
    else if (failed !== undefined) {
      // The one line every other command prints for it (main.ts), without loading the command line.
      process.stderr.write(`error: write ${STDOUT_PATH}: ${errnoText(failed)}\n`);
      process.exitCode = 1;
    }
    return;
  }
  const stamp = runtimeStamp();
  const args = process.argv.slice(2);
  const short = shortBundleFile(whole);
  const isShort = runsShort(args);
  // A code cache keeps the file name the bundle had when the cache was made (the build folder), and
  // stack traces would show it: --debug compiles afresh, so its traces name the installed files.
  const debug = args.includes('--debug') || process.env.OPM_DEBUG === '1';
  if (isShort && !debug && plainBundleRender(args) !== undefined) {
    // Written whole, synchronously: the process ends as any other, with exit code 0.
    const rendered = renderBundleDirs(args, whole, stamp);
    if (rendered !== 'declined') return rendered === 'written' ? undefined : rendered;
  }
  const bundle = isShort && existsSync(short) ? short : whole;
  if (bundle === whole && !existsSync(bundle))
    throw new Error(`${bundle} is missing: build opm-ts with \`npm run build\``);
  const shipped = readText(shippedStampFile(bundle)) === stamp;
  let cacheFile: string | undefined;
  try {
    if (!debug) cacheFile = shipped ? shippedCacheFile(bundle) : userCacheFile(bundle, stamp);
  } catch {
    // No home folder to keep a cache in: compile without one.
  }
  const { cli, script, cacheAccepted } = compileCli(
    bundle,
    cacheFile === undefined ? undefined : readOptional(cacheFile),
  );
  if (!cacheAccepted && !shipped && cacheFile !== undefined) {
    const file = cacheFile;
    // Written at exit, when the run has compiled what it used; a later run of this Node.js reads it.
    process.once('exit', () => {
      try {
        writeAtomically(file, script.createCachedData());
      } catch {
        // A read-only or full cache folder only costs speed.
      }
    });
  }
  return cli.main();
}
