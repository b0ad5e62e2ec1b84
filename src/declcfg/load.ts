/**
 * Loading a File-Based Catalog directory (opm's LoadFS, `alpha/declcfg/load.go`): walk, honour
 * `.indexignore`, parse every other file whatever its name, decode blobs by schema. Unlike opm, the
 * result is deterministic (blobs in walk order) and every problem is reported as a finding with its
 * file and line instead of the first error aborting the load.
 */
import { stat } from 'node:fs/promises';
import { OpmError } from '../errors.js';
import { expectOptions, expectString } from '../util/args.js';
import { sortFindings, type Finding } from '../findings.js';
import { loadFile, type LoadOptions, type LoadResult } from './load-file.js';
import { IN_THREAD_BYTES, LOAD_WORKER, loadFilesInWorkers, threadCount } from './load-pool.js';
import { canStartWorker } from '../util/worker-pool.js';
import { walkCatalogDirSync, type WalkedFile, type WalkResult } from './load-walk.js';
import { defersPayloads, FilePayloads } from './payloads.js';
import { maxBlobBytes } from './load-large.js';
import { mergeConfigs, type DeclarativeConfig } from './types.js';
import { Checkpoint, throwIfAborted } from '../util/abort.js';

export type { LoadOptions, LoadResult, LocatedObject } from './load-file.js';

/**
 * The root of a load is missing, unreadable or not a directory. `statError` is the error of stat,
 * undefined when the root is there but not a directory. A type of its own so that `validate` can
 * say it in opm's words without a second stat.
 */
export class CatalogDirError extends OpmError {
  readonly statError: unknown;
  constructor(message: string, statError: unknown) {
    super(message, statError === undefined ? {} : { cause: statError });
    this.name = 'CatalogDirError';
    this.statError = statError;
  }
}

async function requireDir(dir: string): Promise<void> {
  let st;
  try {
    st = await stat(dir);
  } catch (err) {
    throw new CatalogDirError(`catalog directory "${dir}" does not exist or cannot be read`, err);
  }
  if (!st.isDirectory()) {
    throw new CatalogDirError(
      `"${dir}" is not a directory; a catalog is a directory of FBC files`,
      undefined,
    );
  }
}

/**
 * List the files of a catalog directory to load, in walk order (`.indexignore` honoured), with the
 * problems met on the way. Throws CatalogDirError when the root is missing or not a directory, and
 * the reason of `signal` when it fires. The root is checked asynchronously; the walk itself is
 * synchronous (walkCatalogDirSync says why).
 */
export async function walkCatalog(dir: string, signal?: AbortSignal): Promise<WalkResult> {
  await requireDir(dir);
  return walkCatalogDirSync(dir, signal);
}

/**
 * Load every file, on worker threads when there are several threads and enough bytes to pay for
 * them (load-pool.ts), else in this thread. Results are in walk order.
 */
async function loadFiles(files: readonly WalkedFile[], opts: LoadOptions): Promise<LoadResult[]> {
  let bytes = 0;
  for (const f of files) bytes += f.size;
  const threads = threadCount(opts.threads, opts.env, bytes);
  if (
    threads > 1 &&
    files.length > 1 &&
    bytes >= (opts.workerMinBytes ?? IN_THREAD_BYTES) &&
    canStartWorker(LOAD_WORKER)
  )
    return loadFilesInWorkers(files, opts, threads);
  const out: LoadResult[] = [];
  const checkpoint = new Checkpoint(opts.signal);
  for (const f of files) {
    await checkpoint.pass();
    out.push(await loadFile(f, opts));
  }
  return out;
}

/**
 * Load a catalog directory. Never throws for bad content: parse, decode and file problems are
 * findings (sorted); only a missing root or a root that is not a directory throws (CatalogDirError).
 * The directory is walked once (`walked`, when given, is that walk already made); with
 * `deferPayloads` the walk's sizes decide whether payloads stay on disk (payloads.ts). When
 * `signal` fires, the load stops between two files and rejects with the signal's reason.
 */
export async function loadCatalogDir(
  dir: string,
  opts: LoadOptions & { walked?: WalkResult } = {},
): Promise<LoadResult> {
  expectString(dir, 'loadCatalogDir(dir)', 'the catalog directory');
  expectOptions(opts, 'loadCatalogDir(dir, options)');
  const { walked: given, ...loadOpts } = opts;
  throwIfAborted(loadOpts.signal);
  const walked = given ?? (await walkCatalog(dir, loadOpts.signal));
  const findings: Finding[] = walked.problems.map((p) => ({ ...p, severity: 'error' }));
  const defer = defersPayloads(
    walked.files,
    loadOpts.deferPayloads,
    loadOpts.maxBlobBytes ?? maxBlobBytes(loadOpts.env),
  );
  const perFile = await loadFiles(walked.files, defer ? { ...loadOpts, elidePayloads: true } : loadOpts);
  const cfg = mergeConfigs(perFile.map((r) => r.cfg));
  for (const r of perFile) findings.push(...r.findings);
  if (defer) {
    const payloads = FilePayloads.track(dir, cfg.bundles);
    if (payloads !== undefined) cfg.payloads = payloads;
  }
  return { cfg, findings: sortFindings(findings) };
}

function toError(f: Finding, context?: string): OpmError {
  const message = context === undefined ? f.message : `${context}: ${f.message}`;
  return new OpmError(message, {
    ...(f.file === undefined
      ? {}
      : { at: { file: f.file, ...(f.line === undefined ? {} : { line: f.line }) } }),
  });
}

/**
 * Loads a catalog directory as loadCatalogDir does (its findings as data, a missing root thrown);
 * what use cases take to have a catalog read some other way.
 */
export type CatalogDirLoader = (dir: string) => Promise<LoadResult>;

/**
 * The catalog of a load, for commands that need a clean catalog (render, migrate): the first error
 * finding (in sorted order) is thrown as an OpmError positioned at its file and line; warnings go to
 * `onWarning`.
 */
export function cleanCatalog(
  { cfg, findings }: LoadResult,
  onWarning?: (f: Finding) => void,
): DeclarativeConfig {
  const error = findings.find((f) => f.severity === 'error');
  if (error) throw toError(error);
  if (onWarning !== undefined) for (const f of findings) onWarning(f);
  return cfg;
}

/** loadCatalogDir, then {@link cleanCatalog}. */
export async function loadCatalogDirOrThrow(
  dir: string,
  opts: LoadOptions & { walked?: WalkResult; onWarning?(f: Finding): void } = {},
): Promise<DeclarativeConfig> {
  return cleanCatalog(await loadCatalogDir(dir, opts), opts.onWarning);
}
