/**
 * Gzip for the catalog API without letting compressing clients starve the others. Node's zlib and
 * its file reads share libuv's four threads: two hundred gzip answers streamed at once kept those
 * threads busy, and a plain reader's file reads waited behind them. So:
 *
 * - the whole catalog (`/all`, `/metas` without a filter) is compressed once, into a file beside the
 *   lines, and every gzip answer of it is read from that file like a plain one;
 * - other bodies (filtered `/metas`) are compressed a chunk at a time with at most GZIP_SLOTS chunks
 *   being compressed at once across the server, leaving threads for file reads; a client that does
 *   not read holds no slot, as nothing is compressed for it until it reads.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { CatalogLines } from './catalog-lines.js';

/** Chunks compressed at once: half of libuv's default pool of four threads. */
export const GZIP_SLOTS = 2;

/** A counting semaphore: `run` waits for a free slot, holds it while `work` runs. */
export class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(count: number) {
    this.free = count;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.free++;
    }
  }
}

const slots = new Slots(GZIP_SLOTS);

/**
 * `source` gzipped, a chunk at a time as the consumer asks for output; each chunk is compressed
 * while holding one of the server's slots.
 */
export async function* gzipBounded(
  source: AsyncIterable<Buffer>,
  limit: Slots = slots,
): AsyncGenerator<Buffer> {
  const gz = createGzip();
  const out: Buffer[] = [];
  gz.on('data', (c: Buffer) => out.push(c));
  const failed = new Promise<never>((_resolve, reject) => gz.once('error', reject));
  failed.catch(() => undefined);
  const step = (start: (done: () => void) => void): Promise<void> =>
    limit.run(() => Promise.race([new Promise<void>((resolve) => start(resolve)), failed]));
  try {
    for await (const chunk of source) {
      // The write's callback comes once zlib has consumed the chunk: the compressing is done.
      await step((done) => gz.write(chunk, () => done()));
      if (out.length > 0) yield* out.splice(0);
    }
    await step((done) => {
      gz.once('end', done);
      gz.end();
    });
    yield* out.splice(0);
  } finally {
    gz.destroy();
  }
}

/** The gzip of each catalog's whole lines, once: the file, or undefined when it could not be written. */
const wholeGzips = new WeakMap<CatalogLines, Promise<WholeGzip | undefined>>();

export interface WholeGzip {
  file: string;
  size: number;
}

/**
 * The file holding the gzip of all of `lines` (`<lines file>.gz`, removed with the lines' folder),
 * written by the first call (bounded as other compression is) and shared by every later one.
 * Undefined when it cannot be written: the caller compresses as it streams instead.
 */
export function wholeGzip(lines: CatalogLines): Promise<WholeGzip | undefined> {
  let made = wholeGzips.get(lines);
  if (made === undefined) {
    made = writeWholeGzip(lines);
    wholeGzips.set(lines, made);
  }
  return made;
}

async function writeWholeGzip(lines: CatalogLines): Promise<WholeGzip | undefined> {
  const file = `${lines.file}.gz`;
  const partial = `${file}.partial`;
  try {
    await pipeline(
      gzipBounded(createReadStream(lines.file, { highWaterMark: 64 * 1024 })),
      createWriteStream(partial, { flags: 'wx', mode: 0o600 }),
    );
    await rename(partial, file);
    return { file, size: (await stat(file)).size };
  } catch {
    await rm(partial, { force: true });
    return undefined;
  }
}
