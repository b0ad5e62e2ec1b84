// The live display on a stand-in terminal that records what is written to it: what it draws, that a
// line written meanwhile is printed above it rather than through it, and that it is cleared.
import type { WriteStream } from 'node:tty';
import { describe, expect, it } from 'vitest';
import { ProgressModel } from './progress-model.js';
import { liveDisplay } from './progress-terminal.js';
import { TerminalStderr } from './terminal-stderr.js';

function fakeTerminal(columns = 100): { terminal: WriteStream; written: string[] } {
  const written: string[] = [];
  const terminal = {
    isTTY: true,
    columns,
    write(chunk: string | Uint8Array, ...rest: unknown[]): boolean {
      written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      done?.();
      return true;
    },
  };
  return { terminal: terminal as unknown as WriteStream, written };
}

// eslint-disable-next-line no-control-regex -- terminal escapes are what is taken out
const ESCAPES = /\x1b\[[0-9;?]*[A-Za-z]/g;

describe('the live display', () => {
  it('draws the images line and a bar per image, prints lines above it, and clears itself', () => {
    const { terminal, written } = fakeTerminal();
    const stderr = new TerminalStderr(terminal);
    const model = new ProgressModel();
    model.apply({ type: 'images', total: 2 });
    model.apply({ type: 'image-start', id: 1, ref: 'quay.io/example/bar:1.0.0' });
    model.apply({ type: 'image-bytes', id: 1, ref: 'quay.io/example/bar:1.0.0', done: 512, total: 2048 });
    const display = liveDisplay(stderr, model);
    const drawn = written.join('').replace(ESCAPES, '');
    expect(drawn).toMatch(/pulling images: 0 of 2 done, 1 under way · 0:0\d/);
    expect(drawn).toContain('  [1/2] quay.io/example/bar:1.0.0 █████░░░░░░░░░░░░░░░ 512 B / 2.0 KiB ');

    // A warning while the display is up goes through it, not straight to the terminal.
    const before = written.length;
    stderr.write('warning: something to say\n');
    expect(written.slice(before).join('')).not.toContain('warning');

    display.stop();
    const all = written.join('');
    expect(all.replace(ESCAPES, '')).toContain('warning: something to say\n');
    // Cleared from the cursor down, and the cursor shown again, last.
    expect(all.endsWith('\x1b[0J')).toBe(true);
    expect(all.lastIndexOf('\x1b[?25h')).toBeGreaterThan(all.lastIndexOf('[1/2]'));
    // Once it is gone, lines go straight to the terminal.
    stderr.write('error: the end\n');
    expect(written.at(-1)).toBe('error: the end\n');
  });

  it('cuts a long reference to the terminal width, keeping its tag', () => {
    const { terminal, written } = fakeTerminal(60);
    const stderr = new TerminalStderr(terminal);
    const model = new ProgressModel();
    const ref = `registry.example.com/${'very-long-organisation/'.repeat(4)}bar:1.0.0`;
    model.apply({ type: 'image-start', id: 1, ref });
    model.apply({ type: 'image-bytes', id: 1, ref, done: 0, total: 100 });
    const display = liveDisplay(stderr, model);
    display.stop();
    const line = written
      .join('')
      .replace(ESCAPES, '')
      .split(/\r|\n/)
      .find((l) => l.includes('[1]'));
    expect(line).toBeDefined();
    expect(line?.length).toBeLessThanOrEqual(59);
    expect(line).toContain('…');
    expect(line).toContain('bar:1.0.0 ');
  });

  it('a phase: a spinner line with its name and time', () => {
    const { terminal, written } = fakeTerminal();
    const stderr = new TerminalStderr(terminal);
    const model = new ProgressModel();
    model.apply({ type: 'phase-start', id: 5, name: 'loading catalog big/' });
    liveDisplay(stderr, model).stop();
    expect(written.join('').replace(ESCAPES, '')).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] loading catalog big\/ · 0:00/);
  });
});
