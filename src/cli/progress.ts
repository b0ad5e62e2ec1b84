/**
 * Progress of long work on stderr, from the core's progress events (`util/progress.ts`). On a
 * terminal, a live display (drawn by `progress-terminal.ts`, loaded only when there is something to
 * show); off one (CI logs), a line when a piece of work starts and one when it ends; nothing with
 * `--quiet`. Work that ends within a second is not mentioned, so short commands stay silent.
 */
import type { Command } from 'commander';
import type { ProgressSink } from '../util/progress.js';
import { escapeLine } from './escape.js';
import type { CliIO } from './io.js';
import { TerminalStderr } from './terminal-stderr.js';
import { liveDisplay } from './progress-terminal.js';
import {
  ProgressModel,
  humanBytes,
  humanSeconds,
  type ImageState,
  type LiveDisplay,
  type PhaseState,
} from './progress-model.js';

/** Work shorter than this is not mentioned. */
export const SHOW_AFTER_MS = 1000;

/** What the command line hands to the core for one command run. */
export interface Progress {
  /** Progress events of the core. */
  onProgress: ProgressSink;
  /** The registry client's informational lines (tried mirrors, retries); absent with `--quiet`. */
  log: ((line: string) => void) | undefined;
  /** The work is over: the display is cleared, the timers stopped. */
  end(): void;
}

/** Run `fn` with the progress sink of a command run that pulls nothing; the display is cleared after. */
export async function withProgress<T>(
  cmd: Command,
  io: CliIO,
  fn: (onProgress: ProgressSink) => Promise<T>,
): Promise<T> {
  const progress = startProgress(cmd, io);
  try {
    return await fn(progress.onProgress);
  } finally {
    progress.end();
  }
}

/** Whether `--quiet` was given. */
export function quietFlag(cmd: Command): boolean {
  return cmd.optsWithGlobals<{ quiet?: boolean }>().quiet === true;
}

/** The progress of one command run, shown as `io` allows. */
export function startProgress(cmd: Command, io: CliIO): Progress {
  if (io.progress === false || quietFlag(cmd))
    return { onProgress: () => undefined, log: undefined, end: () => undefined };
  const log = (line: string): void => void io.stderr.write(`${escapeLine(line)}\n`);
  // A terminal that cannot move its cursor (TERM=dumb) gets the lines.
  if (io.stderrIsTTY && io.stderr instanceof TerminalStderr && io.env.TERM !== 'dumb')
    return terminalProgress(io.stderr, log);
  // Off a terminal the registry's informational lines stay out of the log, as before.
  return { ...lineProgress((line) => log(line)), log: io.stderrIsTTY ? log : undefined };
}

/**
 * Off a terminal: a line when an image or phase has been under way for a second, and one when it
 * ends (only for those that were said to start, so nothing is said of short work).
 */
export function lineProgress(
  write: (line: string) => void,
  now: () => number = Date.now,
): { onProgress: ProgressSink; end(): void } {
  const model = new ProgressModel();
  const said = new Set<number>();
  const timers = new Map<number, NodeJS.Timeout>();
  const startLine = (item: ImageState | PhaseState): string =>
    'ref' in item ? `pulling image ${model.ofTotal(item.index)} ${item.ref}` : `${item.name}...`;
  const later = (item: ImageState | PhaseState): void => {
    const t = setTimeout(() => {
      timers.delete(item.id);
      said.add(item.id);
      write(startLine(item));
    }, SHOW_AFTER_MS);
    t.unref();
    timers.set(item.id, t);
  };
  /**
   * Whether an end is worth a line: its start was said, or it succeeded after a second (work that
   * held the thread could not say its start in time). A failure said nothing of is left to its
   * error line.
   */
  const ended = (id: number, ms: number, ok: boolean): boolean => {
    clearTimeout(timers.get(id));
    timers.delete(id);
    return said.delete(id) || (ok && ms >= SHOW_AFTER_MS);
  };
  return {
    onProgress(e) {
      const item = model.apply(e, now());
      if (item === undefined) return;
      if (e.type === 'image-start' || e.type === 'phase-start') later(item);
      else if ('ref' in item) {
        const which = `image ${model.ofTotal(item.index)} ${item.ref}`;
        if (e.type === 'image-done' && ended(e.id, e.ms, true)) {
          const from = e.fetched === 0 ? ', from the cache' : '';
          write(`pulled ${which}: ${humanBytes(e.bytes)}${from} in ${humanSeconds(e.ms)}`);
        } else if (e.type === 'image-failed' && ended(e.id, e.ms, false))
          write(`${which} failed after ${humanSeconds(e.ms)}`);
      } else if (e.type === 'phase-end' && ended(e.id, e.ms, e.ok))
        write(`${item.name}: ${e.ok ? 'done in' : 'failed after'} ${humanSeconds(e.ms)}`);
    },
    end() {
      for (const t of timers.values()) clearTimeout(t);
      timers.clear();
    },
  };
}

/**
 * On a terminal: once work has been under way for half a second, the live display is drawn under
 * the lines written meanwhile; it is cleared at the end. It is drawn at the first event past that
 * moment (work that holds the thread still shows what it is doing), or by a timer when no event
 * comes.
 */
function terminalProgress(stderr: TerminalStderr, log: (line: string) => void): Progress {
  const model = new ProgressModel();
  const delay = SHOW_AFTER_MS / 2;
  let display: LiveDisplay | undefined;
  let over = false;
  let timer: NodeJS.Timeout | undefined;
  const show = (): void => {
    if (over || display !== undefined || (model.images.size === 0 && model.phases.size === 0)) return;
    clearTimeout(timer);
    timer = undefined;
    display = liveDisplay(stderr, model);
  };
  return {
    onProgress(e) {
      model.apply(e);
      if (display !== undefined) display.changed();
      else if (Date.now() - model.firstAt >= delay) show();
      else if (timer === undefined) {
        timer = setTimeout(() => {
          timer = undefined;
          show();
        }, delay);
        timer.unref();
      }
    },
    log,
    end() {
      over = true;
      clearTimeout(timer);
      display?.stop();
      display = undefined;
    },
  };
}
