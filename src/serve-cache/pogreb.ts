/**
 * A pogreb v0.10.2 key/value store (github.com/akrylysov/pogreb), the database under
 * `<cacheDir>/pogreb.v1/db/` of opm's cache, read and written in its own file format:
 *
 * - every file starts with a 512-byte header: the signature `pogreb\x0e\xfd` and format version 2;
 * - segments `<id:05d>-<sequence>.psg` hold records: key length (2 bytes), value length (4 bytes,
 *   the top bit marking a delete), key, value, CRC-32 (IEEE) of all of it, little-endian;
 * - `main.pix` is a linear-hashing table of 512-byte buckets of 31 slots (hash, segment id, key
 *   length, value length, record offset) and the offset of an overflow bucket in `overflow.pix`;
 *   the bucket of a key is its MurmurHash3 (seeded) masked to the table's level, split buckets
 *   taking one bit more;
 * - `db.pmt` (the hash seed), `index.pmt` (level, key and bucket counts, split index, free overflow
 *   buckets) and `<segment>.pmt` (record counts) are gob streams after the header.
 *
 * The reader trusts the index, as pogreb does: a slot points at the live record of its key, so
 * overwritten and deleted records left in segments are never seen. A database whose writer did not
 * close it (its `lock` file left behind) is read as pogreb recovers it: from the segments' records.
 * It reads with positional reads, so a large cache is not loaded whole.
 */
