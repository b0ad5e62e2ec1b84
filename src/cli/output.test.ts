import { closeSync, createWriteStream, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliIO } from './io.js';
import { WholeFdStream, writeAll, writeChunks } from './output.js';
import { writeWholeSync } from './write-fd.js';

/** Chunks as writeJsonBytes hands them out: byte chunks share one buffer, overwritten each time. */
function* reusingProducer(pieces: readonly string[]): Generator<string | Uint8Array> {
  const shared = Buffer.alloc(1 << 23);
  for (const [i, p] of pieces.entries()) {
    if (i % 3 === 0) {
      yield p;
      continue;
    }
    shared.fill(0);
    const n = shared.write(p, 0, 'utf8');
    yield shared.subarray(0, n);
  }
}

const PIECES = Array.from({ length: 40 }, (_, i) => `piece ${i} é€😀 ${'x'.repeat(i * 997)}\n`);
// Chunks longer than the writer's own buffer, as bytes (index 40) and as text (index 42).
PIECES.push('y'.repeat(3 << 20), 'short\n', 'z'.repeat(3 << 20));
const EXPECTED = PIECES.join('');

describe('writeChunks', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'opm-output-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('copies reused byte chunks for streams that may keep them', async () => {
    const stream = new PassThrough();
    const got: Buffer[] = [];
    stream.on('data', (b: Buffer) => got.push(b));
    const ended = new Promise((resolve) => stream.on('end', resolve));
    await writeChunks(stream, reusingProducer(PIECES));
    stream.end();
    await ended;
    const text = Buffer.concat(got).toString('utf8');
    expect(text).toBe(EXPECTED);
  });

  it('writes to a file stream, waiting for each write', async () => {
    const file = path.join(dir, 'out.txt');
    const stream = createWriteStream(file);
    await writeChunks(stream, reusingProducer(PIECES));
    await new Promise<void>((resolve) => stream.end(resolve));
    const text = readFileSync(file, 'utf8');
    expect(text).toBe(EXPECTED);
  });

  it('writes what came before a failing chunk, then fails', async () => {
    function* failing(): Generator<string> {
      yield 'first\n';
      yield 'second\n';
      throw new Error('no third');
    }
    const stream = new PassThrough();
    const got: Buffer[] = [];
    stream.on('data', (b: Buffer) => got.push(b));
    await expect(writeChunks(stream, failing())).rejects.toThrow('no third');
    stream.end();
    await new Promise((resolve) => stream.on('end', resolve));
    expect(Buffer.concat(got).toString('utf8')).toBe('first\nsecond\n');
  });

  it('reports a failed write', async () => {
    const stream = new PassThrough();
    stream.destroy();
    await expect(writeChunks(stream, ['text'])).rejects.toThrow();
  });
});

describe('standard output on a file or a device', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'opm-whole-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a device that takes nothing (/dev/full) fails the write, named as stdout', () => {
    const fd = openSync('/dev/full', 'w');
    try {
      const err = writeWholeSync(fd, Buffer.from('text\n'), '/dev/stdout');
      expect(err).toMatchObject({ code: 'ENOSPC', syscall: 'write', path: '/dev/stdout' });
    } finally {
      closeSync(fd);
    }
  });

  it('fails the awaited write and the stream, once', async () => {
    const fd = openSync('/dev/full', 'w');
    try {
      const stream = new WholeFdStream(fd, '/dev/stdout');
      const errors: unknown[] = [];
      stream.on('error', (e) => errors.push(e));
      await expect(writeAll(stream, 'text\n')).rejects.toMatchObject({ code: 'ENOSPC', path: '/dev/stdout' });
      await new Promise((resolve) => setImmediate(resolve));
      expect(errors).toHaveLength(1);
    } finally {
      closeSync(fd);
    }
  });

  it('writes every chunk whole to a file, text and bytes', async () => {
    const file = path.join(dir, 'out.txt');
    const fd = openSync(file, 'w');
    try {
      const stream = new WholeFdStream(fd, '/dev/stdout');
      await writeChunks(stream, reusingProducer(PIECES));
      await writeAll(stream, 'end\n');
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(file, 'utf8')).toBe(EXPECTED + 'end\n');
  });
});

describe('colours and terminals', () => {
  const io = (env: NodeJS.ProcessEnv, tty: boolean) => ({ env, stderrIsTTY: tty }) as unknown as CliIO;
  it.each([
    [{}, true, true],
    [{}, false, false],
    [{ NO_COLOR: '1' }, true, false],
    [{ NO_COLOR: '' }, true, true],
    [{ TERM: 'dumb' }, true, false],
    [{ FORCE_COLOR: '1' }, false, true],
    [{ FORCE_COLOR: '0' }, true, false],
    [{ FORCE_COLOR: '1', NO_COLOR: '1' }, false, true],
  ])('%j on a terminal: %s → colours %s', async (env, tty, want) => {
    const { stderrColors } = await import('./colors.js');
    expect(stderrColors(io(env, tty)).level > 0).toBe(want);
  });

  it('TERM=dumb gets the validate tree in ASCII', async () => {
    const { runOpm } = await import('../../test/run-cli.js');
    const r = await runOpm(['validate', 'testdata/load/yaml-syntax-error/catalog'], {
      env: { TERM: 'dumb' },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('`-- ');
    expect(r.stderr).not.toMatch(/[└├│]/);
  });
});
