import { createHash } from 'node:crypto';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import tar from 'tar-stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OpmError } from '../errors.js';
import { sourceDateEpoch, writeLayer } from './layer.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'opm-layer-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

interface Seen {
  name: string;
  type: string;
  mode: number;
  uid: number;
  gid: number;
  uname: string;
  gname: string;
  mtime: number;
  content: string;
  linkname: string | null | undefined;
}

async function entries(blob: Buffer): Promise<Seen[]> {
  const out: Seen[] = [];
  const ex = tar.extract();
  const done = new Promise<void>((resolve, reject) => {
    ex.on('entry', (h, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: unknown) => chunks.push(c as Buffer));
      stream.on('end', () => {
        out.push({
          name: h.name,
          type: h.type,
          mode: h.mode,
          uid: h.uid,
          gid: h.gid,
          uname: h.uname,
          gname: h.gname,
          mtime: h.mtime.getTime(),
          content: Buffer.concat(chunks).toString(),
          linkname: h.linkname,
        });
        next();
      });
    });
    ex.on('finish', () => resolve());
    ex.on('error', reject);
  });
  ex.end(gunzipSync(blob));
  await done;
  return out;
}

function catalog(root: string): string {
  const c = path.join(root, 'catalog');
  mkdirSync(path.join(c, 'b-pkg'), { recursive: true });
  mkdirSync(path.join(c, 'a-pkg'), { recursive: true });
  writeFileSync(path.join(c, 'b-pkg', 'index.yaml'), 'schema: olm.package\nname: b\n');
  writeFileSync(path.join(c, 'a-pkg', 'index.json'), '{"schema":"olm.package","name":"a"}\n');
  writeFileSync(path.join(c, 'Z-upper'), 'sorted by bytes: before a-pkg\n');
  chmodSync(path.join(c, 'a-pkg', 'index.json'), 0o640);
  chmodSync(path.join(c, 'b-pkg'), 0o750);
  symlinkSync('a-pkg/index.json', path.join(c, 'link.json'));
  return c;
}

describe('writeLayer', () => {
  it('writes sorted entries, owner 0:0 without names, time 0, modes kept, folders and links included', async () => {
    const c = catalog(dir);
    const layer = await writeLayer([{ dir: c, at: 'configs' }], path.join(dir, 'l.tar.gz'));
    const blob = readFileSync(layer.file);
    const seen = await entries(blob);
    expect(seen.map((e) => [e.name, e.type])).toEqual([
      ['configs', 'directory'],
      ['configs/Z-upper', 'file'],
      ['configs/a-pkg', 'directory'],
      ['configs/a-pkg/index.json', 'file'],
      ['configs/b-pkg', 'directory'],
      ['configs/b-pkg/index.yaml', 'file'],
      ['configs/link.json', 'symlink'],
    ]);
    for (const e of seen) {
      expect([e.uid, e.gid, e.uname, e.gname, e.mtime]).toEqual([0, 0, '', '', 0]);
    }
    expect(seen.find((e) => e.name === 'configs/a-pkg/index.json')?.mode).toBe(0o640);
    expect(seen.find((e) => e.name === 'configs/b-pkg')?.mode).toBe(0o750);
    expect(seen.find((e) => e.name === 'configs/link.json')?.linkname).toBe('a-pkg/index.json');
    expect(seen.find((e) => e.name === 'configs/b-pkg/index.yaml')?.content).toBe(
      'schema: olm.package\nname: b\n',
    );
    // The digests: the blob's as written, the tar's (diff_id) of what gunzip gives back.
    expect(layer.digest).toBe(`sha256:${createHash('sha256').update(blob).digest('hex')}`);
    expect(layer.diffId).toBe(`sha256:${createHash('sha256').update(gunzipSync(blob)).digest('hex')}`);
    expect(layer.size).toBe(blob.length);
    // gzip header: no time (bytes 4-7), system "unknown" (byte 9).
    expect([...blob.subarray(4, 8)]).toEqual([0, 0, 0, 0]);
    expect(blob[9]).toBe(0xff);
  });

  it('gives the same digest for the same content whatever the files’ times, and another for other content', async () => {
    const c = catalog(dir);
    const first = await writeLayer([{ dir: c, at: 'configs' }], path.join(dir, '1.tar.gz'));
    utimesSync(path.join(c, 'b-pkg', 'index.yaml'), new Date(2020, 1, 1), new Date(2021, 1, 1));
    const second = await writeLayer([{ dir: c, at: 'configs' }], path.join(dir, '2.tar.gz'));
    expect(second.digest).toBe(first.digest);
    writeFileSync(path.join(c, 'b-pkg', 'index.yaml'), 'schema: olm.package\nname: c\n');
    const third = await writeLayer([{ dir: c, at: 'configs' }], path.join(dir, '3.tar.gz'));
    expect(third.digest).not.toBe(first.digest);
  });

  it('gives parents entries of their own only when asked, and every time SOURCE_DATE_EPOCH', async () => {
    const c = catalog(dir);
    chmodSync(c, 0o700);
    const epoch = sourceDateEpoch({ SOURCE_DATE_EPOCH: '1700000000' });
    const layer = await writeLayer([{ dir: c, at: 'tmp/cache', parents: true }], path.join(dir, 'p.tar.gz'), {
      ...(epoch !== undefined ? { epoch } : {}),
    });
    const seen = await entries(readFileSync(layer.file));
    expect(seen.slice(0, 2).map((e) => [e.name, e.mode])).toEqual([
      ['tmp', 0o755],
      ['tmp/cache', 0o700],
    ]);
    expect(new Set(seen.map((e) => e.mtime))).toEqual(new Set([1_700_000_000_000]));
    const without = await writeLayer([{ dir: c, at: 'tmp/cache' }], path.join(dir, 'n.tar.gz'));
    expect((await entries(readFileSync(without.file)))[0]?.name).toBe('tmp/cache');
  });

  it('gives a folder’s entries its owner, and the folders above it root’s', async () => {
    const c = catalog(dir);
    const layer = await writeLayer(
      [{ dir: c, at: 'tmp/cache', parents: true, owner: { uid: 1001, gid: 0 } }],
      path.join(dir, 'o.tar.gz'),
    );
    const seen = await entries(readFileSync(layer.file));
    expect(seen.map((e) => [e.name, e.uid, e.gid, e.uname, e.gname])).toEqual([
      ['tmp', 0, 0, '', ''],
      ['tmp/cache', 1001, 0, '', ''],
      ['tmp/cache/Z-upper', 1001, 0, '', ''],
      ['tmp/cache/a-pkg', 1001, 0, '', ''],
      ['tmp/cache/a-pkg/index.json', 1001, 0, '', ''],
      ['tmp/cache/b-pkg', 1001, 0, '', ''],
      ['tmp/cache/b-pkg/index.yaml', 1001, 0, '', ''],
      ['tmp/cache/link.json', 1001, 0, '', ''],
    ]);
  });

  it('refuses a SOURCE_DATE_EPOCH that is not a number of seconds, and a missing folder, in one line', async () => {
    expect(sourceDateEpoch({})).toBeUndefined();
    expect(() => sourceDateEpoch({ SOURCE_DATE_EPOCH: 'yesterday' })).toThrow(
      /^SOURCE_DATE_EPOCH="yesterday" is not a whole number of seconds since 1970$/,
    );
    await expect(
      writeLayer([{ dir: path.join(dir, 'nope'), at: 'configs' }], path.join(dir, 'x')),
    ).rejects.toThrow(OpmError);
  });
});
