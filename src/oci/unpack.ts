import {
  createWriteStream,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, gunzipSync } from 'node:zlib';
import type TarStream from 'tar-stream';
import { OpmError } from '../errors.js';
import { tarEntries, type StreamedTarHeader, type TarHeader } from './tar-reader.js';

export interface UnpackLimits {
  /** Most bytes of file content written across all layers. */
  maxBytes: number;
  /** Most tar entries read across all layers. */
  maxEntries: number;
}

export const DEFAULT_LIMITS: UnpackLimits = { maxBytes: 8 * 1024 ** 3, maxEntries: 1_000_000 };

type StreamedEntry = ReturnType<typeof TarStream.extract> extends AsyncIterable<infer E> ? E : never;

/** Loaded on first use: most layers are read from memory, and zstd is rare. */
let tarStream: Promise<typeof TarStream> | undefined;
const loadTarStream = (): Promise<typeof TarStream> =>
  (tarStream ??= import('tar-stream').then((m) => m.default));

const MAX_LINK_HOPS = 40;
/** Files up to this size are gathered in memory and written with one call. */
const SMALL_FILE = 4 * 1024 * 1024;
/** Gzip layers that inflate to at most this are inflated in one call rather than streamed. */
const IN_MEMORY_TAR = 64 * 1024 * 1024;
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;
const WHITEOUT = '.wh.';
const OPAQUE = '.wh..wh..opq';

function unsafe(what: string, why: string): OpmError {
  return new OpmError(`${what}: refusing unsafe layer entry: ${why}`, {
    code: 'E_UNSAFE_LAYER',
    hint: 'the image contains paths that would escape the unpack directory or create device files',
  });
}

/** Magic-byte sniffing: images mislabel compression often enough that the media type is not trusted. */
export function detectCompression(head: Uint8Array): 'gzip' | 'zstd' | 'none' {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'gzip';
  if (head.length >= 4 && head[0] === 0x28 && head[1] === 0xb5 && head[2] === 0x2f && head[3] === 0xfd)
    return 'zstd';
  return 'none';
}

async function* zstdChunks(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const { Decompress } = await import('fzstd');
  const out: Buffer[] = [];
  const d = new Decompress((chunk) => {
    out.push(Buffer.from(chunk));
  });
  for await (const c of source) {
    d.push(c);
    while (out.length > 0) {
      const b = out.shift();
      if (b) yield b;
    }
  }
  d.push(new Uint8Array(0), true);
  yield* out.splice(0);
}

/** One buffer as a stream of one chunk, for the streaming path. */
function chunksOf(data: Buffer): AsyncIterable<Buffer> {
  return Readable.from([data]);
}

/** Decompress a layer stream, whatever its compression. */
function decompress(source: AsyncIterable<unknown>): Readable {
  async function* gen(): AsyncGenerator<Buffer> {
    const it = source[Symbol.asyncIterator]();
    const head: Buffer[] = [];
    let headLen = 0;
    let done = false;
    while (headLen < 4) {
      const r = await it.next();
      if (r.done === true) {
        done = true;
        break;
      }
      const b = Buffer.isBuffer(r.value) ? r.value : Buffer.from(String(r.value));
      head.push(b);
      headLen += b.length;
    }
    const first = Buffer.concat(head);
    async function* rest(): AsyncGenerator<Buffer> {
      if (first.length > 0) yield first;
      if (done) return;
      for (;;) {
        const r = await it.next();
        if (r.done === true) return;
        yield Buffer.isBuffer(r.value) ? r.value : Buffer.from(String(r.value));
      }
    }
    const kind = detectCompression(first);
    if (kind === 'gzip') {
      const gunzip = createGunzip();
      const pass = new PassThrough();
      // Errors of either side end the iteration below with that error.
      pipeline(Readable.from(rest()), gunzip, pass).catch((err: unknown) =>
        pass.destroy(err instanceof Error ? err : new Error(String(err))),
      );
      for await (const c of pass) yield Buffer.isBuffer(c) ? c : Buffer.from(String(c));
    } else if (kind === 'zstd') {
      yield* zstdChunks(rest());
    } else {
      yield* rest();
    }
  }
  return Readable.from(gen());
}

