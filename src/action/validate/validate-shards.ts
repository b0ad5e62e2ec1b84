/**
 * Validation on several threads. A catalog keeps each package in its own directory as a rule, and
 * every check of `validate` but one kind looks at one package at a time. So the catalog's files are
 * grouped by top-level entry, each thread (this one and workers running validate-worker.ts)
 * claims groups from a shared counter, largest first, until none is left (a worker that starts late
 * simply takes fewer), and each thread's share, its shard, is loaded and checked in full by that
 * thread: nothing crosses threads but file names going out and findings coming back, which is what
 * lets validation scale with cores (sending loaded blobs back to one thread cost more than parsing
 * them in parallel saved).
 *
 * The one kind that looks further is the dependency rules: a requirement may be met by a bundle of
 * any package. They run in a second round, once every shard has sent the bundles it provides
 * (plain data, a few hundred kilobytes), against all of them in the whole catalog's order.
 *
 * The shards' findings are the whole catalog's only when no check saw past its shard. Whenever that
 * is not certain, `mergeShards` says so after the first round and the catalog is validated again
 * in one piece:
 * - a package whose blobs are in two shards (the checks of one package need all of them);
 * - any error (a channel or bundle of a package in another shard is an "unknown package" error;
 *   errors also decide opm's message, which is the first in opm's order over the whole catalog).
 * A valid catalog, the case of every CI run that passes, is therefore checked once, in parallel.
 */
import type { Finding } from '../../findings.js';
import { loadFile } from '../../declcfg/load-file.js';
import type { WalkedFile } from '../../declcfg/load-walk.js';
import { mergeConfigs, type DeclarativeConfig } from '../../declcfg/types.js';
import { compareUtf8 } from '../../go/utf8.js';
import { claim, type FailureReply } from '../../util/claim.js';
import { WorkerPool, workerModule, type PoolWorker, type WorkerModule } from '../../util/worker-pool.js';
import { lintFindings, providersOf, type Provider } from '../../lint/index.js';
import { checkCatalog, validateLoadOptions, type CheckOptions } from './validate-checks.js';
import { abortedOr, Checkpoint, throwIfAborted } from '../../util/abort.js';

/**
 * Catalogs with fewer bytes are validated in one thread: a worker's start and warm-up cost more than
 * a second thread saves below this size, and parsing YAML in two threads of one process gains far
 * less than in two processes (`npm run bench`, and OPM_THREADS 1 against 2; docs/performance.md).
 */
export const SHARD_MIN_BYTES = 32 * 1024 * 1024;

/** The validating worker (validate-worker.ts; bundled as dist/validate-worker.cjs). */
export const VALIDATE_WORKER = workerModule(new URL('./validate-worker.js', import.meta.url));

export interface ShardWork {
  /** The groups of files to claim from, largest first; each group's files in walk order. */
  groups: FileGroup[];
  /** One Int32: the next group to claim (Atomics.add), shared by every thread. */
  next: SharedArrayBuffer;
  checks: CheckOptions;
}

/** The files under one top-level entry of the catalog. */
export interface FileGroup {
  files: WalkedFile[];
  /** The walk position of its first file: shards put their groups back in walk order. */
  first: number;
}

export interface ShardResult {
  /** Problems reading and parsing the shard's files (file order). */
  loadFindings: Finding[];
  /** Findings of the checks but the dependency rules (check order), severities not applied. */
  findings: Finding[];
  /** opm's message, when its model conversion of the shard fails. */
  opmMessage?: string;
  /** Every package name the shard's blobs belong to. */
  packages: string[];
  /** The shard's bundles, for the dependency rules of every shard. */
  providers: Provider[];
}

/** Messages from a worker: the first round's result, then the dependency findings. */
export type ShardReply =
  { ok: true; result: ShardResult } | { ok: true; dependencies: Finding[] } | FailureReply;

