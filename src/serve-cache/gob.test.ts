import { describe, expect, it } from 'vitest';
import { decodeGob, encodeGob, GobError, type GobStructType } from './gob.js';

const INDEX: GobStructType = {
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

describe('gob streams of pogreb metadata', () => {
  it('round-trips every field kind, large numbers and negative slice items included', () => {
    const value = {
      Level: 5n,
      NumKeys: 0xfffffffen,
      NumBuckets: 40n,
      SplitBucketIndex: 8n,
      FreeOverflowBuckets: [512n, 1024n, -3n],
    };
    expect(decodeGob(encodeGob(INDEX, value))).toEqual(value);
  });

  it('leaves zero fields out, as Go does, and decodes them as absent', () => {
    const enc = encodeGob(INDEX, {
      Level: 0n,
      NumKeys: 4n,
      NumBuckets: 1n,
      SplitBucketIndex: 0n,
      FreeOverflowBuckets: [],
    });
    expect(decodeGob(enc)).toEqual({ NumKeys: 4n, NumBuckets: 1n });
    // The value message is the last: length, type id 66 (as 0xff 0x84), field deltas, end.
    expect([...enc.subarray(enc.length - 8)]).toEqual([0x07, 0xff, 0x84, 0x02, 0x04, 0x01, 0x01, 0x00]);
  });

  it('reads booleans and streams whose type ids differ from a fresh process', () => {
    const t: GobStructType = {
      name: 'segmentMeta',
      id: 90,
      fields: [
        { name: 'Full', type: 'bool' },
        { name: 'PutRecords', type: 'uint' },
      ],
    };
    expect(decodeGob(encodeGob(t, { Full: true, PutRecords: 300n }))).toEqual({
      Full: true,
      PutRecords: 300n,
    });
  });

  it('refuses a truncated stream and a stream without a value', () => {
    const enc = encodeGob(INDEX, { NumKeys: 1n });
    expect(() => decodeGob(enc.subarray(0, enc.length - 3))).toThrow(GobError);
    expect(() => decodeGob(enc.subarray(0, enc[0] as number))).toThrow(GobError);
  });
});
