/** Reading a catalog file whole, for the loader (load-file.ts) and for payloads read back (payloads.ts). */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/**
 * The read buffer of this thread, grown as needed up to KEPT_READ_BUFFER_BYTES. A file's bytes are
 * dead once decoded to text; a fresh buffer for each file left them piling up outside the heap
 * until the next collection, in every loading thread (docs/performance.md).
 */
let readBuffer = Buffer.allocUnsafe(0);
/** A larger buffer, for a rare large file, is not kept for the life of the process. */
const KEPT_READ_BUFFER_BYTES = 16 * 1024 * 1024;

/**
 * The bytes of a file, read at once into this thread's buffer: the promise API reads in small parts,
 * each a trip through the thread pool, which costs more than the read itself for files in the page
 * cache. `expectedSize` is what the file is expected to hold (it may have changed since; by default its
 * size now). Valid until the next call: callers decode the bytes before reading another file.
 */
export function readWhole(file: string, expectedSize?: number): Buffer {
  const fd = openSync(file, 'r');
  try {
    const size = expectedSize ?? fstatSync(fd).size;
    let n = 0;
    for (;;) {
      // One byte more than expected, so that the end of the file is seen without a second read.
      if (readBuffer.length < Math.max(size + 1, n + 1)) {
        const grown = Buffer.allocUnsafe(Math.max(size + 1, readBuffer.length * 2, 64 * 1024));
        readBuffer.copy(grown, 0, 0, n);
        readBuffer = grown;
      }
      const got = readSync(fd, readBuffer, n, readBuffer.length - n, null);
      if (got === 0) {
        const bytes = readBuffer.subarray(0, n);
        if (readBuffer.length > KEPT_READ_BUFFER_BYTES) readBuffer = Buffer.allocUnsafe(0);
        return bytes;
      }
      n += got;
    }
  } finally {
    closeSync(fd);
  }
}
