import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DB_META,
  HEADER_SIZE,
  INDEX_META,
  LOCK,
  MAIN_INDEX,
  OVERFLOW_INDEX,
  PogrebError,
  PogrebReader,
  segmentName,
  writePogreb,
} from './pogreb.js';
import { decodeGob } from './gob.js';
import { crc32 } from 'node:zlib';

/** One segment record as pogreb writes it; a delete has the top bit of the value length set. */
function record(key: string, value: string | undefined): Buffer {
  const k = Buffer.from(key);
  const v = Buffer.from(value ?? '');
  const head = Buffer.alloc(6);
  head.writeUInt16LE(k.length, 0);
  head.writeUInt32LE(value === undefined ? 0x80000000 : v.length, 2);
  const body = Buffer.concat([head, k, v]);
  const sum = Buffer.alloc(4);
  sum.writeUInt32LE(crc32(body), 0);
  return Buffer.concat([body, sum]);
}

/** The value of `key` through valueReader: a head of `size` bytes, then the rest a byte at a time. */
function partsOf(db: PogrebReader, key: Uint8Array, size: number): Buffer | undefined {
  const head = new Uint8Array(size);
  const found = db.valueReader(key, head);
  if (found === undefined) return undefined;
  const out = Buffer.alloc(found.value.size);
  out.set(head.subarray(0, found.headLength));
  for (let at = found.headLength; at < out.length; at++) found.value.read(out, at, 1, at);
  return out;
}

