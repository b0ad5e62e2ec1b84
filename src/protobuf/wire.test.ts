/**
 * Reading fields as protobuf-go reads a request: groups and fields on an unexpected wire type are
 * unknown fields (skipped), other faults throw.
 */
import { describe, expect, it } from 'vitest';
import { decodeStrings, ProtoDecodeError, readFields } from './wire.js';

const bytes = (...b: number[]): Uint8Array => Uint8Array.from(b);

describe('readFields', () => {
  it('skips a group whole, nested groups included', () => {
    // field 1 group { field 2 group { field 1 varint 1 } } then field 1 string "a"
    const fields = [...readFields(bytes(0x0b, 0x13, 0x08, 0x01, 0x14, 0x0c, 0x0a, 0x01, 0x61))];
    expect(fields.map((f) => [f.field, f.wire])).toEqual([[1, 2]]);
  });

  it('throws on an end without its start, a mismatched end, a group cut short', () => {
    for (const b of [bytes(0x0c), bytes(0x0b, 0x14), bytes(0x0b, 0x08, 0x01)]) {
      expect(() => [...readFields(b)]).toThrow(ProtoDecodeError);
    }
  });
});

describe('decodeStrings', () => {
  it('a known field on another wire type is skipped, as an unknown field', () => {
    expect(decodeStrings(bytes(0x08, 0x01, 0x12, 0x01, 0x62), { 1: 'a', 2: 'b' })).toEqual({ a: '', b: 'b' });
  });

  it('invalid UTF-8 in a string field throws', () => {
    expect(() => decodeStrings(bytes(0x0a, 0x02, 0xff, 0xfe), { 1: 'a' })).toThrow(/invalid UTF-8/);
  });
});
