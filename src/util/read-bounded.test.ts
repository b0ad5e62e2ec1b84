import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { InputTooLargeError, MAX_CONFIG_BYTES, readBoundedFile, readBoundedStream } from './read-bounded.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'opm-read-bounded-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('readBoundedFile', () => {
  it('reads a file up to the cap whole, as UTF-8', async () => {
    const file = path.join(tmp, 'exact.yaml');
    const text = 'ü: '.padEnd(1000, 'x');
    writeFileSync(file, text);
    const size = Buffer.byteLength(text);
    expect(await readBoundedFile(file, size)).toBe(text);
    await expect(readBoundedFile(file, size - 1)).rejects.toThrow(InputTooLargeError);
  });

  it('says what is wrong past the cap', async () => {
    const file = path.join(tmp, 'big.yaml');
    writeFileSync(file, 'x'.repeat(3 * 1024 * 1024));
    await expect(readBoundedFile(file, 2 * 1024 * 1024)).rejects.toThrow(
      'more than 2 MiB, too large for a configuration file (a device or a pipe that does not end?)',
    );
    await expect(readBoundedFile(file, 1000)).rejects.toThrow('more than 1000 bytes');
  });

  it('stops reading a device that never ends at the cap', async () => {
    if (!existsSync('/dev/zero')) throw new Error('this test needs /dev/zero (Linux, macOS)');
    expect(MAX_CONFIG_BYTES).toBe(16 * 1024 * 1024);
    const err: unknown = await readBoundedFile('/dev/zero').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputTooLargeError);
    expect((err as InputTooLargeError).code).toBe('E_INPUT_TOO_LARGE');
  });

  it('passes system errors on as they are', async () => {
    await expect(readBoundedFile(path.join(tmp, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(readBoundedFile(tmp)).rejects.toMatchObject({ code: 'EISDIR' });
  });
});

describe('readBoundedStream', () => {
  it('reads a stream up to the cap, and refuses one that goes past it', async () => {
    expect(await readBoundedStream(Readable.from([Buffer.from('a: '), 'b\n']), 5)).toBe('a: b\n');
    await expect(readBoundedStream(Readable.from([Buffer.from('a: '), 'bc\n']), 5)).rejects.toThrow(
      InputTooLargeError,
    );
    // An endless stream: the reader stops at the cap.
    function* endless(): Generator<Buffer> {
      for (;;) yield Buffer.alloc(64 * 1024);
    }
    await expect(readBoundedStream(Readable.from(endless()), 1024 * 1024)).rejects.toThrow(
      InputTooLargeError,
    );
  });
});
