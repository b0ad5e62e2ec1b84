/**
 * Values as SQLite stores them (https://www.sqlite.org/fileformat2.html#record_format): varints,
 * records (a header of serial types, then the values), and the order SQLite keeps index keys in:
 * NULL, then numbers by value, then text (by its collation), then blobs byte by byte.
 */
import type { SqlValue } from '../file.js';

/** A SQLite varint of `v` (at most 9 bytes, the ninth carrying 8 bits). */
export function varint(v: bigint | number): Buffer {
  let x = BigInt.asUintN(64, BigInt(v));
  if (x < 0x80n) return Buffer.from([Number(x)]);
  if (x >> 56n !== 0n) {
    const out = Buffer.alloc(9);
    out[8] = Number(x & 0xffn);
    x >>= 8n;
    for (let i = 7; i >= 0; i--) {
      out[i] = Number(x & 0x7fn) | 0x80;
      x >>= 7n;
    }
    return out;
  }
  const bytes: number[] = [];
  while (x > 0n) {
    bytes.unshift(Number(x & 0x7fn));
    x >>= 7n;
  }
  return Buffer.from(bytes.map((b, i) => (i < bytes.length - 1 ? b | 0x80 : b)));
}

export function varintSize(v: bigint | number): number {
  if (typeof v === 'number' && v >= 0 && v < 0x80) return 1;
  return varint(v).length;
}

const utf8 = new TextEncoder();

/** A value with its serial type and body ready to write. */
interface Encoded {
  type: number;
  body: Uint8Array;
}

function intSerial(v: bigint): Encoded {
  if (v === 0n) return { type: 8, body: new Uint8Array(0) };
  if (v === 1n) return { type: 9, body: new Uint8Array(0) };
  const sizes: [number, number][] = [
    [1, 1],
    [2, 2],
    [3, 3],
    [4, 4],
    [6, 5],
    [8, 6],
  ];
  for (const [bytes, type] of sizes) {
    const lim = 1n << BigInt(bytes * 8 - 1);
    if (v >= -lim && v < lim) {
      const body = Buffer.alloc(bytes);
      let x = BigInt.asUintN(bytes * 8, v);
      for (let i = bytes - 1; i >= 0; i--) {
        body[i] = Number(x & 0xffn);
        x >>= 8n;
      }
      return { type, body };
    }
  }
  throw new RangeError(`integer ${v} does not fit in 64 bits`);
}

function encodeValue(v: SqlValue): Encoded {
  if (v === null) return { type: 0, body: new Uint8Array(0) };
  if (typeof v === 'bigint') return intSerial(v);
  if (typeof v === 'number') {
    if (Number.isInteger(v) && !Object.is(v, -0)) return intSerial(BigInt(v));
    const body = Buffer.alloc(8);
    body.writeDoubleBE(v);
    return { type: 7, body };
  }
  if (typeof v === 'string') {
    const body = utf8.encode(v);
    return { type: body.length * 2 + 13, body };
  }
  return { type: v.length * 2 + 12, body: v };
}

/** The record of `values` (https://www.sqlite.org/fileformat2.html#record_format). */
export function encodeRecord(values: readonly SqlValue[]): Buffer {
  const enc = values.map(encodeValue);
  const types = enc.map((e) => varint(e.type));
  const typesLen = types.reduce((n, t) => n + t.length, 0);
  // The header's size counts itself: one byte unless that pushes it past 127.
  let headerSize = typesLen + 1;
  if (headerSize > 127) headerSize = typesLen + varintSize(typesLen + 2);
  const parts: Uint8Array[] = [varint(headerSize), ...types, ...enc.map((e) => e.body)];
  return Buffer.concat(parts);
}

/** How two text values compare under a collation: BINARY (UTF-8 bytes), NOCASE (ASCII folded), RTRIM. */
export type Collation = 'binary' | 'nocase' | 'rtrim';

/** A key column: its collation and direction. */
export interface KeyColumn {
  collation: Collation;
  desc: boolean;
}

/**
 * A value made ready to compare: its class (0 NULL, 1 number, 2 text, 3 blob) and, for text, its
 * bytes under the column's collation, computed once per key rather than once per comparison.
 */
export interface SortValue {
  rank: number;
  num?: number | bigint;
  bytes?: Uint8Array;
}

export function sortValue(v: SqlValue, collation: Collation = 'binary'): SortValue {
  if (v === null) return { rank: 0 };
  if (typeof v === 'number' || typeof v === 'bigint') return { rank: 1, num: v };
  if (typeof v === 'string') return { rank: 2, bytes: foldText(v, collation) };
  return { rank: 3, bytes: v };
}

function compareNumbers(a: number | bigint, b: number | bigint): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  // One of each: a float compared with a 64-bit integer, as exactly as the types allow.
  const [x, y, flip] = typeof a === 'bigint' ? [a, b as number, 1] : [b as bigint, a, -1];
  if (Number.isInteger(y)) {
    const by = BigInt(y);
    return flip * (x < by ? -1 : x > by ? 1 : 0);
  }
  const fx = Number(x);
  return flip * (fx < y ? -1 : fx > y ? 1 : 0);
}

function foldText(s: string, collation: Collation): Buffer {
  if (collation === 'nocase') s = s.replace(/[A-Z]/g, (c) => c.toLowerCase());
  else if (collation === 'rtrim') s = s.replace(/ +$/, '');
  return Buffer.from(s, 'utf8');
}

/** SQLite's ascending order of two prepared values. */
export function compareSortValues(a: SortValue, b: SortValue): number {
  if (a.rank !== b.rank) return a.rank - b.rank;
  if (a.rank === 0) return 0;
  if (a.rank === 1) return compareNumbers(a.num as number | bigint, b.num as number | bigint);
  return Buffer.compare(a.bytes as Uint8Array, b.bytes as Uint8Array);
}

/** The order of two index keys: column by column (DESC turned around), the rowid last. */
export function compareKeys(
  a: readonly SortValue[],
  b: readonly SortValue[],
  cols: readonly KeyColumn[],
): number {
  for (let i = 0; i < a.length; i++) {
    const c = compareSortValues(a[i] as SortValue, b[i] as SortValue);
    if (c !== 0) return cols[i]?.desc === true ? -c : c;
  }
  return 0;
}
