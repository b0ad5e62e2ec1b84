import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OpmError } from '../errors.js';
import { detectCompression, Unpacker } from './unpack.js';

interface E {
  name: string;
  type?: 'file' | 'directory' | 'symlink' | 'link' | 'character-device' | 'fifo';
  content?: string;
  linkname?: string;
  mode?: number;
}

async function tarOf(entries: E[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve) => {
    pack.on('data', (c: unknown) => chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(String(c))));
    pack.on('end', () => resolve());
  });
  for (const e of entries) {
    const type = e.type ?? 'file';
    await new Promise<void>((resolve, reject) => {
      const cb = (err?: Error | null): void => (err ? reject(err) : resolve());
      const header = {
        name: e.name,
        type,
        ...(e.linkname !== undefined ? { linkname: e.linkname } : {}),
        ...(e.mode !== undefined ? { mode: e.mode } : {}),
      };
      if (type === 'file') pack.entry(header, e.content ?? '', cb);
      else pack.entry(header, cb);
    });
  }
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}

function once(b: Buffer): AsyncIterable<Buffer> {
  // Odd chunk sizes exercise the compression sniffing across chunk borders.
  function* chunks(): Generator<Buffer> {
    for (let i = 0; i < b.length; i += 3) yield b.subarray(i, i + 3);
  }
  return Readable.from(chunks());
}

let dir: string;
let root: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'opm-unpack-test-'));
  root = path.join(dir, 'root');
  mkdirSync(root);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Each Unpacker test runs on both ways in: a stream of odd chunks, and a whole blob in memory. */
let mode: 'stream' | 'in memory' = 'stream';

async function apply(layers: E[][], gzip = false): Promise<Unpacker> {
  const u = new Unpacker(root, 'layer of test');
  for (const l of layers) {
    const t = await tarOf(l);
    const blob = gzip ? gzipSync(t) : t;
    await (mode === 'stream' ? u.applyLayer(once(blob)) : u.applyLayerBytes(blob));
  }
  u.finish();
  return u;
}

async function unsafe(layers: E[][]): Promise<OpmError> {
  try {
    await apply(layers);
  } catch (err) {
    if (err instanceof OpmError) return err;
    throw err;
  }
  throw new Error('expected E_UNSAFE_LAYER');
}

function tree(p = root, prefix = ''): string[] {
  return readdirSync(p)
    .sort()
    .flatMap((n) => {
      const abs = path.join(p, n);
      const rel = prefix + n;
      const st = lstatSync(abs);
      if (st.isSymbolicLink()) return [`${rel} -> ${readlinkSync(abs)}`];
      if (st.isDirectory()) return [`${rel}/`, ...tree(abs, `${rel}/`)];
      return [`${rel}=${readFileSync(abs, 'utf8')}`];
    });
}

describe('detectCompression', () => {
  it('goes by magic bytes', () => {
    expect(detectCompression(Buffer.from([0x1f, 0x8b, 8, 0]))).toBe('gzip');
    expect(detectCompression(Buffer.from([0x28, 0xb5, 0x2f, 0xfd]))).toBe('zstd');
    expect(detectCompression(Buffer.from('./ma'))).toBe('none');
    expect(detectCompression(Buffer.alloc(0))).toBe('none');
  });
});