import {
  closeSync,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  writeFileSync,
  writeSync,
  chmodSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { decodeGob, encodeGob, GobError, type GobStructType } from './gob.js';
import { murmur3 } from './hash.js';
import { compareBytes } from './bytes.js';

export const HEADER_SIZE = 512;
const BUCKET_SIZE = 512;
const SLOTS_PER_BUCKET = 31;
const SLOT_SIZE = 16;
const FORMAT_VERSION = 2;
const SIGNATURE = Uint8Array.from([0x70, 0x6f, 0x67, 0x72, 0x65, 0x62, 0x0e, 0xfd]);
const LOAD_FACTOR = 0.7;
const MAX_KEY_LENGTH = 0xffff;
const MAX_VALUE_LENGTH = 512 * 1024 * 1024;

export const MAIN_INDEX = 'main.pix';
export const OVERFLOW_INDEX = 'overflow.pix';
export const INDEX_META = 'index.pmt';
export const DB_META = 'db.pmt';
/** Present while a writer has the database open; left behind when it did not close it. */
export const LOCK = 'lock';
const SEGMENT_EXT = '.psg';
const META_EXT = '.pmt';

/** Go's struct types behind the metadata files, with the type ids a fresh opm process gives them. */
const DB_META_TYPE: GobStructType = { name: 'dbMeta', id: 64, fields: [{ name: 'HashSeed', type: 'uint' }] };
const SEGMENT_META_TYPE: GobStructType = {
  name: 'segmentMeta',
  id: 65,
  fields: [
    { name: 'Full', type: 'bool' },
    { name: 'PutRecords', type: 'uint' },
    { name: 'DeleteRecords', type: 'uint' },
    { name: 'DeletedKeys', type: 'uint' },
    { name: 'DeletedBytes', type: 'uint' },
  ],
};
const INDEX_META_TYPE: GobStructType = {
  name: 'indexMeta',
  id: 66,
  sliceId: 67,
  fields: [
    { name: 'Level', type: 'uint' },
    { name: 'NumKeys', type: 'uint' },
    { name: 'NumBuckets', type: 'uint' },
    { name: 'SplitBucketIndex', type: 'uint' },
    { name: 'FreeOverflowBuckets', type: '[]int64' },
  ],
};

/** A pogreb database that cannot be read: what is wrong and in which file. */
export class PogrebError extends Error {}

function header(): Buffer {
  const h = Buffer.alloc(HEADER_SIZE);
  h.set(SIGNATURE, 0);
  h.writeUInt32LE(FORMAT_VERSION, 8);
  return h;
}

function checkHeader(buf: Uint8Array, name: string): void {
  if (buf.length < HEADER_SIZE || !SIGNATURE.every((b, i) => buf[i] === b))
    throw new PogrebError(`${name}: database is corrupted (bad file header)`);
}

/** Which bucket of a table with `level` and `split` holds `hash` (pogreb's index.bucketIndex). */
function bucketIndex(hash: number, level: number, split: number): number {
  const mask = (n: number): number => (n >= 32 ? 0xffffffff : 2 ** n - 1);
  const b = (hash & mask(level)) >>> 0;
  return b < split ? (hash & mask(level + 1)) >>> 0 : b;
}

/** Segment file name: `00000-1.psg` for id 0, sequence 1. */
export function segmentName(id: number, sequence: number): string {
  return `${String(id).padStart(5, '0')}-${sequence}${SEGMENT_EXT}`;
}

interface Slot {
  hash: number;
  segment: number;
  keySize: number;
  valueSize: number;
  offset: number;
}

function readSlot(buf: Buffer, at: number): Slot {
  return {
    hash: buf.readUInt32LE(at),
    segment: buf.readUInt16LE(at + 4),
    keySize: buf.readUInt16LE(at + 6),
    valueSize: buf.readUInt32LE(at + 8),
    offset: buf.readUInt32LE(at + 12),
  };
}

function readGobFile(dir: string, name: string): Record<string, unknown> {
  const buf = readFileSync(path.join(dir, name));
  checkHeader(buf, name);
  try {
    return decodeGob(buf.subarray(HEADER_SIZE));
  } catch (err) {
    if (err instanceof GobError) throw new PogrebError(`${name}: ${err.message}`);
    throw err;
  }
}

/** Read `length` bytes at file `position` into `into` from `at`. */
function readInto(
  fd: number,
  into: Uint8Array,
  at: number,
  length: number,
  position: number,
  name: string,
): void {
  let done = 0;
  while (done < length) {
    const n = readSync(fd, into, at + done, length - done, position + done);
    if (n === 0) throw new PogrebError(`${name}: short read`);
    done += n;
  }
}

function readFully(fd: number, buf: Buffer, position: number, name: string): void {
  let done = 0;
  while (done < buf.length) {
    const n = readSync(fd, buf, done, buf.length - done, position + done);
    if (n === 0) throw new PogrebError(`${name}: short read`);
    done += n;
  }
}

function asNumber(v: unknown): number {
  return typeof v === 'bigint' ? Number(v) : 0;
}

/** A stored value, read in parts. */
export interface StoredValue {
  readonly size: number;
  /** Read `length` bytes of the value from `position` into `into` at `at`. */
  read(into: Uint8Array, at: number, length: number, position: number): void;
}

/** An open pogreb database, read only. */
export class PogrebReader {
  readonly hashSeed: number;
  readonly level: number;
  readonly numBuckets: number;
  readonly splitBucketIndex: number;
  /** Keys as the index counts them. */
  readonly count: number;
  private readonly main: Buffer;
  private readonly overflow: Buffer;
  private readonly segments = new Map<number, { fd: number; size: number; name: string; sequence: number }>();
  /**
   * The live records by key (latin1 of its bytes) when the database was left open by its writer
   * (a `lock` file): pogreb then rebuilds its index from the segments, and so does this reader.
   */
  private readonly recovered: Map<string, Slot> | undefined;

  readonly dir: string;

  private constructor(dir: string) {
    this.dir = dir;
    this.openSegments();
    if (existsSync(path.join(dir, LOCK))) {
      this.recovered = this.replaySegments();
      this.main = Buffer.alloc(HEADER_SIZE + BUCKET_SIZE);
      this.overflow = Buffer.alloc(HEADER_SIZE);
      this.level = 0;
      this.numBuckets = 1;
      this.splitBucketIndex = 0;
      this.count = this.recovered.size;
      this.hashSeed = 0;
      return;
    }
    const main = readFileSync(path.join(dir, MAIN_INDEX));
    checkHeader(main, MAIN_INDEX);
    // A table never written holds only its header: pogreb starts it with one empty bucket.
    this.main = main.length === HEADER_SIZE ? Buffer.concat([main, Buffer.alloc(BUCKET_SIZE)]) : main;
    this.overflow = readFileSync(path.join(dir, OVERFLOW_INDEX));
    checkHeader(this.overflow, OVERFLOW_INDEX);
    if (main.length === HEADER_SIZE) {
      this.level = 0;
      this.numBuckets = 1;
      this.splitBucketIndex = 0;
      this.count = 0;
      this.hashSeed = 0;
    } else {
      const im = readGobFile(dir, INDEX_META);
      this.level = asNumber(im.Level);
      this.numBuckets = asNumber(im.NumBuckets);
      this.splitBucketIndex = asNumber(im.SplitBucketIndex);
      this.count = asNumber(im.NumKeys);
      if (this.numBuckets < 1 || HEADER_SIZE + this.numBuckets * BUCKET_SIZE > this.main.length)
        throw new PogrebError(`${INDEX_META}: ${this.numBuckets} buckets do not fit in ${MAIN_INDEX}`);
      this.hashSeed = this.count === 0 ? 0 : asNumber(readGobFile(dir, DB_META).HashSeed);
    }
  }

  private openSegments(): void {
    for (const name of readdirSync(this.dir)) {
      if (path.extname(name) !== SEGMENT_EXT) continue;
      const m = /^(\d+)(?:-(\d+))?\.psg$/.exec(name);
      const id = m === null ? NaN : Number(m[1]);
      if (!Number.isInteger(id) || id > 0xffff) throw new PogrebError(`${name}: not a segment name`);
      const fd = openSync(path.join(this.dir, name), 'r');
      const size = fstatSync(fd).size;
      this.segments.set(id, { fd, size, name, sequence: Number(m?.[2] ?? 0) });
      const head = Buffer.alloc(HEADER_SIZE);
      if (size > 0) readSync(fd, head, 0, HEADER_SIZE, 0);
      if (size > 0) checkHeader(size >= HEADER_SIZE ? head : head.subarray(0, size), name);
    }
  }

  /**
   * pogreb's recovery: every record of every segment, oldest segment first, a put setting its key
   * and a delete removing it; a segment ends at its first short or corrupt record (pogreb truncates
   * it there; this reader leaves the file alone).
   */
  private replaySegments(): Map<string, Slot> {
    const live = new Map<string, Slot>();
    const order = [...this.segments.entries()].sort((a, b) => a[1].sequence - b[1].sequence || a[0] - b[0]);
    const head = Buffer.alloc(6);
    for (const [id, seg] of order) {
      let off = HEADER_SIZE;
      while (off + 6 <= seg.size) {
        readFully(seg.fd, head, off, seg.name);
        const keySize = head.readUInt16LE(0);
        const raw = head.readUInt32LE(2);
        const deleted = raw >= 0x80000000;
        const valueSize = raw % 0x80000000;
        const total = 6 + keySize + valueSize + 4;
        if (off + total > seg.size) break;
        const rec = Buffer.allocUnsafe(total);
        readFully(seg.fd, rec, off, seg.name);
        if (crc32(rec.subarray(0, total - 4)) !== rec.readUInt32LE(total - 4)) break;
        const key = rec.toString('latin1', 6, 6 + keySize);
        if (deleted) live.delete(key);
        else live.set(key, { hash: 0, segment: id, keySize, valueSize, offset: off });
        off += total;
      }
    }
    return live;
  }

  /** Every live slot. */
  private *slots(): Generator<Slot> {
    if (this.recovered !== undefined) {
      yield* this.recovered.values();
      return;
    }
    for (let b = 0; b < this.numBuckets; b++) yield* this.chain(b);
  }

  /** Open the database in `dir` (the files pogreb writes must be there). */
  static open(dir: string): PogrebReader {
    return new PogrebReader(dir);
  }

  close(): void {
    for (const s of this.segments.values()) closeSync(s.fd);
    this.segments.clear();
  }

  /** Every slot of one bucket chain, starting at main-table bucket `index`. */
  private *chain(index: number): Generator<Slot> {
    let file = this.main;
    let off = HEADER_SIZE + index * BUCKET_SIZE;
    const seen = new Set<number>();
    for (;;) {
      if (off + BUCKET_SIZE > file.length)
        throw new PogrebError(`${file === this.main ? MAIN_INDEX : OVERFLOW_INDEX}: bucket past end of file`);
      for (let i = 0; i < SLOTS_PER_BUCKET; i++) {
        const sl = readSlot(file, off + i * SLOT_SIZE);
        if (sl.offset === 0) break;
        yield sl;
      }
      const next = Number(file.readBigInt64LE(off + SLOTS_PER_BUCKET * SLOT_SIZE));
      if (next === 0) return;
      if (seen.has(next)) throw new PogrebError(`${OVERFLOW_INDEX}: overflow buckets form a loop`);
      seen.add(next);
      file = this.overflow;
      off = next;
    }
  }

  private readRecord(sl: Slot, withValue: boolean): { key: Buffer; value: Buffer } {
    const seg = this.segments.get(sl.segment);
    if (seg === undefined) throw new PogrebError(`index points at segment ${sl.segment}, which is missing`);
    const start = sl.offset + 6;
    const len = sl.keySize + (withValue ? sl.valueSize : 0);
    if (start + sl.keySize + sl.valueSize > seg.size)
      throw new PogrebError(`${seg.name}: record at offset ${sl.offset} runs past the end of the file`);
    const buf = Buffer.allocUnsafe(len);
    readFully(seg.fd, buf, start, seg.name);
    return { key: buf.subarray(0, sl.keySize), value: buf.subarray(sl.keySize) };
  }

  /**
   * The value stored for `key`, read in parts when asked, or undefined: for a reader that needs a
   * few fields of a large value (ListBundles skips a bundle's manifests unread). Its first bytes are
   * read with the key, into `head` from its start (as many as fit): `headLength` of them.
   */
  valueReader(key: Uint8Array, head: Uint8Array): { value: StoredValue; headLength: number } | undefined {
    if (this.recovered !== undefined) {
      const sl = this.recovered.get(
        Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1'),
      );
      return sl === undefined ? undefined : this.readHead(sl, key, head);
    }
    const h = murmur3(key, this.hashSeed);
    for (const sl of this.chain(bucketIndex(h, this.level, this.splitBucketIndex))) {
      if (sl.hash !== h || sl.keySize !== key.length) continue;
      const found = this.readHead(sl, key, head);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /** valueReader of slot `sl` when its key is `key`. */
  private readHead(
    sl: Slot,
    key: Uint8Array,
    head: Uint8Array,
  ): { value: StoredValue; headLength: number } | undefined {
    const seg = this.segments.get(sl.segment);
    if (seg === undefined) throw new PogrebError(`index points at segment ${sl.segment}, which is missing`);
    const start = sl.offset + 6;
    if (start + sl.keySize + sl.valueSize > seg.size)
      throw new PogrebError(`${seg.name}: record at offset ${sl.offset} runs past the end of the file`);
    const valueStart = start + sl.keySize;
    let n = Math.min(head.length, sl.keySize + sl.valueSize);
    if (n < sl.keySize) {
      // A key longer than the head: read and compared on its own.
      if (!this.readRecord(sl, false).key.equals(key)) return undefined;
      n = sl.keySize;
    } else {
      readInto(seg.fd, head, 0, n, start, seg.name);
      for (let i = 0; i < sl.keySize; i++) if (head[i] !== key[i]) return undefined;
      head.copyWithin(0, sl.keySize, n);
    }
    return {
      value: {
        size: sl.valueSize,
        read: (into, at, length, position) =>
          readInto(seg.fd, into, at, length, valueStart + position, seg.name),
      },
      headLength: n - sl.keySize,
    };
  }

  /** The value stored for `key`, or undefined. */
  get(key: Uint8Array): Buffer | undefined {
    if (this.recovered !== undefined) {
      const sl = this.recovered.get(
        Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1'),
      );
      return sl === undefined ? undefined : this.readRecord(sl, true).value;
    }
    const h = murmur3(key, this.hashSeed);
    for (const sl of this.chain(bucketIndex(h, this.level, this.splitBucketIndex))) {
      if (sl.hash !== h || sl.keySize !== key.length) continue;
      const rec = this.readRecord(sl, true);
      if (rec.key.equals(key)) return rec.value;
    }
    return undefined;
  }

  /** Every key, in byte order. */
  keys(): Buffer[] {
    const out: Buffer[] = [];
    for (const sl of this.slots()) out.push(this.readRecord(sl, false).key);
    return out.sort(compareBytes);
  }

  /**
   * Every key with its value as entries() gives them, but both are views into one buffer of this
   * reader, valid until the iteration goes on: for a reader that uses each entry at once (the
   * digest hashes tens of MB of values, which would otherwise each be a buffer of their own).
   */
  *entryViews(): Generator<[Buffer, Buffer]> {
    let buf = Buffer.allocUnsafe(64 * 1024);
    for (const sl of this.slotsInKeyOrder()) {
      const seg = this.segments.get(sl.segment);
      if (seg === undefined) throw new PogrebError(`index points at segment ${sl.segment}, which is missing`);
      const len = sl.keySize + sl.valueSize;
      if (sl.offset + 6 + len > seg.size)
        throw new PogrebError(`${seg.name}: record at offset ${sl.offset} runs past the end of the file`);
      if (buf.length < len) buf = Buffer.allocUnsafe(Math.max(len, buf.length * 2));
      readFully(seg.fd, buf.subarray(0, len), sl.offset + 6, seg.name);
      yield [buf.subarray(0, sl.keySize), buf.subarray(sl.keySize, len)];
    }
  }

  /** Every key with its value, keys in byte order; values are read as the iteration reaches them. */
  *entries(): Generator<[Buffer, Buffer]> {
    for (const sl of this.slotsInKeyOrder()) {
      const rec = this.readRecord(sl, true);
      yield [rec.key, rec.value];
    }
  }

  /** Every slot, ordered by its key's bytes (the keys are read, the values are not). */
  private slotsInKeyOrder(): Slot[] {
    const slots: Slot[] = [];
    const keys: Buffer[] = [];
    for (const sl of this.slots()) {
      slots.push(sl);
      keys.push(this.readRecord(sl, false).key);
    }
    const order = keys.map((_, i) => i).sort((a, b) => compareBytes(keys[a] as Buffer, keys[b] as Buffer));
    return order.map((i) => slots[i] as Slot);
  }
}

export interface PogrebWriteOptions {
  /** The seed of the key hash; pogreb takes a random one for a new database, and so does this by default. */
  hashSeed?: number;
  /** Mode of the files (default 0o660, as opm leaves them); directories get 0o770. */
  fileMode?: number;
}

/**
 * Writes a new pogreb database into a directory that holds none: each put appends its record to
 * the one segment `00000-1.psg` at once (only the slots stay in memory), and `close` writes the
 * index, sized as pogreb grows it (the fewest buckets keeping 31-slot buckets at most 70% full),
 * and the metadata files; no lock file is left. The result is what pogreb itself leaves after
 * opening an empty directory, putting the same entries and closing, except for where each slot sits
 * within its bucket chain, which pogreb's reads do not depend on. A failure removes nothing: the
 * caller writes the cache's digest only after `close`.
 */
export class PogrebWriter {
  private readonly dir: string;
  private readonly seed: number;
  private readonly fileMode: number;
  private fd: number | undefined;
  private offset = HEADER_SIZE;
  private readonly slots: Slot[] = [];
  private readonly seen = new Set<string>();

  constructor(dir: string, options: PogrebWriteOptions = {}) {
    this.dir = dir;
    this.seed = options.hashSeed ?? randomBytes(4).readUInt32LE(0);
    this.fileMode = options.fileMode ?? 0o660;
    mkdirSync(dir, { recursive: true, mode: 0o770 });
    this.fd = openSync(path.join(dir, segmentName(0, 1)), 'wx', this.fileMode);
    writeSync(this.fd, header());
  }

  /** Append one entry; each key once. */
  put(key: Uint8Array, value: Uint8Array): void {
    if (this.fd === undefined) throw new PogrebError('database is closed');
    if (key.length > MAX_KEY_LENGTH) throw new PogrebError('key is too large');
    if (value.length > MAX_VALUE_LENGTH) throw new PogrebError('value is too large');
    const id = Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');
    if (this.seen.has(id)) throw new PogrebError(`key ${JSON.stringify(id)} given twice`);
    this.seen.add(id);
    const size = 6 + key.length + value.length + 4;
    if (this.offset + size > 0xffffffff) throw new PogrebError('segment would exceed 4 GiB');
    const head = Buffer.allocUnsafe(6);
    head.writeUInt16LE(key.length, 0);
    head.writeUInt32LE(value.length, 2);
    const sum = Buffer.allocUnsafe(4);
    sum.writeUInt32LE(crc32(value, crc32(key, crc32(head))), 0);
    for (const part of [head, key, value, sum]) writeAll(this.fd, part);
    this.slots.push({
      hash: murmur3(key, this.seed),
      segment: 0,
      keySize: key.length,
      valueSize: value.length,
      offset: this.offset,
    });
    this.offset += size;
  }

  /** Write the index and the metadata files, and close the segment. */
  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
    const slots = this.slots;
    const n = slots.length;
    // Linear hashing as pogreb grows it: one bucket, one split whenever a put leaves the table
    // more than 70% full; the table's level and split index follow from the bucket count.
    let numBuckets = 1;
    while (n / (numBuckets * SLOTS_PER_BUCKET) > LOAD_FACTOR) numBuckets++;
    let level = 0;
    while (2 ** (level + 1) <= numBuckets) level++;
    const split = numBuckets - 2 ** level;

    const byBucket: Slot[][] = Array.from({ length: numBuckets }, () => []);
    for (const sl of slots) (byBucket[bucketIndex(sl.hash, level, split)] as Slot[]).push(sl);
    const main = Buffer.alloc(HEADER_SIZE + numBuckets * BUCKET_SIZE);
    header().copy(main);
    const overflowBuckets: Buffer[] = [header()];
    let overflowSize = HEADER_SIZE;
    byBucket.forEach((list, b) => {
      let buf = main;
      let off = HEADER_SIZE + b * BUCKET_SIZE;
      for (let i = 0; i < list.length; i++) {
        const slotIdx = i % SLOTS_PER_BUCKET;
        if (i > 0 && slotIdx === 0) {
          // The bucket is full: chain an overflow bucket.
          const next = Buffer.alloc(BUCKET_SIZE);
          buf.writeBigInt64LE(BigInt(overflowSize), off + SLOTS_PER_BUCKET * SLOT_SIZE);
          overflowBuckets.push(next);
          buf = next;
          off = 0;
          overflowSize += BUCKET_SIZE;
        }
        putSlot(buf, off + slotIdx * SLOT_SIZE, list[i] as Slot);
      }
    });

    const write = (name: string, data: Uint8Array): void => {
      const file = path.join(this.dir, name);
      writeFileSync(file, data, { mode: this.fileMode });
      chmodSync(file, this.fileMode);
    };
    const gobFile = (t: GobStructType, v: Parameters<typeof encodeGob>[1]): Buffer =>
      Buffer.concat([header(), encodeGob(t, v)]);
    const seg = segmentName(0, 1);
    chmodSync(path.join(this.dir, seg), this.fileMode);
    write(seg + META_EXT, gobFile(SEGMENT_META_TYPE, { PutRecords: BigInt(n) }));
    write(MAIN_INDEX, main);
    write(OVERFLOW_INDEX, Buffer.concat(overflowBuckets));
    write(
      INDEX_META,
      gobFile(INDEX_META_TYPE, {
        Level: BigInt(level),
        NumKeys: BigInt(n),
        NumBuckets: BigInt(numBuckets),
        SplitBucketIndex: BigInt(split),
      }),
    );
    write(DB_META, gobFile(DB_META_TYPE, { HashSeed: BigInt(this.seed) }));
    chmodSync(this.dir, 0o770);
  }
}

function putSlot(buf: Buffer, at: number, sl: Slot): void {
  buf.writeUInt32LE(sl.hash, at);
  buf.writeUInt16LE(sl.segment, at + 4);
  buf.writeUInt16LE(sl.keySize, at + 6);
  buf.writeUInt32LE(sl.valueSize, at + 8);
  buf.writeUInt32LE(sl.offset, at + 12);
}

function writeAll(fd: number, data: Uint8Array): void {
  let done = 0;
  while (done < data.length) done += writeSync(fd, data, done, data.length - done);
}

/** Write a new database holding `entries` (each key once) into `dir` (see PogrebWriter). */
export function writePogreb(
  dir: string,
  entries: Iterable<readonly [Uint8Array, Uint8Array]>,
  options: PogrebWriteOptions = {},
): void {
  const w = new PogrebWriter(dir, options);
  for (const [k, v] of entries) w.put(k, v);
  w.close();
}
