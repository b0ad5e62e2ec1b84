import { fstatSync } from 'node:fs';
import { Writable } from 'node:stream';
import { STDOUT_PATH, writeWholeSync } from './write-fd.js';

/**
 * Standard output when it is a file or a device (`opm render … > catalog.json`). Node.js writes to
 * such a descriptor with one write(2) per chunk and does not look at how many bytes it took, so a
 * disk that fills up cuts the output short without an error (only /dev/full, which takes nothing,
 * failed). This stream writes every chunk whole (writeWholeSync) and fails the write, with the
 * stream's 'error', otherwise. Pipes and terminals keep Node's own stream, whose writes are whole.
 */
export class WholeFdStream extends Writable {
  readonly fd: number;
  readonly path: string;
  constructor(fd: number, name: string) {
    super({ decodeStrings: true });
    this.fd = fd;
    this.path = name;
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    done(writeWholeSync(this.fd, chunk, this.path));
  }
}

/**
 * The stream commands write standard output to: WholeFdStream when descriptor 1 is a file or a
 * device, Node's process.stdout for a pipe, a socket or a terminal (or when it cannot be told).
 */
export function standardOutput(): Writable {
  try {
    const st = fstatSync(1);
    if (st.isFile() || st.isBlockDevice() || (st.isCharacterDevice() && !stdoutIsTerminal())) {
      return new WholeFdStream(1, STDOUT_PATH);
    }
  } catch {
    // A closed descriptor: Node's stream reports it when written to.
  }
  return process.stdout;
}

/**
 * Whether standard output, a character device, is a terminal. Node.js makes process.stdout a
 * tty.WriteStream exactly when the descriptor is one, and a file stream for other devices
 * (/dev/null), so asking it loads node:tty (and node:net, which it requires) only on a terminal,
 * where the answer matters; tty.isatty() would load both at every start onto /dev/null.
 */
function stdoutIsTerminal(): boolean {
  return process.stdout.isTTY === true;
}

/**
 * Write a string and wait until the stream has written it: a failed write (a full disk) fails the
 * command that made it, which then writes nothing more.
 */
export function writeAll(stream: Writable, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(text, (err) => (err ? reject(err) : resolve()));
  });
}

/** Bytes gathered before they are written out. */
const CHUNK_BYTES = 1 << 20;

/**
 * Whether `stream` is done with a buffer once its write callback has run: streams onto a file
 * descriptor hand the bytes to the system and keep nothing, while other streams (a PassThrough,
 * say) may hold on to the very buffer they were given.
 */
function releasesWrittenBuffers(stream: Writable): boolean {
  // process.stdout on a file is an internal SyncWriteStream, which writes at once to its `fd`.
  if ('fd' in stream && typeof stream.fd === 'number') return true;
  // node:fs and node:net are looked up here rather than imported: loading node:net costs every
  // start a few milliseconds, and a stream that is a socket has loaded it already.
  const { WriteStream } = process.getBuiltinModule('node:fs');
  const { Socket } = process.getBuiltinModule('node:net');
  return stream instanceof WriteStream || stream instanceof Socket;
}

/** Write `data` and wait until the stream has written it (which also honours back-pressure). */
function writeDone(stream: Writable, data: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(data, (err) => (err ? reject(err) : resolve()));
  });
}

/**
 * Write a sequence of chunks so that large outputs stream: text, and byte chunks under a megabyte,
 * are gathered into one reused buffer and written a megabyte at a time, each write awaited before
 * the buffer is filled again; larger byte chunks are written as they come. Byte chunks may be
 * reused by their producer once the next chunk is asked for (see writeJsonBytes).
 */
export async function writeChunks(stream: Writable, chunks: Iterable<string | Uint8Array>): Promise<void> {
  const direct = releasesWrittenBuffers(stream);
  const send = (data: Uint8Array): Promise<void> => writeDone(stream, direct ? data : Buffer.from(data));
  let buf: Buffer | undefined;
  let pos = 0;
  const flush = async (): Promise<void> => {
    if (buf === undefined || pos === 0) return;
    const data = buf.subarray(0, pos);
    pos = 0;
    await send(data);
  };
  const iterator = chunks[Symbol.iterator]();
  try {
    for (;;) {
      let next: IteratorResult<string | Uint8Array>;
      try {
        next = iterator.next();
      } catch (err) {
        // What was produced before the failure goes out first, as it would have unbuffered.
        await flush();
        throw err;
      }
      if (next.done === true) break;
      const chunk = next.value;
      if (typeof chunk !== 'string' && chunk.length >= CHUNK_BYTES) {
        // A large byte chunk goes out as it is, after what was gathered before it.
        await flush();
        await send(chunk);
        continue;
      }
      // Room for the chunk (the worst case of 3 bytes per UTF-16 unit for text).
      const need = typeof chunk === 'string' ? chunk.length * 3 : chunk.length;
      if (buf === undefined || pos + need > buf.length) {
        await flush();
        if (buf === undefined || need > buf.length) buf = Buffer.allocUnsafe(Math.max(CHUNK_BYTES * 2, need));
      }
      if (typeof chunk === 'string') pos += buf.write(chunk, pos, 'utf8');
      else {
        buf.set(chunk, pos);
        pos += chunk.length;
      }
      if (pos >= CHUNK_BYTES) await flush();
    }
    await flush();
  } finally {
    // A producer left before its end (a failed write) releases what it holds (a spill file).
    iterator.return?.();
  }
}
