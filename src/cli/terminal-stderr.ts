/**
 * Standard error on a terminal, shared by the lines a command writes (warnings, errors) and the live
 * progress display. While a display is drawn, a line is handed to it to print above the display
 * rather than written through it; otherwise it goes straight to the terminal.
 */
import { Writable } from 'node:stream';
import type { WriteStream } from 'node:tty';

/** Something drawn at the bottom of the terminal that lines must pass above. */
export interface Overlay {
  /** Print `text` above the overlay. */
  print(text: string): void;
}

export class TerminalStderr extends Writable {
  /** The terminal itself, for the display's own drawing. */
  readonly terminal: WriteStream;
  overlay: Overlay | undefined;

  constructor(terminal: WriteStream) {
    super({ decodeStrings: false });
    this.terminal = terminal;
  }

  get isTTY(): boolean {
    return this.terminal.isTTY;
  }

  get columns(): number {
    return this.terminal.columns;
  }

  override _write(chunk: unknown, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
    if (this.overlay !== undefined) this.overlay.print(text);
    // A terminal takes what it is given at once: lines are not held back behind one another.
    else this.terminal.write(text);
    callback();
  }
}