const work = mkdtempSync(path.join(tmpdir(), 'opm-pogreb-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let n = 0;
const fresh = (): string => path.join(work, `db-${++n}`);

const entry = (i: number): [Buffer, Buffer] => [
  Buffer.from(`bundles/pkg/ch/bundle.v${i}`),
  Buffer.from(`value ${i} `.repeat(i % 7)),
];

describe('pogreb v0.10.2 store', () => {
  it('writes the files pogreb leaves, with their headers and modes', () => {
    const dir = fresh();
    writePogreb(dir, [entry(1), entry(2)], { hashSeed: 7 });
    expect(readdirSync(dir).sort()).toEqual(
      [segmentName(0, 1), `${segmentName(0, 1)}.pmt`, DB_META, INDEX_META, MAIN_INDEX, OVERFLOW_INDEX].sort(),
    );
    expect(segmentName(0, 1)).toBe('00000-1.psg');
    for (const f of readdirSync(dir)) {
      const buf = readFileSync(path.join(dir, f));
      expect(buf.subarray(0, 8).toString('latin1')).toBe('pogreb\x0e\xfd');
      expect(buf.readUInt32LE(8)).toBe(2);
      expect(statSync(path.join(dir, f)).mode & 0o777).toBe(0o660);
    }
    expect(statSync(dir).mode & 0o777).toBe(0o770);
    expect(decodeGob(readFileSync(path.join(dir, DB_META)).subarray(HEADER_SIZE))).toEqual({ HashSeed: 7n });
  });

  it('reads back every key of a large table, overflow chains included', () => {
    const dir = fresh();
    const entries = Array.from({ length: 5000 }, (_, i) => entry(i));
    writePogreb(dir, entries, { hashSeed: 12345 });
    // 5000 keys at most 70% of 31 slots per bucket: 231 buckets, level 7, 103 split.
    expect(decodeGob(readFileSync(path.join(dir, INDEX_META)).subarray(HEADER_SIZE))).toEqual({
      Level: 7n,
      NumKeys: 5000n,
      NumBuckets: 231n,
      SplitBucketIndex: 103n,
    });
    expect(statSync(path.join(dir, MAIN_INDEX)).size).toBe(HEADER_SIZE + 231 * 512);
    // With this seed some buckets overflow, so the chains are exercised.
    expect(statSync(path.join(dir, OVERFLOW_INDEX)).size).toBeGreaterThan(HEADER_SIZE);
    const db = PogrebReader.open(dir);
    try {
      expect(db.count).toBe(5000);
      for (const [k, v] of entries) expect(db.get(k)?.equals(v)).toBe(true);
      expect(db.get(Buffer.from('bundles/pkg/ch/missing'))).toBeUndefined();
      const keys = db.keys().map((k) => k.toString());
      expect(keys).toEqual(entries.map(([k]) => k.toString()).sort());
      const all = [...db.entries()];
      expect(all.map(([k]) => k.toString())).toEqual(keys);
      expect(all.every(([k, v]) => db.get(k)?.equals(v) === true)).toBe(true);
      // Read in parts: heads longer and shorter than the value, shorter than the key.
      for (const size of [4096, 40, 5]) {
        for (const [k, v] of entries.slice(0, 300)) expect(partsOf(db, k, size)?.equals(v)).toBe(true);
        expect(partsOf(db, Buffer.from('bundles/pkg/ch/missing'), size)).toBeUndefined();
      }
    } finally {
      db.close();
    }
  });

  it('keeps records with CRC-32 checksums in the segment', () => {
    const dir = fresh();
    writePogreb(dir, [[Buffer.from('k'), Buffer.from('v')]], { hashSeed: 1 });
    const seg = readFileSync(path.join(dir, segmentName(0, 1))).subarray(HEADER_SIZE);
    // key length 1, value length 1, "k", "v", then crc32("\x01\x00\x01\x00\x00\x00kv").
    expect(seg.subarray(0, 8).toString('hex')).toBe('0100010000006b76');
    expect(seg.length).toBe(12);
  });

  it('opens an empty database', () => {
    const dir = fresh();
    writePogreb(dir, []);
    const db = PogrebReader.open(dir);
    expect(db.count).toBe(0);
    expect(db.keys()).toEqual([]);
    expect(db.get(Buffer.from('packages.json'))).toBeUndefined();
    db.close();
  });

  it('refuses a key given twice, and files that are not pogreb files', () => {
    expect(() => writePogreb(fresh(), [entry(1), entry(1)])).toThrow(PogrebError);
    const dir = fresh();
    writePogreb(dir, [entry(1)]);
    writeFileSync(path.join(dir, MAIN_INDEX), Buffer.alloc(1024));
    expect(() => PogrebReader.open(dir)).toThrow('main.pix: database is corrupted (bad file header)');
  });

  it('refuses an index pointing past its segment', () => {
    const dir = fresh();
    writePogreb(dir, [entry(3)], { hashSeed: 3 });
    const seg = path.join(dir, segmentName(0, 1));
    writeFileSync(seg, readFileSync(seg).subarray(0, HEADER_SIZE + 8));
    const db = PogrebReader.open(dir);
    expect(() => db.keys()).toThrow(/runs past the end of the file/);
    db.close();
  });

  it('recovers a database its writer left open (lock file) from the segments, as pogreb does', () => {
    const dir = fresh();
    writePogreb(dir, [entry(1)], { hashSeed: 5 });
    const header = readFileSync(path.join(dir, segmentName(0, 1))).subarray(0, HEADER_SIZE);
    // Segment 1 (older): a, b, c; segment 2: b overwritten, a deleted, then a record cut short.
    writeFileSync(
      path.join(dir, segmentName(0, 1)),
      Buffer.concat([header, record('a', '1'), record('b', '2'), record('c', '3')]),
    );
    const torn = record('d', '4').subarray(0, 9);
    writeFileSync(
      path.join(dir, segmentName(1, 2)),
      Buffer.concat([header, record('b', '22'), record('a', undefined), torn]),
    );
    // The index files of an unclosed database may be missing or stale: they are not read.
    rmSync(path.join(dir, INDEX_META));
    writeFileSync(path.join(dir, LOCK), '');
    const db = PogrebReader.open(dir);
    try {
      expect(db.count).toBe(2);
      expect([...db.entries()].map(([k, v]) => `${k.toString()}=${v.toString()}`)).toEqual(['b=22', 'c=3']);
      expect(db.get(Buffer.from('a'))).toBeUndefined();
      expect(db.get(Buffer.from('d'))).toBeUndefined();
      expect(partsOf(db, Buffer.from('b'), 64)?.toString()).toBe('22');
      expect(partsOf(db, Buffer.from('a'), 64)).toBeUndefined();
    } finally {
      db.close();
    }
    // A record whose checksum does not match ends its segment.
    const bad = record('e', '5');
    bad.writeUInt8(bad.readUInt8(bad.length - 1) ^ 0xff, bad.length - 1);
    writeFileSync(path.join(dir, segmentName(1, 2)), Buffer.concat([header, bad, record('f', '6')]));
    const db2 = PogrebReader.open(dir);
    expect(db2.keys().map(String)).toEqual(['a', 'b', 'c']);
    db2.close();
  });
});
