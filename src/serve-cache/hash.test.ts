import { describe, expect, it } from 'vitest';
import { Fnv1a64, murmur3 } from './hash.js';
import { seededRandom } from '../../test/seeded-random.js';

/** FNV-1a 64 by its definition, in BigInt: the slow reference the limb arithmetic must match. */
function fnvReference(data: Uint8Array): string {
  let h = 0xcbf29ce484222325n;
  for (const b of data) {
    h ^= BigInt(b);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, '0');
}

describe('murmur3 (x86, 32-bit, seeded)', () => {
  it('matches the published vectors for every tail length', () => {
    // MurmurHash3_x86_32 test vectors (also pogreb's own): empty input with seed 0 and 1, then 1..5 bytes.
    expect(murmur3(new Uint8Array(), 0)).toBe(0);
    expect(murmur3(new Uint8Array(), 1)).toBe(1364076727);
    expect(murmur3(Uint8Array.of(1), 0)).toBe(3831157163);
    expect(murmur3(Uint8Array.of(1, 2), 0)).toBe(1690789502);
    expect(murmur3(Uint8Array.of(1, 2, 3), 0)).toBe(2161234436);
    expect(murmur3(Uint8Array.of(1, 2, 3, 4), 0)).toBe(1043635621);
    expect(murmur3(Uint8Array.of(1, 2, 3, 4, 5), 0)).toBe(2727459272);
  });

  it('returns unsigned values and depends on the seed', () => {
    const key = Buffer.from('bundles/etcd/alpha/etcd.v0.9.2');
    expect(murmur3(key, 0x534548b2)).toBeGreaterThanOrEqual(0);
    expect(murmur3(key, 1)).not.toBe(murmur3(key, 2));
  });
});

describe('FNV-1a 64', () => {
  it('matches the published vectors', () => {
    expect(new Fnv1a64().hex()).toBe('cbf29ce484222325');
    expect(new Fnv1a64().update(Buffer.from('a')).hex()).toBe('af63dc4c8601ec8c');
    expect(new Fnv1a64().update(Buffer.from('foobar')).hex()).toBe('85944171f73967e8');
  });

  it('matches the BigInt definition on random data, fed whole or in pieces', () => {
    const rnd = seededRandom(26);
    const data = Uint8Array.from({ length: 5000 }, () => Math.floor(rnd() * 256));
    const whole = new Fnv1a64().update(data).hex();
    expect(whole).toBe(fnvReference(data));
    const pieces = new Fnv1a64();
    for (let i = 0; i < data.length; i += 777) pieces.update(data.subarray(i, i + 777));
    expect(pieces.hex()).toBe(whole);
  });

  it('gives the same state whichever path hashes a piece (short pieces, long pieces, pieces past one chunk)', () => {
    const rnd = seededRandom(27);
    const data = Uint8Array.from({ length: 200_000 }, () => Math.floor(rnd() * 256));
    const whole = new Fnv1a64().update(data).hex();
    expect(whole).toBe(fnvReference(data));
    // Sizes below, at and above the cut between the two paths, and one across two chunks.
    const sizes = [1, 63, 64, 65, 1000, 70_000, 7];
    const mixed = new Fnv1a64();
    let at = 0;
    for (let i = 0; at < data.length; i++) {
      const n = sizes[i % sizes.length] as number;
      mixed.update(data.subarray(at, at + n));
      at += n;
    }
    expect(mixed.hex()).toBe(whole);
  });
});