/** Split an entry name into safe components, or throw. `./` prefixes and empty parts are dropped. */
function safeComponents(name: string, what: string, kind = 'path'): string[] {
  if (name.includes('\0')) throw unsafe(what, `${kind} contains a NUL byte`);
  if (name.startsWith('/')) throw unsafe(what, `absolute ${kind} "${name}"`);
  const parts = name.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) throw unsafe(what, `${kind} "${name}" contains ".."`);
  return parts;
}

function lstatOrUndefined(p: string): Stats | undefined {
  return lstatSync(p, { throwIfNoEntry: false });
}

/** Paths one layer wrote, with their parent folders ('' is the root): whiteouts spare them. */
class LayerPaths {
  readonly paths = new Set<string>(['']);

  mark(parts: string[]): void {
    for (let i = 1; i <= parts.length; i++) this.paths.add(parts.slice(0, i).join('/'));
  }
}

/**
 * State carried across the layers of one image.
 *
 * File system calls are synchronous: each is a few microseconds on the small files images carry,
 * while their promise versions each wait a turn of the thread pool, which made up most of the time
 * of unpacking a bundle. Only large file contents are still streamed.
 */
export class Unpacker {
  private bytes = 0;
  private entries = 0;
  private readonly symlinks = new Set<string>();
  /**
   * The mode each file and folder entry was archived with, by its path in the image (`a/b`), the
   * last layer's winning. Files are written 0600 and folders 0700 whatever their archived mode; a
   * caller that copies the tree out as the image has it (`alpha bundle unpack`) reads the modes here.
   */
  readonly modes = new Map<string, number>();

  readonly root: string;
  private readonly what: string;
  private readonly limits: UnpackLimits;
  private readonly signal: AbortSignal | undefined;

  /** `signal` stops the unpacking before the next entry, rejecting with its reason. */
  constructor(root: string, what: string, limits: UnpackLimits = DEFAULT_LIMITS, signal?: AbortSignal) {
    this.root = root;
    this.what = what;
    this.limits = limits;
    this.signal = signal;
  }

  /**
   * Resolve the parent folders of `parts` inside the root, creating missing ones. A symlink met on the
   * way is followed as if the root were `/`, so nothing can be written outside the root through one.
   */
  private resolveParent(parts: string[]): string {
    let dir = this.root;
    const queue = parts.slice(0, -1);
    let hops = 0;
    while (queue.length > 0) {
      const c = queue.shift();
      if (c === undefined) break;
      if (c === '..') {
        // Only symlink targets bring '..' here; clamp at the root.
        if (dir !== this.root) dir = path.dirname(dir);
        continue;
      }
      const next = path.join(dir, c);
      const st = lstatOrUndefined(next);
      if (st === undefined) {
        mkdirSync(next, { mode: DIR_MODE });
        dir = next;
      } else if (st.isSymbolicLink()) {
        if (++hops > MAX_LINK_HOPS) throw unsafe(this.what, 'too many symbolic links');
        const target = readlinkSync(next);
        const tparts = target.split('/').filter((p) => p !== '' && p !== '.');
        if (target.startsWith('/')) dir = this.root;
        queue.unshift(...tparts);
      } else if (st.isDirectory()) {
        dir = next;
      } else {
        // A lower layer's file where this layer has a folder: the folder wins.
        rmSync(next, { force: true });
        mkdirSync(next, { mode: DIR_MODE });
        dir = next;
      }
    }
    return dir;
  }

