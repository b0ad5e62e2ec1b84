/**
 * The live progress display on a terminal, drawn by cli-progress: a line for the images (how many of
 * how many are done, time since the work began), a bar per image being pulled (bytes and rate), a
 * spinner line per long phase. Lines the command writes meanwhile are printed above it; it is
 * cleared when the work ends. cli-progress is loaded when a display is first shown, so short
 * commands never load it; it is loaded at once (require), because the display is often wanted just
 * before work that holds the thread (drawing a graph), which an import's promise would wait behind.
 */
import { createRequire } from 'node:module';
import type CliProgress from 'cli-progress';
import { humanBytes, rate, type LiveDisplay, type ProgressModel } from './progress-model.js';
import type { TerminalStderr } from './terminal-stderr.js';
import { escapeLine } from './escape.js';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const BAR_WIDTH = 20;

type Line = { kind: 'images' } | { kind: 'image'; id: number } | { kind: 'phase'; id: number };

function clock(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** Cut `text` to `width` columns, keeping its end (a reference's tag says most). */
function fit(text: string, width: number): string {
  return text.length <= width ? text : `…${text.slice(text.length - width + 1)}`;
}

let library: typeof CliProgress | undefined;

function cliProgress(): typeof CliProgress {
  library ??= createRequire(import.meta.url)('cli-progress') as typeof CliProgress;
  return library;
}

export function liveDisplay(stderr: TerminalStderr, model: ProgressModel): LiveDisplay {
  let bars: CliProgress.MultiBar | undefined;
  let shown = '';
  let stopped = false;
  const restoreCursor = (): void => void stderr.terminal.write('\x1B[?25h');

  const text = (line: Line): string => {
    const now = Date.now();
    const width = Math.max(40, stderr.columns || 80) - 1;
    switch (line.kind) {
      case 'images': {
        const total = Math.max(model.planned ?? 0, model.began);
        const running = model.images.size;
        const of = model.planned === undefined ? `${model.finished}` : `${model.finished} of ${total}`;
        return fit(`pulling images: ${of} done, ${running} under way · ${clock(now - model.firstAt)}`, width);
      }
      case 'image': {
        const img = model.images.get(line.id);
        if (img === undefined) return '';
        const share = img.total > 0 ? img.done / img.total : 0;
        const filled = Math.round(share * BAR_WIDTH);
        const bar = `${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}`;
        const bytes = img.total > 0 ? `${humanBytes(img.done)} / ${humanBytes(img.total)}` : 'resolving';
        const speed = `${humanBytes(Math.round(rate(img)))}/s`;
        const tail = ` ${bar} ${bytes} ${speed}`;
        const head = `  [${model.ofTotal(img.index)}] `;
        return `${head}${fit(escapeLine(img.ref), Math.max(10, width - head.length - tail.length))}${tail}`;
      }
      case 'phase': {
        const p = model.phases.get(line.id);
        if (p === undefined) return '';
        const frame = SPINNER[Math.floor(now / 100) % SPINNER.length] ?? '';
        return fit(`${frame} ${escapeLine(p.name)} · ${clock(now - p.startedAt)}`, width);
      }
    }
  };

  const wanted = (): Line[] => {
    const lines: Line[] = [];
    const imagesLeft = model.planned !== undefined && model.finished < model.planned;
    if (model.images.size > 0 || imagesLeft) lines.push({ kind: 'images' });
    for (const id of model.images.keys()) lines.push({ kind: 'image', id });
    for (const id of model.phases.keys()) lines.push({ kind: 'phase', id });
    return lines;
  };

  const close = (): void => {
    if (bars === undefined) return;
    // Lines handed to the display are printed before it goes.
    bars.update();
    bars.stop();
    bars = undefined;
    stderr.overlay = undefined;
    process.removeListener('exit', restoreCursor);
  };

  /** Draw the lines wanted now: a new set of lines is a new display (they are few, and change rarely). */
  const draw = (): void => {
    const lines = wanted();
    const key = JSON.stringify(lines);
    if (key === shown) return;
    shown = key;
    close();
    if (lines.length === 0) return;
    const created = new (cliProgress().MultiBar)({
      stream: stderr.terminal,
      format: (_options, _params, payload: Line) => text(payload),
      fps: 8,
      clearOnComplete: true,
      hideCursor: true,
      // Lines are cut to the terminal's width here; the terminal's wrapping is left alone.
      linewrap: true,
      // Stopping on a signal is the command line's (main.ts); only the cursor is given back then.
      gracefulExit: false,
    });
    process.once('exit', restoreCursor);
    for (const line of lines) created.create(1, 0, line);
    bars = created;
    stderr.overlay = { print: (t) => created.log(t) };
    // Drawn now: the work that follows may hold the thread before the display's clock ticks.
    created.update();
  };

  draw();
  return {
    changed() {
      if (!stopped) draw();
    },
    stop() {
      stopped = true;
      close();
    },
  };
}
