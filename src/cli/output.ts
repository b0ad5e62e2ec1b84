import { Chalk, type ChalkInstance } from 'chalk';
import type { Writable } from 'node:stream';
import type { CliIO } from './io.js';

/** Colours only on a terminal, and never with NO_COLOR set (to anything) or TERM=dumb. */
export function stderrColors(io: CliIO): ChalkInstance {
  const enabled =
    io.stderrIsTTY && io.env.NO_COLOR === undefined && io.env.TERM !== 'dumb' && io.env.FORCE_COLOR !== '0';
  return new Chalk({ level: enabled ? 1 : 0 });
}

/** Write a string and wait until the stream has taken it (back-pressure aware). */
export function writeAll(stream: Writable, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const ok = stream.write(text, (err) => (err ? reject(err) : undefined));
    if (ok) resolve();
    else stream.once('drain', () => resolve());
  });
}

/** Write a sequence of chunks, honouring back-pressure, so large outputs stream. */
export async function writeChunks(stream: Writable, chunks: Iterable<string>): Promise<void> {
  let pending = '';
  for (const chunk of chunks) {
    pending += chunk;
    if (pending.length >= 1 << 16) {
      await writeAll(stream, pending);
      pending = '';
    }
  }
  if (pending) await writeAll(stream, pending);
}
