/**
 * Reading a configuration file (a filter `--config`, a template, a `--bundle-dirs` map,
 * `.opm-validate.yaml`, registries.conf) with a cap on its size. Such files are small; a path that
 * names a device or a pipe that never ends (`/dev/zero`, `/dev/urandom`, a FIFO fed forever), or a
 * huge file given by mistake, is refused once the cap is passed instead of being read until memory
 * or V8's string limit runs out. Every configuration file is read through here; its text is then
 * checked for nesting and aliases by the reader of its format (yaml/config-text.ts).
 */
import { open } from 'node:fs/promises';

/** The most a configuration file may hold. */
export const MAX_CONFIG_BYTES = 16 * 1024 * 1024;

const READ_BYTES = 64 * 1024;

/**
 * A configuration input over the cap. Its `code` is no system error's, so the readers' usual
 * wording (`cannot read <file>: <errnoText>`) says what is wrong with it.
 */
export class InputTooLargeError extends Error {
  readonly code = 'E_INPUT_TOO_LARGE';
  constructor(maxBytes: number) {
    const mib = maxBytes / (1024 * 1024);
    super(
      `more than ${Number.isInteger(mib) ? `${mib} MiB` : `${maxBytes} bytes`}, too large for a configuration file (a device or a pipe that does not end?)`,
    );
    this.name = 'InputTooLargeError';
  }
}

/**
 * The text (UTF-8) of `file`, at most `maxBytes` bytes. Throws InputTooLargeError past the cap,
 * and the system error (ENOENT, EISDIR…) when the file cannot be opened or read.
 */
export async function readBoundedFile(file: string, maxBytes = MAX_CONFIG_BYTES): Promise<string> {
  const fh = await open(file, 'r');
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    for (;;) {
      // One byte more than the cap may hold, so that a file of exactly the cap is accepted.
      const want = Math.min(READ_BYTES, maxBytes + 1 - size);
      const buf = Buffer.allocUnsafe(want);
      const { bytesRead } = await fh.read(buf, 0, want, null);
      if (bytesRead === 0) break;
      chunks.push(buf.subarray(0, bytesRead));
      size += bytesRead;
      if (size > maxBytes) throw new InputTooLargeError(maxBytes);
    }
    return Buffer.concat(chunks, size).toString('utf8');
  } finally {
    await fh.close();
  }
}

/** All of `stream` (standard input) as UTF-8 text, at most `maxBytes` bytes; InputTooLargeError past that. */
export async function readBoundedStream(
  stream: AsyncIterable<Buffer | string>,
  maxBytes = MAX_CONFIG_BYTES,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += b.length;
    if (size > maxBytes) throw new InputTooLargeError(maxBytes);
    chunks.push(b);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}