/** The second round's message to a worker: every bundle of the catalog, or null to stop. */
export interface ShardProviders {
  providers: Provider[] | null;
}

function packageNames(cfg: DeclarativeConfig): string[] {
  const names = new Set<string>();
  for (const p of cfg.packages) names.add(p.name);
  for (const c of cfg.channels) names.add(c.package);
  for (const b of cfg.bundles) names.add(b.package);
  for (const d of cfg.deprecations) names.add(d.package);
  for (const o of cfg.others) if (o.package !== '') names.add(o.package);
  return [...names];
}

/** A shard loaded and checked, waiting for the catalog's bundles to run its dependency rules. */
export interface CheckedShard {
  result: ShardResult;
  dependencies(providers: readonly Provider[]): Finding[];
}

/**
 * Claim groups until none is left, then check what was claimed as validate checks a whole catalog,
 * the dependency rules excepted. `signal` (this thread's share only: a worker is terminated instead)
 * is checked between files.
 */
export async function checkShard(work: ShardWork, signal?: AbortSignal): Promise<CheckedShard> {
  const next = new Int32Array(work.next);
  const checkpoint = new Checkpoint(signal);
  const loaded: { first: number; configs: DeclarativeConfig[] }[] = [];
  const loadFindings: Finding[] = [];
  for (let i = claim(next, work.groups.length); i !== -1; i = claim(next, work.groups.length)) {
    const group = work.groups[i];
    if (group === undefined) break;
    const configs: DeclarativeConfig[] = [];
    for (const f of group.files) {
      await checkpoint.pass();
      const r = await loadFile(f, validateLoadOptions(work.checks.severities));
      configs.push(r.cfg);
      loadFindings.push(...r.findings);
    }
    loaded.push({ first: group.first, configs });
  }
  throwIfAborted(signal);
  loaded.sort((a, b) => a.first - b.first);
  const configs = loaded.flatMap((l) => l.configs);
  const cfg = mergeConfigs(configs);
  const loadFailed = loadFindings.some((f) => f.severity === 'error');
  const checks = checkCatalog(cfg, loadFailed, [], work.checks, true);
  const deferred = checks.deferred;
  const result: ShardResult = {
    loadFindings,
    findings: checks.findings,
    packages: packageNames(cfg),
    providers: deferred === undefined ? [] : providersOf(deferred.model),
  };
  if (checks.opmMessage !== undefined) result.opmMessage = checks.opmMessage;
  return {
    result,
    dependencies: (providers) =>
      deferred === undefined ? [] : lintFindings({ ...deferred, providers }, work.checks.severities, true),
  };
}

/** The top-level entry a file is under (the file itself at the top). */
function topLevel(rel: string): string {
  const slash = rel.indexOf('/');
  return slash === -1 ? rel : rel.slice(0, slash);
}

/** `files` grouped by top-level entry, largest group first (then in walk order). */
export function groupFiles(files: readonly WalkedFile[]): FileGroup[] {
  const groups = new Map<string, FileGroup & { bytes: number }>();
  files.forEach((f, i) => {
    const key = topLevel(f.rel);
    const g = groups.get(key) ?? { files: [], bytes: 0, first: i };
    g.files.push(f);
    g.bytes += f.size;
    groups.set(key, g);
  });
  return [...groups.values()]
    .sort((a, b) => b.bytes - a.bytes || a.first - b.first)
    .map(({ files: fs, first }) => ({ files: fs, first }));
}

/** A shard checked by a worker, seen from this thread. */
interface WorkerShard {
  checked: Promise<ShardResult>;
  /** Send the catalog's bundles (null: stop) and receive the dependency findings. */
  dependencies(providers: Provider[] | null): Promise<Finding[]>;
}

