/**
 * Progress of long work on stderr, from the core's progress events (`util/progress.ts`). On a
 * terminal, a live display (drawn by `progress-terminal.ts`, loaded only when there is something to
 * show); off one (CI logs), a line when a piece of work starts and one when it ends; nothing with
 * `--quiet`. Work that ends within a second is not mentioned, so short commands stay silent.
 */
import type { Command } from 'commander';
import type { ProgressEvent, ProgressSink } from '../util/progress.js';
import { escapeLine } from './escape.js';
import type { CliIO } from './io.js';
import { TerminalStderr } from './terminal-stderr.js';

/** Work shorter than this is not mentioned. */
export const SHOW_AFTER_MS = 1000;

export interface ImageState {
  id: number;
  ref: string;
  /** 1-based, in the order pulls began. */
  index: number;
  startedAt: number;
  done: number;
  total: number;
  /** Recent (time, bytes) readings, for the rate. */
  samples: Array<[number, number]>;
}

export interface PhaseState {
  id: number;
  name: string;
  startedAt: number;
}

/** What is under way, kept from the events; both displays read it. */
export class ProgressModel {
  /** Images the work said it will pull, if it said. */
  planned: number | undefined;
  began = 0;
  finished = 0;
  readonly firstAt = Date.now();
  readonly images = new Map<number, ImageState>();
  readonly phases = new Map<number, PhaseState>();

  /** Fold an event in; returns the image or phase it concerns. */
  apply(e: ProgressEvent, now = Date.now()): ImageState | PhaseState | undefined {
    switch (e.type) {
      case 'images':
        this.planned = e.total;
        return undefined;
      case 'image-start': {
        const img: ImageState = {
          id: e.id,
          ref: e.ref,
          index: ++this.began,
          startedAt: now,
          done: 0,
          total: 0,
          samples: [[now, 0]],
        };
        this.images.set(e.id, img);
        return img;
      }
      case 'image-bytes': {
        const img = this.images.get(e.id);
        if (img === undefined) return undefined;
        img.done = e.done;
        img.total = e.total;
        img.samples.push([now, e.done]);
        // A few seconds of readings are enough for a rate that moves but does not jump.
        while (img.samples.length > 2 && now - (img.samples[0]?.[0] ?? now) > 3000) img.samples.shift();
        return img;
      }
      case 'image-done':
      case 'image-failed': {
        const img = this.images.get(e.id);
        this.images.delete(e.id);
        this.finished++;
        return img;
      }
      case 'phase-start': {
        const p: PhaseState = { id: e.id, name: e.name, startedAt: now };
        this.phases.set(e.id, p);
        return p;
      }
      case 'phase-end': {
        const p = this.phases.get(e.id);
        this.phases.delete(e.id);
        return p;
      }
    }
  }

  /** `3/4`, or `3` when the count of images is not known. */
  ofTotal(index: number): string {
    const total = Math.max(this.planned ?? 0, this.began);
    return this.planned === undefined ? String(index) : `${index}/${total}`;
  }
}

/** Bytes per second over the recent readings of an image. */
export function rate(img: ImageState): number {
  const first = img.samples[0];
  const last = img.samples.at(-1);
  if (first === undefined || last === undefined || last[0] <= first[0]) return 0;
  return ((last[1] - first[1]) * 1000) / (last[0] - first[0]);
}

export function humanBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GiB`;
}

export function humanSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** A live display's part: `progress-terminal.ts` implements it. */
export interface LiveDisplay {
  /** Something changed (the display redraws on its own clock, too). */
  changed(): void;
  /** Clear the display from the terminal. */
  stop(): void;
}

/** What the command line hands to the core for one command run. */
export interface Progress {
  /** Progress events of the core. */
  onProgress: ProgressSink;
  /** The registry client's informational lines (tried mirrors, retries); absent with `--quiet`. */
  log: ((line: string) => void) | undefined;
  /** The work is over: the display is cleared, the timers stopped. */
  end(): void;
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
  if (io.stderrIsTTY && io.stderr instanceof TerminalStderr) return terminalProgress(io.stderr, log);
  return { ...lineProgress((line) => log(line)), log: undefined };
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
 * On a terminal: once something has been under way for a moment, the live display is loaded and
 * drawn under the lines written meanwhile; it is cleared at the end.
 */
function terminalProgress(stderr: TerminalStderr, log: (line: string) => void): Progress {
  const model = new ProgressModel();
  let display: LiveDisplay | undefined;
  let loading = false;
  let over = false;
  let timer: NodeJS.Timeout | undefined;
  const show = (): void => {
    timer = undefined;
    if (over || loading || (model.images.size === 0 && model.phases.size === 0)) return;
    loading = true;
    void import('./progress-terminal.js').then(({ liveDisplay }) => {
      if (over) return;
      display = liveDisplay(stderr, model);
    });
  };
  return {
    onProgress(e) {
      model.apply(e);
      display?.changed();
      if (display === undefined && timer === undefined && !loading) {
        timer = setTimeout(show, SHOW_AFTER_MS / 2);
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