  /** Remove what lower layers put at `abs`, keeping what this layer wrote (`layerPaths`). */
  private removeLower(abs: string, rel: string, layerPaths: Set<string>): void {
    if (!layerPaths.has(rel)) {
      rmSync(abs, { recursive: true, force: true });
      this.symlinks.delete(abs);
      return;
    }
    const st = lstatOrUndefined(abs);
    if (st?.isDirectory() !== true) return;
    for (const child of readdirSync(abs)) {
      this.removeLower(path.join(abs, child), rel === '' ? child : `${rel}/${child}`, layerPaths);
    }
  }

  /** Apply one layer (any compression) on top of what is already unpacked. */
  async applyLayer(source: AsyncIterable<unknown>): Promise<void> {
    const tar = await loadTarStream();
    const extract = tar.extract();
    const feeding = pipeline(decompress(source), extract);
    // If feeding fails, the extract stream is destroyed and the loop below throws too.
    feeding.catch(() => undefined);
    const layer = new LayerPaths();
    for await (const entry of extract) {
      try {
        const h: StreamedTarHeader = entry.header;
        const header: TarHeader = {
          name: h.name,
          type: h.type ?? 'file',
          size: h.size ?? 0,
          linkname: h.linkname ?? undefined,
          ...(typeof h.mode === 'number' ? { mode: h.mode & 0o7777 } : {}),
        };
        await this.applyEntry(header, entry, layer);
      } finally {
        entry.resume();
      }
    }
    await feeding;
  }

  /**
   * Apply one layer held in memory. Plain and gzip layers are read straight from the buffer (gzip
   * inflated in one call, bounded so a small blob cannot inflate without limit); larger or zstd
   * layers take the streaming path.
   */
  async applyLayerBytes(data: Buffer): Promise<void> {
    const kind = detectCompression(data);
    let tarBytes: Buffer | undefined;
    if (kind === 'none') tarBytes = data;
    else if (kind === 'gzip') {
      try {
        tarBytes = gunzipSync(data, { maxOutputLength: IN_MEMORY_TAR });
      } catch (err) {
        if (!(err instanceof RangeError)) throw err;
      }
    }
    if (tarBytes === undefined) return this.applyLayer(chunksOf(data));
    const layer = new LayerPaths();
    for (const { header, body } of tarEntries(tarBytes)) await this.applyEntry(header, body, layer);
  }