describe.each(['stream', 'in memory'] as const)('Unpacker (%s)', (m) => {
  beforeEach(() => {
    mode = m;
  });

  it('records the archived modes of files and folders by path, the last layer winning; writes 0600 and 0700', async () => {
    const u = await apply([
      [
        { name: './a/', type: 'directory', mode: 0o555 },
        { name: './a/x', content: '1', mode: 0o400 },
        { name: 'b', content: 'b', mode: 0o755 },
        { name: 'l', type: 'symlink', linkname: 'b' },
      ],
      [{ name: 'b', content: 'b2', mode: 0o640 }],
    ]);
    expect([...u.modes].sort(([x], [y]) => (x < y ? -1 : 1))).toEqual([
      ['a', 0o555],
      ['a/x', 0o400],
      ['b', 0o640],
    ]);
    expect(lstatSync(path.join(root, 'a')).mode & 0o777).toBe(0o700);
    expect(lstatSync(path.join(root, 'a/x')).mode & 0o777).toBe(0o600);
  });

  it('writes files and folders, normalising ./ and applying later layers on top', async () => {
    await apply(
      [
        [
          { name: './', type: 'directory' },
          { name: './a/', type: 'directory' },
          { name: './a/x', content: '1' },
          { name: 'b', content: 'file' },
        ],
        [
          { name: 'a/x', content: '2' },
          { name: 'b/c', content: 'dir wins' },
        ],
      ],
      true,
    );
    expect(tree()).toEqual(['a/', 'a/x=2', 'b/', 'b/c=dir wins']);
  });

  it('applies whiteouts to lower layers and opaque markers whatever their order', async () => {
    await apply([
      [
        { name: 'c/old/a', content: 'a' },
        { name: 'c/old/sub/z', content: 'z' },
        { name: 'c/keep', content: 'k' },
        { name: 'c/gone', content: 'g' },
        { name: 'd/e', content: 'e' },
      ],
      [
        { name: 'c/old/b', content: 'b' },
        { name: 'c/old/.wh..wh..opq' },
        { name: 'c/.wh.gone' },
        { name: '.wh.d' },
        { name: 'c/.wh..wh.plnk' },
      ],
    ]);
    expect(tree()).toEqual(['c/', 'c/keep=k', 'c/old/', 'c/old/b=b']);
  });

  it('keeps safe symlinks and hardlinks, rewriting absolute link targets to stay inside', async () => {
    await apply([
      [
        { name: 'etc/real', content: 'r' },
        { name: 'etc/rel', type: 'symlink', linkname: 'real' },
        { name: 'etc/abs', type: 'symlink', linkname: '/etc/real' },
        { name: 'hard', type: 'link', linkname: 'etc/real' },
      ],
    ]);
    expect(tree()).toEqual(['etc/', 'etc/abs -> real', 'etc/real=r', 'etc/rel -> real', 'hard=r']);
  });

  it('writes through a symlinked folder only inside the root', async () => {
    await apply([
      [
        { name: 'lib', type: 'symlink', linkname: '/usr/lib' },
        { name: 'usr/lib/', type: 'directory' },
      ],
      [{ name: 'lib/f', content: 'x' }],
    ]);
    expect(readFileSync(path.join(root, 'usr', 'lib', 'f'), 'utf8')).toBe('x');
  });

  const refused: Array<[string, E[][], string]> = [
    ['../ in a name', [[{ name: 'manifests/../../../evil', content: 'x' }]], '".."'],
    ['an absolute name', [[{ name: '/etc/passwd', content: 'x' }]], 'absolute'],
    [
      'a symlink out of the root',
      [[{ name: 'm/link', type: 'symlink', linkname: '../../../../etc/passwd' }]],
      'points outside',
    ],
    ['a hardlink out of the root', [[{ name: 'h', type: 'link', linkname: '../../etc/shadow' }]], '".."'],
    ['a hardlink to nothing', [[{ name: 'h', type: 'link', linkname: 'missing' }]], 'missing'],
    ['a device file', [[{ name: 'dev/null', type: 'character-device' }]], 'device'],
    [
      'a chain of links that escapes',
      [
        [
          { name: 'd1/d2/y', type: 'symlink', linkname: '../..' },
          { name: 'd1/d2/c', type: 'symlink', linkname: 'y/../..' },
        ],
      ],
      'resolves outside',
    ],
  ];
  for (const [what, layers, why] of refused) {
    it(`refuses ${what}`, async () => {
      const err = await unsafe(layers);
      expect(err.code).toBe('E_UNSAFE_LAYER');
      expect(err.message).toContain(why);
      expect(existsSync(path.join(dir, 'evil'))).toBe(false);
    });
  }

  it('ignores FIFOs', async () => {
    await apply([
      [
        { name: 'p', type: 'fifo' },
        { name: 'f', content: 'ok' },
      ],
    ]);
    expect(tree()).toEqual(['f=ok']);
  });

  it('bounds the unpacked size', async () => {
    const u = new Unpacker(root, 'layer of test', { maxBytes: 10, maxEntries: 100 });
    let err: unknown;
    try {
      await u.applyLayer(once(await tarOf([{ name: 'big', content: 'x'.repeat(11) }])));
    } catch (e) {
      err = e;
    }
    expect(err instanceof OpmError && err.code).toBe('E_UNPACK_LIMIT');
  });
});

describe('Unpacker.applyLayerBytes', () => {
  it('streams a small gzip blob that would inflate past the in-memory bound', async () => {
    const big = 65 * 1024 * 1024;
    const blob = gzipSync(await tarOf([{ name: 'zeros', content: '\0'.repeat(big) }]));
    expect(blob.length).toBeLessThan(1024 * 1024);
    const u = new Unpacker(root, 'layer of test');
    await u.applyLayerBytes(blob);
    u.finish();
    expect(lstatSync(path.join(root, 'zeros')).size).toBe(big);
  });
});

describe.each(['stream', 'in memory'] as const)('Unpacker stopped by its signal (%s)', (m) => {
  it('writes nothing more once the signal is aborted, rejecting with its reason', async () => {
    const stop = new AbortController();
    const u = new Unpacker(root, 'layer of test', undefined, stop.signal);
    const put = (blob: Buffer): Promise<void> =>
      m === 'stream' ? u.applyLayer(once(blob)) : u.applyLayerBytes(blob);
    await put(await tarOf([{ name: 'first.txt', content: 'one' }]));
    const reason = new Error('stopped by the caller');
    stop.abort(reason);
    const err = await put(await tarOf([{ name: 'second.txt', content: 'two' }])).catch((e: unknown) => e);
    expect(err).toBe(reason);
    expect(readdirSync(root)).toEqual(['first.txt']);
  });
});