function runWorker(pool: WorkerPool, m: WorkerModule, work: ShardWork): WorkerShard {
  const started = pool.start<ShardReply>(m, work);
  // After its last answer a worker ends; ending before it is a failure.
  const next = async (w: PoolWorker<ShardReply>): Promise<ShardReply> => {
    const r = await w.next();
    if (r === undefined) throw new Error('a validating worker stopped early');
    return r;
  };
  const checked = started.then(next).then((r) => {
    if (!('result' in r)) throw new Error('a validating worker answered out of turn');
    return r.result;
  });
  return {
    checked,
    dependencies: async (providers) => {
      const w = await started;
      w.post({ providers } satisfies ShardProviders);
      if (providers === null) return [];
      const r = await next(w);
      if (!('dependencies' in r)) throw new Error('a validating worker answered out of turn');
      return r.dependencies;
    },
  };
}

/** The whole catalog's bundles from its shards', in the order of the whole catalog's model. */
export function allProviders(results: readonly ShardResult[]): Provider[] {
  // The model lists bundles package by package, packages by name (lint/context.ts uniqueBundles);
  // a package is in one shard only, so a stable sort by package restores that order.
  return results.flatMap((r) => r.providers).sort((a, b) => compareUtf8(a.package, b.package));
}

/**
 * Validate the catalog's `groups` on this thread and `threads - 1` workers of `m`.
 * The whole catalog's findings (in no particular order, severities not applied), or undefined when
 * the catalog must be validated in one piece (see the top of this file). Rejects when a worker
 * fails (a bug: catalog problems are findings, never thrown), and with the reason of `signal` when
 * it fires, once the workers are terminated.
 */
export async function validateShards(
  groups: FileGroup[],
  threads: number,
  checks: CheckOptions,
  signal?: AbortSignal,
  m: WorkerModule = VALIDATE_WORKER,
): Promise<{ loadFindings: Finding[]; findings: Finding[] } | undefined> {
  throwIfAborted(signal);
  const work: ShardWork = { groups, next: new SharedArrayBuffer(4), checks };
  const count = Math.min(threads, groups.length) - 1;
  const pool = new WorkerPool(Math.max(1, count));
  const workers = Array.from({ length: Math.max(0, count) }, () => runWorker(pool, m, work));
  // Handled before this thread's share is awaited, so that a failing worker is never left unheard.
  for (const w of workers) w.checked.catch(() => undefined);
  // A terminated worker fails what is waited for from it, which ends the work below.
  const onAbort = (): void => void pool.terminate(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const mine = await checkShard(work, signal);
    const results = [mine.result, ...(await Promise.all(workers.map((w) => w.checked)))];
    const merged = mergeShards(results);
    const providers = merged === undefined ? null : allProviders(results);
    const theirs = Promise.all(workers.map((w) => w.dependencies(providers)));
    // This thread's dependency rules run while the workers run theirs.
    const own = providers === null ? [] : mine.dependencies(providers);
    const other = await theirs;
    throwIfAborted(signal);
    if (merged === undefined) return undefined;
    merged.findings.push(...own, ...other.flat());
    return merged;
  } catch (err) {
    // A bug or an abort: the workers still waiting for their second round would keep the process alive.
    await pool.terminate(abortedOr(signal, err));
    throw abortedOr(signal, err);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * The findings of the whole catalog from its shards' first round, or undefined when they may differ
 * from it and the catalog must be validated in one piece (see the top of this file).
 */
export function mergeShards(
  results: readonly ShardResult[],
): { loadFindings: Finding[]; findings: Finding[] } | undefined {
  const owner = new Set<string>();
  for (const r of results) {
    if (r.opmMessage !== undefined) return undefined;
    // A shard's names are unique (packageNames), so a name seen before is another shard's.
    for (const name of r.packages) {
      if (owner.has(name)) return undefined;
      owner.add(name);
    }
  }
  const loadFindings = results.flatMap((r) => r.loadFindings);
  const findings = results.flatMap((r) => r.findings);
  if (loadFindings.some((f) => f.severity === 'error')) return undefined;
  if (findings.some((f) => f.severity === 'error')) return undefined;
  return { loadFindings, findings };
}