  private async applyEntry(h: TarHeader, body: Buffer | StreamedEntry, layer: LayerPaths): Promise<void> {
    const layerPaths = layer.paths;
    const markWritten = (parts: string[]): void => layer.mark(parts);
    this.signal?.throwIfAborted();
    if (++this.entries > this.limits.maxEntries) {
      throw new OpmError(`${this.what}: image has more than ${this.limits.maxEntries} files`, {
        code: 'E_UNPACK_LIMIT',
      });
    }
    const parts = safeComponents(h.name, this.what);
    if (parts.length === 0) return;
    const base = parts[parts.length - 1] ?? '';

    if (base.startsWith(WHITEOUT)) {
      const parentParts = parts.slice(0, -1);
      const parent = this.resolveParent([...parentParts, 'x']);
      const parentRel = parentParts.join('/');
      if (base === OPAQUE) {
        markWritten(parentParts);
        for (const child of readdirSync(parent)) {
          this.removeLower(
            path.join(parent, child),
            parentRel === '' ? child : `${parentRel}/${child}`,
            layerPaths,
          );
        }
      } else if (!base.startsWith(`${WHITEOUT}${WHITEOUT}`)) {
        const victim = base.slice(WHITEOUT.length);
        if (victim !== '' && victim !== '..' && victim !== '.') {
          this.removeLower(
            path.join(parent, victim),
            parentRel === '' ? victim : `${parentRel}/${victim}`,
            layerPaths,
          );
        }
      }
      return;
    }

    const type = h.type;
    if (type === 'character-device' || type === 'block-device')
      throw unsafe(this.what, `device file "${h.name}"`);
    if (
      type !== 'file' &&
      type !== 'contiguous-file' &&
      type !== 'directory' &&
      type !== 'symlink' &&
      type !== 'link'
    ) {
      // FIFOs and unknown types carry nothing render could use.
      return;
    }
    const parent = this.resolveParent(parts);
    const dest = path.join(parent, base);
    const existing = lstatOrUndefined(dest);
    markWritten(parts);
    if (h.mode !== undefined && type !== 'symlink') this.modes.set(parts.join('/'), h.mode);

    if (type === 'directory') {
      if (existing?.isDirectory() === true) return;
      if (existing !== undefined) rmSync(dest, { recursive: true, force: true });
      mkdirSync(dest, { mode: DIR_MODE });
      return;
    }
    if (existing !== undefined) {
      rmSync(dest, { recursive: true, force: true });
      this.symlinks.delete(dest);
    }
    if (type === 'symlink') {
      const target = h.linkname ?? '';
      if (target === '' || target.includes('\0'))
        throw unsafe(this.what, `symlink "${h.name}" has no valid target`);
      const linkParts = parts.slice(0, -1);
      const resolved = target.startsWith('/') ? target.split('/') : [...linkParts, ...target.split('/')];
      const stack: string[] = [];
      for (const p of resolved) {
        if (p === '' || p === '.') continue;
        if (p === '..') {
          if (stack.length === 0)
            throw unsafe(this.what, `symlink "${h.name}" points outside the image ("${target}")`);
          stack.pop();
        } else stack.push(p);
      }
      // Absolute targets mean the image root; write them relative so they stay inside it on this host.
      const written = target.startsWith('/')
        ? path.relative(parent, path.join(this.root, ...stack)) || '.'
        : target;
      symlinkSync(written, dest);
      this.symlinks.add(dest);
      return;
    }
    if (type === 'link') {
      const targetParts = safeComponents(
        (h.linkname ?? '').replace(/^\/+/, ''),
        this.what,
        'hardlink target',
      );
      const srcParent = this.resolveParent(targetParts);
      const src = path.join(srcParent, targetParts[targetParts.length - 1] ?? '');
      const st = lstatOrUndefined(src);
      if (targetParts.length === 0 || st?.isFile() !== true) {
        throw unsafe(
          this.what,
          `hardlink "${h.name}" to a missing or non-regular file "${h.linkname ?? ''}"`,
        );
      }
      linkSync(src, dest);
      return;
    }
    const size = h.size;
    this.bytes += size;
    if (this.bytes > this.limits.maxBytes) {
      throw new OpmError(`${this.what}: image unpacks to more than ${this.limits.maxBytes} bytes`, {
        code: 'E_UNPACK_LIMIT',
      });
    }
    if (Buffer.isBuffer(body)) {
      writeFileSync(dest, body, { mode: FILE_MODE, flag: 'wx' });
      return;
    }
    if (size > SMALL_FILE) {
      await pipeline(body, createWriteStream(dest, { mode: FILE_MODE, flags: 'wx' }));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of body) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(String(c)));
    writeFileSync(dest, chunks.length === 1 && chunks[0] !== undefined ? chunks[0] : Buffer.concat(chunks), {
      mode: FILE_MODE,
      flag: 'wx',
    });
  }

  /**
   * Final check: every symlink that resolves must resolve inside the root. Chains of links can
   * escape even when each link on its own looks harmless.
   */
  finish(): void {
    // The native call, as before: the JavaScript one resolves `..` after a link lexically, which
    // misses chains of links that climb out.
    const realRoot = realpathSync.native(this.root);
    for (const l of this.symlinks) {
      let target: string;
      try {
        target = realpathSync.native(l);
      } catch {
        continue;
      }
      if (target !== realRoot && !target.startsWith(`${realRoot}${path.sep}`)) {
        throw unsafe(this.what, `symlink "${path.relative(this.root, l)}" resolves outside the image`);
      }
    }
  }
}
