/**
 * Trying the sources of a pull in order (registries.conf mirrors, then the source itself), and
 * remembering within a run which mirrors cannot be reached, so that thousands of dead mirrors cost
 * one dial each per run rather than one per image, and at most a budget of time in all.
 */
import { OpmError } from '../../errors.js';
import { isUnreachableHost } from '../http/network-errors.js';
import { formatReference } from '../reference.js';
import type { Source } from '../registries-conf/plan.js';

/** Time spent on mirrors that turned out unreachable after which mirrors are no longer tried. */
const DEFAULT_MIRROR_BUDGET_MS = 30_000;

/** The mirror budget from the environment (seconds, 0 or more), else the default. */
export function mirrorBudgetMs(env: NodeJS.ProcessEnv): number {
  const raw = env.OPM_REGISTRY_MIRROR_BUDGET ?? '';
  const seconds = Number(raw);
  return raw.trim() !== '' && Number.isFinite(seconds) && seconds >= 0
    ? seconds * 1000
    : DEFAULT_MIRROR_BUDGET_MS;
}

/** Mirror hosts that could not be reached in this run, and the time they cost. */
export class MirrorHealth {
  private readonly dead = new Map<string, string>();
  private spentMs = 0;
  private exhausted = false;
  private readonly budgetMs: number;
  private readonly warn: (line: string) => void;

  /** `warn` says, once, that mirrors are no longer tried. */
  constructor(budgetMs: number, warn: (line: string) => void) {
    this.budgetMs = budgetMs;
    this.warn = warn;
  }

  /** Why a mirror is not tried (again) in this run, or undefined when it is worth trying. */
  skipReason(source: Source): string | undefined {
    if (!source.mirror) return undefined;
    const known = this.dead.get(source.ref.apiHost);
    if (known !== undefined) return `unreachable earlier in this run (${known})`;
    return this.exhausted ? 'mirrors that could not be reached used up their time' : undefined;
  }

  /** A mirror failed after `ms`: remember its host when it could not be reached at all. */
  failed(source: Source, err: unknown, ms: number): void {
    // A host already known dead failed another pull that was trying it at the same time.
    if (!source.mirror || !isUnreachableHost(err) || this.dead.has(source.ref.apiHost)) return;
    const msg = err instanceof Error ? err.message : String(err);
    this.dead.set(source.ref.apiHost, /\(([^)]*)\)\s*$/.exec(msg)?.[1] ?? 'unreachable');
    this.spentMs += ms;
    if (!this.exhausted && this.spentMs >= this.budgetMs) {
      this.exhausted = true;
      this.warn(
        `warning: mirrors that could not be reached took ${Math.round(this.spentMs / 1000)} s: other mirrors are not tried in this run (OPM_REGISTRY_MIRROR_BUDGET)`,
      );
    }
  }
}

export function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
}

/**
 * Try `fetch` on each source in order and return the first success. A source that fails passes the
 * pull on to the next; a stopped pull (its signal) ends at once. A lone source's error is its own.
 */
export async function firstSource<T>(
  sources: Source[],
  health: MirrorHealth,
  log: (line: string) => void,
  signal: AbortSignal | undefined,
  fetch: (source: Source) => Promise<T>,
): Promise<T> {
  const failures: Array<{ source: Source; err: unknown }> = [];
  let skipped = 0;
  // Mirrors passed over are said in one line, before the next source tried (or the failure).
  let unsaid = 0;
  let skipNote = '';
  const sayUnsaid = (): void => {
    if (unsaid > 0) log(`${unsaid} mirror(s) not tried: ${skipNote}`);
    unsaid = 0;
  };
  for (const source of sources) {
    const skip = health.skipReason(source);
    if (skip !== undefined) {
      skipped++;
      unsaid++;
      skipNote = skip;
      continue;
    }
    sayUnsaid();
    const started = Date.now();
    try {
      return await fetch(source);
    } catch (err) {
      if (signal?.aborted === true) throw signal.reason;
      if (sources.length === 1) throw err;
      health.failed(source, err, Date.now() - started);
      failures.push({ source, err });
      log(`${formatReference(source.ref)}: ${firstLine(err)}`);
    }
  }
  sayUnsaid();
  throw new SourcesFailed(failures, skipped);
}

/** Every source of a pull failed: one line naming each source tried and why it failed. */
export class SourcesFailed extends Error {
  readonly failures: Array<{ source: Source; err: unknown }>;
  readonly skipped: number;
  constructor(failures: Array<{ source: Source; err: unknown }>, skipped: number) {
    super('every source failed');
    this.failures = failures;
    this.skipped = skipped;
  }

  forImage(refText: string): OpmError {
    const parts = this.failures.map(({ source, err }) => {
      const host = `${source.ref.apiHost}: `;
      let msg = firstLine(err);
      if (msg.startsWith(host)) msg = msg.slice(host.length);
      return `${formatReference(source.ref)}${source.mirror ? ' (mirror)' : ''}: ${msg}`;
    });
    if (this.skipped > 0) parts.push(`${this.skipped} more mirror(s) not tried (unreachable in this run)`);
    const last: unknown = this.failures.at(-1)?.err;
    return new OpmError(
      `failed to pull image "${refText}": all ${this.failures.length + this.skipped} sources failed: ${parts.join('; ')}`,
      {
        code: last instanceof OpmError ? last.code : 'E_REGISTRY',
        hint: 'the sources come from registries.conf mirrors and locations; check each one listed',
        cause: last,
      },
    );
  }
}
