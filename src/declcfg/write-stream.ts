/**
 * The catalog writers of the library: `writeJson(cfg, stream)` and `writeYaml(cfg, stream)` write
 * opm's output to a stream and settle when it is written, and `jsonChunks(cfg)` / `yamlChunks(cfg)`
 * hand out the same text a blob at a time for callers that put it somewhere else. The names say
 * which is which, so a stream passed to a generator cannot be silently ignored.
 */
import { expectConfig, expectOptions } from '../util/args.js';
import type { DeclarativeConfig } from './types.js';
import {
  writeJson as jsonGenerator,
  writeJsonBytes,
  writeYaml as yamlGenerator,
  type WriteOptions,
} from './write.js';

/**
 * What the writers write to: a Node.js Writable (`process.stdout`, `fs.createWriteStream(path)`, a
 * socket, a PassThrough) or any object that writes and signals as one does.
 */
export interface WritableLike {
  write(chunk: string | Uint8Array, callback?: (error?: Error | null) => void): boolean;
  on(event: 'error', listener: (error: Error) => void): unknown;
  once(event: 'drain', listener: () => void): unknown;
  removeListener(event: 'error' | 'drain', listener: (...args: never[]) => void): unknown;
}

function expectWritable(value: unknown, where: string, generator: string): asserts value is WritableLike {
  const s = value as Partial<Record<keyof WritableLike, unknown>> | null | undefined;
  if (
    typeof s !== 'object' ||
    s === null ||
    typeof s.write !== 'function' ||
    typeof s.on !== 'function' ||
    typeof s.once !== 'function' ||
    typeof s.removeListener !== 'function'
  ) {
    throw new TypeError(
      `${where} must be a writable stream such as process.stdout or fs.createWriteStream(path) (for the text itself, use ${generator})`,
    );
  }
}

/**
 * Write every chunk to `stream`, waiting for 'drain' when it asks to, and settle once the last
 * chunk is written: rejects with the stream's error (a full disk, a closed pipe) or the encoder's,
 * after which nothing more is written. The stream is left open.
 */
function writeChunks(stream: WritableLike, chunks: Iterator<string | Uint8Array>): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (err?: unknown): void => {
      if (settled) return;
      settled = true;
      stream.removeListener('error', settle);
      stream.removeListener('drain', pump);
      if (err === undefined || err === null) resolve();
      else reject(err instanceof Error ? err : new Error(String(err)));
    };
    function pump(): void {
      try {
        while (!settled) {
          const next = chunks.next();
          if (next.done === true) {
            // Settles once everything before it has been written (or has failed).
            stream.write('', (err) => settle(err));
            return;
          }
          if (!stream.write(next.value)) {
            stream.once('drain', pump);
            return;
          }
        }
      } catch (err) {
        settle(err);
      }
    }
    stream.on('error', settle);
    pump();
  });
}

/** The chunks of `chunks`, each copied: the JSON encoder reuses its buffer for the next chunk. */
function* copied(chunks: Iterable<Uint8Array>): Generator<Uint8Array> {
  for (const c of chunks) yield c.slice();
}

/**
 * Write `cfg` to `stream` as opm's `render -o json` does: blobs grouped by package in opm's
 * order, each as 4-space indented JSON. Resolves once the stream has taken the last byte; the
 * stream is not ended. A config from `render({ deferPayloads: true })` reads its payloads back
 * from disk as each bundle is written.
 *
 * @example
 * await writeJson(await render({ refs: ['catalog'] }), process.stdout);
 */
export function writeJson(
  cfg: DeclarativeConfig,
  stream: WritableLike,
  options: WriteOptions = {},
): Promise<void> {
  return Promise.resolve().then(() => {
    expectConfig(cfg, 'writeJson(cfg)');
    expectWritable(stream, 'writeJson(cfg, stream)', 'jsonChunks(cfg)');
    expectOptions(options, 'writeJson(cfg, stream, options)');
    return writeChunks(stream, copied(writeJsonBytes(cfg, options)));
  });
}

/**
 * Write `cfg` to `stream` as opm's `render -o yaml` does: a `---` YAML document per blob, in
 * opm's order. Resolves once the stream has taken the last byte; the stream is not ended.
 */
export function writeYaml(
  cfg: DeclarativeConfig,
  stream: WritableLike,
  options: WriteOptions = {},
): Promise<void> {
  return Promise.resolve().then(() => {
    expectConfig(cfg, 'writeYaml(cfg)');
    expectWritable(stream, 'writeYaml(cfg, stream)', 'yamlChunks(cfg)');
    expectOptions(options, 'writeYaml(cfg, stream, options)');
    return writeChunks(stream, yamlGenerator(cfg, options));
  });
}

function expectNoStream(options: unknown, where: string, writer: string): void {
  if (options !== null && typeof options === 'object' && 'write' in options) {
    throw new TypeError(`${where} takes no stream: to write to one, use ${writer}`);
  }
  expectOptions(options, where);
}

/**
 * The text of {@link writeJson}, a blob at a time (each string ends with a newline). Joined, the
 * chunks are the whole output.
 *
 * @example
 * const text = [...jsonChunks(cfg)].join('');
 */
export function jsonChunks(cfg: DeclarativeConfig, options: WriteOptions = {}): Generator<string> {
  expectConfig(cfg, 'jsonChunks(cfg)');
  expectNoStream(options, 'jsonChunks(cfg, options)', 'writeJson(cfg, stream)');
  return jsonGenerator(cfg, options);
}

/** The text of {@link writeYaml}, a blob (a `---` document) at a time. */
export function yamlChunks(cfg: DeclarativeConfig, options: WriteOptions = {}): Generator<string> {
  expectConfig(cfg, 'yamlChunks(cfg)');
  expectNoStream(options, 'yamlChunks(cfg, options)', 'writeYaml(cfg, stream)');
  return yamlGenerator(cfg, options);
}
